import { bytesToHex, computeVersionedHash, hexToBytes as ejsHexToBytes } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { afterEach, describe, expect, it } from 'vitest'
import { POINT_EVALUATION_UNSUPPORTED } from '../../../src/evm/point-evaluation.js'
import { addCustomPrecompile } from '../../../src/evm/state/ethereumjs-patches.js'
import type { ContractConsole } from '../../../src/evm/tracing/contract-console.js'
import { TxCode } from '../../../src/evm/txs/tx-codes.js'
import { concatBytes } from '../../../src/primitives/hex.js'
import { ADDRESS2, DEV_ADDRESS, DEV_KEY, KEY2, createHarness, sign1559, type Harness } from './helpers.js'

const POINT_EVALUATION = '0x000000000000000000000000000000000000000a'
/** Where the faulty precompile of the tests sits. */
const FAULTY = '0x000000000000000000000000000000000000ff00'

const harnesses: Harness[] = []
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close()
})

/** A harness whose consensus VM is handed to `onVm` (the application gives its contract console the VM). */
async function harness(onVm?: (vm: VM) => void): Promise<Harness> {
  const probe = { attach: (vm: VM) => onVm?.(vm), beginTx() {} } as unknown as ContractConsole
  const h = await createHarness({ app: onVm ? { contractConsole: probe } : {} })
  harnesses.push(h)
  return h
}

describe('the point evaluation precompile (0x0a)', () => {
  it('fails every call, consuming its gas, and the chain goes on', async () => {
    const h = await harness()
    const c = h.app.common
    const commitment = new Uint8Array(48).fill(0xc0)
    const hash = ejsHexToBytes(computeVersionedHash(bytesToHex(commitment), 1))
    const matching = concatBytes(hash, new Uint8Array(64), commitment, new Uint8Array(48))
    const gasLimit = 0x30000n
    const resp = await h.finalize([
      sign1559(c, DEV_KEY, { nonce: 0n, to: POINT_EVALUATION, data: new Uint8Array(192), gasLimit }),
      sign1559(c, DEV_KEY, { nonce: 1n, to: POINT_EVALUATION, data: matching, gasLimit }),
      sign1559(c, DEV_KEY, { nonce: 2n, to: POINT_EVALUATION, data: new Uint8Array(191), gasLimit }),
    ])
    expect(resp.txResults.map((r) => r.code)).toEqual([TxCode.ExecutionFailed, TxCode.ExecutionFailed, TxCode.ExecutionFailed])
    expect(resp.txResults.map((r) => r.gasUsed)).toEqual([gasLimit, gasLimit, gasLimit])
    expect(resp.txResults[0]!.log).toContain('kzg commitment does not match versioned hash')
    expect(resp.txResults[1]!.log).toContain(POINT_EVALUATION_UNSUPPORTED)
    expect(resp.txResults[2]!.log).toContain('invalid input length')
    const next = await h.finalize([sign1559(c, DEV_KEY, { nonce: 3n, to: ADDRESS2, value: 1n })])
    expect(next.txResults.map((r) => r.code)).toEqual([TxCode.OK])
    await h.reopen()
    expect(await h.app.getNonce(ejsHexToBytes(DEV_ADDRESS))).toBe(4n)
  })
})

describe('a transaction the EVM throws out of', () => {
  it('is refused with nothing of it kept, and the block and the chain go on', async () => {
    const faulty = await harness((vm) =>
      addCustomPrecompile(vm.evm, {
        address: FAULTY,
        function: () => {
          throw new Error('precompile fault')
        },
      }),
    )
    const c = faulty.app.common
    const transfer = sign1559(c, KEY2, { nonce: 0n, to: DEV_ADDRESS, value: 5n })
    const resp = await faulty.finalize([sign1559(c, DEV_KEY, { nonce: 0n, to: FAULTY, value: 7n, gasLimit: 100_000n }), transfer])
    expect(resp.txResults.map((r) => r.code)).toEqual([TxCode.InvalidRequest, TxCode.OK])
    expect(resp.txResults[0]!.log).toContain('precompile fault')
    // The same block without the faulty transaction ends in the same state.
    const plain = await harness()
    expect((await plain.finalize([transfer])).appHash).toEqual(resp.appHash)
    const next = await faulty.finalize([sign1559(c, DEV_KEY, { nonce: 0n, to: ADDRESS2, value: 1n })])
    expect(next.txResults.map((r) => r.code)).toEqual([TxCode.OK])
  })
})
