import { randomBytes } from 'node:crypto'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { afterAll, describe, expect, it } from 'vitest'
import { getCommon } from '../../../../src/evm/common.js'
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, Address, bigIntToBytes, bytesToBigInt, setLengthLeft, setLengthRight } from '@ethereumjs/util'
import { bytesToHex } from '@noble/hashes/utils.js'
import { encodeRlp, type RlpInput } from '../../../../src/primitives/rlp.js'
import { createVM } from '@ethereumjs/vm'
import { importInterpreterModule } from '../../../../src/evm/state/evm-interpreter-module.js'
import { OPCODE_PROBE_OPERANDS, opcodeProbeCode, words } from '../../../helpers/opcode-probe.js'
import {
  installAccountEntries,
  installFastIsActivatedEIP,
  installJumpAnalysisCache,
  installStorageWriteFix,
} from '../../../../src/evm/state/ethereumjs-patches.js'
import { importOriginal, removeOriginals } from '../../../helpers/original-modules.js'

afterAll(removeOriginals)

/** A random byte string of 0 to `max` bytes, often with leading zeros. */
function randomInput(max: number): Uint8Array {
  const bytes = Uint8Array.from(randomBytes(Math.floor(Math.random() * (max + 1))))
  const zeros = Math.floor(Math.random() * 3) === 0 ? Math.floor(Math.random() * bytes.length) : 0
  bytes.fill(0, 0, zeros)
  return bytes
}

/** A random RLP input: nested lists of byte strings, numbers, bigints, strings and nulls. */
function randomRlpInput(depth: number): unknown {
  const pick = Math.floor(Math.random() * (depth > 0 ? 7 : 6))
  if (pick === 0) return randomInput(70)
  if (pick === 1) return Math.floor(Math.random() * 2 ** 40)
  if (pick === 2) return bytesToBigInt(randomInput(40))
  if (pick === 3) return Math.random() < 0.5 ? `0x${Buffer.from(randomInput(10)).toString('hex')}` : 'nodectl'
  if (pick === 4) return null
  if (pick === 5) return Uint8Array.of(Math.floor(Math.random() * 256))
  return Array.from({ length: Math.floor(Math.random() * 5) }, () => randomRlpInput(depth - 1))
}

/** A random RLP input of byte strings only (what src/primitives/rlp.ts takes without a converter). */
function randomRlpBytes(depth: number): RlpInput {
  if (depth === 0 || Math.random() < 0.5) return randomInput(Math.random() < 0.8 ? 3 : 70)
  return Array.from({ length: Math.floor(Math.random() * 5) }, () => randomRlpBytes(depth - 1))
}

const hexBytes = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex.slice(2), 'hex'))

/** The outcome of `f`: its value, or the message it threw. */
function outcome(f: () => unknown): unknown {
  try {
    return f()
  } catch (err) {
    return `throws ${(err as Error).message}`
  }
}

describe('patched library code (patches/) answers as the original text', () => {
  type Noble = { bytesToHex(b: Uint8Array): string }
  type Bytes = {
    bytesToBigInt(b: Uint8Array, littleEndian?: boolean): bigint
    bigIntToBytes(n: bigint, littleEndian?: boolean): Uint8Array
    setLengthLeft(b: Uint8Array, length: number, opts?: { allowTruncate?: boolean }): Uint8Array
    setLengthRight(b: Uint8Array, length: number, opts?: { allowTruncate?: boolean }): Uint8Array
  }
  const originals = async () => {
    const noble = await importOriginal<Noble>('@noble/hashes', 'utils.js')
    const bytes = await importOriginal<Bytes>('@ethereumjs/util', 'dist/esm/bytes.js', { '@noble/hashes/utils.js': noble.url })
    const rlp = await importOriginal<{ encode(input: unknown): Uint8Array }>('@ethereumjs/rlp', 'dist/esm/index.js')
    return { noble: noble.module, bytes: bytes.module, rlp: rlp.module }
  }

  it('@noble/hashes bytesToHex', async () => {
    const { noble } = await originals()
    expect(noble.bytesToHex.toString()).not.toContain('hexSlice')
    for (let i = 0; i < 2_000; i++) {
      const input = randomInput(80)
      expect(bytesToHex(input)).toBe(noble.bytesToHex(input))
    }
  })

  it('@ethereumjs/util bytesToBigInt, bigIntToBytes, setLengthLeft and setLengthRight', async () => {
    const { bytes } = await originals()
    expect(bytes.bigIntToBytes.toString()).not.toContain('hexDigit')
    for (let i = 0; i < 20_000; i++) {
      const input = randomInput(40)
      const little = i % 5 === 0
      expect(bytesToBigInt(input, little)).toBe(bytes.bytesToBigInt(input, little))
      const n = bytes.bytesToBigInt(input)
      expect(bigIntToBytes(n, little)).toEqual(bytes.bigIntToBytes(n, little))
      const length = Math.floor(Math.random() * 48)
      const truncate = { allowTruncate: i % 2 === 0 }
      expect(outcome(() => setLengthLeft(input, length, truncate))).toEqual(outcome(() => bytes.setLengthLeft(input, length, truncate)))
      expect(outcome(() => setLengthRight(input, length, truncate))).toEqual(outcome(() => bytes.setLengthRight(input, length, truncate)))
    }
    for (const n of [0n, 1n, 255n, 256n, 65_535n, 65_536n, 2n ** 48n - 1n, 2n ** 48n, 2n ** 256n - 1n, -1n])
      expect(outcome(() => bigIntToBytes(n))).toEqual(outcome(() => bytes.bigIntToBytes(n)))
  })

  it('@ethereumjs/rlp encode, and src/primitives/rlp.ts, whose encoder it is', async () => {
    const { rlp } = await originals()
    expect(rlp.encode.toString()).not.toContain('measurePlan')
    for (let i = 0; i < 3_000; i++) {
      const input = randomRlpInput(4)
      const expected = rlp.encode(input)
      expect(RLP.encode(input as never)).toEqual(expected)
      const bytesOnly = randomRlpBytes(4)
      expect(encodeRlp(bytesOnly)).toEqual(rlp.encode(bytesOnly))
    }
  })

  it("@ethereumjs/evm: the synchronous step (no step listener) answers as the library's awaited runStep", async () => {
    const answers = async (watched: boolean) => {
      const vm = await createVM({ common: getCommon(9000n).copy() })
      if (watched) vm.evm.events!.on('step', () => {}) // the interpreter then awaits runStep for every opcode
      const created = await vm.evm.runCall({ data: hexBytes(opcodeProbeCode()), gasLimit: 1_000_000n })
      const to = created.createdAddress!
      const out: unknown[] = []
      for (const data of [...OPCODE_PROBE_OPERANDS, words(4096n, 100n, 2n ** 256n - 1n, 0n)]) {
        for (const gasLimit of [30_000n, 60_000n, 10_000_000n]) {
          const { execResult } = await vm.evm.runCall({ to, data: hexBytes(data), gasLimit })
          out.push({
            gas: execResult.executionGasUsed,
            error: execResult.exceptionError?.error,
            returned: Buffer.from(execResult.returnValue).toString('hex'),
            logs: execResult.logs?.map(([address, topics, log]) =>
              [address, topics, log].flat().map((b) => Buffer.from(b).toString('hex')),
            ),
          })
        }
      }
      return out
    }
    const { Interpreter } = (await importInterpreterModule()) as { Interpreter: { prototype: { runStepSync(...args: unknown[]): void } } }
    const runStepSync = Interpreter.prototype.runStepSync
    let syncSteps = 0
    Interpreter.prototype.runStepSync = function (...args) {
      syncSteps++
      return runStepSync.apply(this, args)
    }
    const fast = await answers(false).finally(() => {
      Interpreter.prototype.runStepSync = runStepSync
    })
    expect(syncSteps).toBeGreaterThan(1_000)
    expect(fast.some((a) => (a as { error?: string }).error === undefined)).toBe(true)
    expect(fast).toEqual(await answers(true))
  })
})

describe('EVM speed-ups', () => {
  it('installs the JUMPDEST analysis cache', async () => {
    expect(await installJumpAnalysisCache()).toBe(true)
    expect(await installJumpAnalysisCache()).toBe(true)
  })

  it('answers isActivatedEIP as the library does, also on copies that change hardfork', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun })
    const reference = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun })
    installFastIsActivatedEIP(common)
    expect(Object.hasOwn(common, 'isActivatedEIP')).toBe(true)
    const eips = [...Array.from({ length: 8_000 }, (_, i) => i), 20_000, -1]
    for (const eip of eips) expect(common.isActivatedEIP(eip), `EIP ${eip}`).toBe(reference.isActivatedEIP(eip))
    const copy = common.copy()
    copy.setHardfork(Hardfork.Prague)
    reference.setHardfork(Hardfork.Prague)
    for (const eip of [2537, 2935, 7702, 4844, 1559]) expect(copy.isActivatedEIP(eip), `EIP ${eip}`).toBe(reference.isActivatedEIP(eip))
    expect(copy.isActivatedEIP(7702)).toBe(true)
    expect(common.isActivatedEIP(7702)).toBe(false)
  })

  it('is installed on the process Common', () => {
    expect(Object.hasOwn(getCommon(9000n), 'isActivatedEIP')).toBe(true)
    expect(getCommon(9000n).isActivatedEIP(1153)).toBe(true)
  })

  it('reads cached accounts as fresh objects that follow every write', async () => {
    installAccountEntries()
    const sm = new MerkleStateManager({ caches: new Caches() })
    const address = new Address(new Uint8Array(20).fill(7))
    expect(await sm.getAccount(address)).toBeUndefined()
    await sm.putAccount(address, new Account(1n, 100n))
    const first = (await sm.getAccount(address))!
    first.nonce = 99n
    const second = (await sm.getAccount(address))!
    expect(second).not.toBe(first)
    expect([second.nonce, second.balance]).toEqual([1n, 100n])
    second.balance = 50n
    await sm.putAccount(address, second)
    const third = (await sm.getAccount(address))!
    expect([third.nonce, third.balance]).toEqual([1n, 50n])
    expect(third.serialize()).toEqual(second.serialize())
    await sm.deleteAccount(address)
    expect(await sm.getAccount(address)).toBeUndefined()
  })

  it("keeps the account as it was put, encodes it at the flush, and gives the library's state root", async () => {
    installAccountEntries()
    const cached = new MerkleStateManager({ caches: new Caches() })
    const direct = new MerkleStateManager()
    const addresses = [1, 2, 3].map((n) => new Address(new Uint8Array(20).fill(n)))
    for (const sm of [cached, direct]) {
      const account = new Account(1n, 10n)
      await sm.putAccount(addresses[0]!, account)
      account.balance = 20n // the caller changes its object after the put
      await sm.putAccount(addresses[1]!, account)
      await sm.putAccount(addresses[2]!, new Account(0n, 5n))
      await sm.deleteAccount(addresses[2]!)
    }
    expect((await cached.getAccount(addresses[0]!))!.balance).toBe(10n)
    expect((await cached.getAccount(addresses[1]!))!.balance).toBe(20n)
    expect(await cached.getAccount(addresses[2]!)).toBeUndefined()
    expect(await cached.getStateRoot()).toEqual(await direct.getStateRoot())
  })

  it('writes storage into the cache only, with the same state root as writing the trie directly', async () => {
    installStorageWriteFix()
    const cached = new MerkleStateManager({ caches: new Caches() })
    const direct = new MerkleStateManager()
    const trieWrites = () => (cached as unknown as { _storageTries: Record<string, unknown> })._storageTries
    const address = new Address(new Uint8Array(20).fill(9))
    const slot = (n: number) => new Uint8Array(32).fill(n)
    for (const sm of [cached, direct]) {
      await sm.checkpoint()
      await sm.putAccount(address, new Account(1n, 5n))
      for (let i = 1; i <= 20; i++) await sm.putStorage(address, slot(i % 4), Uint8Array.of(i))
      await sm.putStorage(address, slot(2), new Uint8Array(0))
    }
    // nothing reached a storage trie before the flush
    expect(Object.keys(trieWrites())).toEqual([])
    expect(await cached.getStorage(address, slot(1))).toEqual(Uint8Array.of(17))
    expect(await cached.getStorage(address, slot(2))).toEqual(new Uint8Array(0))
    const [a, b] = [await cached.getStateRoot(), await direct.getStateRoot()]
    expect(a).toEqual(b)
    await expect(cached.putStorage(address, new Uint8Array(31), Uint8Array.of(1))).rejects.toThrow('Storage key must be 32 bytes long')
    await expect(cached.putStorage(address, slot(1), new Uint8Array(33))).rejects.toThrow('Storage value cannot be longer than 32 bytes')
    await expect(cached.putStorage(new Address(new Uint8Array(20)), slot(1), Uint8Array.of(1))).rejects.toThrow(
      'putStorage() called on non-existing account',
    )
  })
})
