import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAddress } from '../../../../src/evm/store/evm-records.js'
import { CallTimeoutError, ExecutionRevertedError } from '../../../../src/evm/errors.js'
import { callKey } from '../../../../src/evm/calls/call-cache.js'
import { bytesToHex, hexToBytes } from '../../../../src/primitives/hex.js'
import { DEV_ADDRESS, DEV_KEY, STORE_RUNTIME, createHarness, deployCode, sign1559, word, type Harness } from '../helpers.js'

const hex = bytesToHex

describe('eth_call memo', () => {
  let h: Harness
  let contract: Uint8Array
  beforeAll(async () => {
    h = await createHarness({ app: { calls: { evmTimeoutMs: 200 } } })
    await h.finalize([sign1559(h.app.common, DEV_KEY, { nonce: 0n, data: deployCode(STORE_RUNTIME), gasLimit: 200_000n })])
    contract = createAddress(hexToBytes(DEV_ADDRESS), 0n)
  })
  afterAll(() => h.close())

  it('answers equal calls at a height once, and again after the next block', async () => {
    const [a, b] = await Promise.all([h.app.call({ to: contract }), h.app.call({ to: contract })])
    expect(a).toBe(b)
    expect(hex(a.returnValue)).toBe(hex(word(0n)))
    expect(await h.app.call({ to: contract })).toBe(a)
    await h.finalize([
      sign1559(h.app.common, DEV_KEY, { nonce: 1n, to: hex(contract) as `0x${string}`, data: word(5n), gasLimit: 100_000n }),
    ])
    expect(hex((await h.app.call({ to: contract })).returnValue)).toBe(hex(word(5n)))
    // the earlier height keeps its own answer
    expect(hex((await h.app.call({ to: contract }, h.height - 2)).returnValue)).toBe(hex(word(0n)))
  })

  it('remembers reverts but not timeouts', async () => {
    const revert = () => h.app.call({ to: contract, input: new Uint8Array(4) }).catch((e: unknown) => e)
    const first = await revert()
    expect(first).toBeInstanceOf(ExecutionRevertedError)
    expect(await revert()).toBe(first)
    const loop = () => h.app.call({ to: contract, input: new Uint8Array(2) }).catch((e: unknown) => e)
    const timeout = await loop()
    expect(timeout).toBeInstanceOf(CallTimeoutError)
    expect(await loop()).not.toBe(timeout)
  })

  it('keys on every argument', () => {
    const base = { to: contract, input: word(1n) }
    const keys = new Set([
      callKey(1, base),
      callKey(2, base),
      callKey(1, { ...base, from: contract }),
      callKey(1, { ...base, gas: 50_000n }),
      callKey(1, { ...base, value: 1n }),
      callKey(1, { ...base, input: word(2n) }),
      callKey(1, { ...base, gasPrice: 1n }),
      callKey(1, { ...base, maxFeePerGas: 1n }),
      callKey(1, { ...base, maxPriorityFeePerGas: 1n }),
      callKey(1, { ...base, nonce: 1n }),
      callKey(1, { ...base, accessList: [{ address: contract, storageKeys: [] }] }),
    ])
    expect(keys.size).toBe(11)
  })
})
