/**
 * The console.log decoder against calls encoded by viem from the overloads' signatures: every
 * `log` with one to four arguments of uint256, string, bool and address, the single-argument forms,
 * and the `uint` spelling of older console.sol versions.
 */
import { encodeFunctionData, getAddress, parseAbiItem, type AbiFunction } from 'viem'
import { describe, expect, it } from 'vitest'
import { decodeConsoleCall } from '../../../../src/evm/tracing/console-abi.js'
import { hexToBytes } from '../../../../src/primitives/hex.js'

const ADDRESS = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
/** A value of each argument type and how Hardhat prints it. */
const SAMPLES: Record<string, [unknown, string]> = {
  uint256: [10n ** 30n, (10n ** 30n).toString()],
  string: ['héllo wörld', 'héllo wörld'],
  bool: [true, 'true'],
  address: [ADDRESS, getAddress(ADDRESS)],
}

function encode(signature: string, args: unknown[]): Uint8Array {
  const abi = [parseAbiItem(`function ${signature}`) as AbiFunction]
  return hexToBytes(encodeFunctionData({ abi, functionName: abi[0]!.name, args }))
}

function combinations(n: number): string[][] {
  if (n === 0) return [[]]
  return combinations(n - 1).flatMap((c) => Object.keys(SAMPLES).map((t) => [...c, t]))
}

describe('decodeConsoleCall', () => {
  it('decodes every log overload of one to four arguments', () => {
    let count = 0
    for (let n = 1; n <= 4; n++) {
      for (const types of combinations(n)) {
        const data = encode(
          `log(${types.join(',')})`,
          types.map((t) => SAMPLES[t]![0]),
        )
        expect(decodeConsoleCall(data)).toBe(types.map((t) => SAMPLES[t]![1]).join(' '))
        count++
      }
    }
    expect(count).toBe(4 + 16 + 64 + 256)
  })

  it('decodes the single-argument forms, log() and the legacy uint spelling; formats like util.format', () => {
    expect(decodeConsoleCall(encode('log()', []))).toBe('')
    expect(decodeConsoleCall(encode('log(int256)', [-7n]))).toBe('-7')
    expect(decodeConsoleCall(encode('logInt(int256)', [-(2n ** 255n)]))).toBe((-(2n ** 255n)).toString())
    expect(decodeConsoleCall(encode('logBytes(bytes)', ['0x00ff']))).toBe('0x00ff')
    expect(decodeConsoleCall(encode('logBytes3(bytes3)', ['0xabcdef']))).toBe('0xabcdef')
    expect(decodeConsoleCall(encode('logBytes32(bytes32)', [`0x${'11'.repeat(32)}`]))).toBe(`0x${'11'.repeat(32)}`)
    expect(decodeConsoleCall(encode('log(uint)', [5n]))).toBe('5')
    expect(decodeConsoleCall(encode('log(string,uint256)', ['%s apples', 3n]))).toBe('3 apples')
  })

  it('leaves unknown selectors and malformed arguments undecoded', () => {
    expect(decodeConsoleCall(encode('transfer(address,uint256)', [ADDRESS, 1n]))).toBeUndefined()
    expect(decodeConsoleCall(new Uint8Array([1, 2]))).toBeUndefined()
    const truncated = encode('log(string)', ['hello'])
    expect(decodeConsoleCall(truncated.subarray(0, 4 + 32))).toBeUndefined()
  })
})
