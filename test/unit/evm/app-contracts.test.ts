import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAddress } from '../../../src/evm/store/evm-records.js'
import { CallArgsError, CallTimeoutError, ExecutionRevertedError, VmExecutionError } from '../../../src/evm/errors.js'
import { bloomContains } from '../../../src/evm/store/bloom.js'
import { CallService } from '../../../src/evm/calls/calls.js'
import { BlockHashes } from '../../../src/evm/state/block-hashes.js'
import { EvmStore } from '../../../src/evm/store/evm-store.js'
import { decodeRevertReason } from '../../../src/evm/vm-errors.js'
import { TxCode } from '../../../src/evm/txs/tx-codes.js'
import { bytesToHex, hexToBytes } from '../../../src/primitives/hex.js'
import { keccak256 } from '../../../src/crypto/index.js'
import {
  ADDRESS2,
  DEV_ADDRESS,
  DEV_KEY,
  KEY2,
  PANIC_DATA,
  STORE_RUNTIME,
  STORE_TOPIC,
  createHarness,
  deployCode,
  errorData,
  sign1559,
  signLegacy,
  word,
  type Harness,
} from './helpers.js'

const hex = bytesToHex
const attrs = (e: { attributes: { key: string; value: string }[] }) => Object.fromEntries(e.attributes.map((a) => [a.key, a.value]))
const pad32 = (a: string) => hexToBytes('0x' + a.slice(2).padStart(64, '0'))

describe('contracts', () => {
  let h: Harness
  let contract: Uint8Array
  let deployHash: Uint8Array
  beforeAll(async () => {
    h = await createHarness({ app: { calls: { evmTimeoutMs: 200 } } })
    const raw = sign1559(h.app.common, DEV_KEY, { nonce: 0n, data: deployCode(STORE_RUNTIME), gasLimit: 200_000n })
    deployHash = keccak256(raw)
    const resp = await h.finalize([raw])
    expect(resp.txResults[0]!.code).toBe(0)
    contract = createAddress(hexToBytes(DEV_ADDRESS), 0n)
  })
  afterAll(() => h.close())

  it('deploys from init code', async () => {
    const r = (await h.app.getReceipt(deployHash))!
    expect(r.status).toBe(1)
    expect(hex(r.contractAddress!)).toBe(hex(contract))
    expect(r.to).toBeUndefined()
    expect(hex(await h.app.getCode(contract))).toBe(hex(STORE_RUNTIME))
    const t = (await h.app.getTransaction(deployHash))!
    expect(t.to).toBeUndefined()
    expect(hex(t.input)).toBe(hex(deployCode(STORE_RUNTIME)))
    const ev = (await h.app.getBlock(1))!
    expect(ev.transactions.map(hex)).toEqual([hex(deployHash)])
  })

  it('indexes logs block-wide and fills the blooms', async () => {
    const c = h.app.common
    const to = hex(contract) as `0x${string}`
    const a = sign1559(c, DEV_KEY, { nonce: 1n, to, data: word(7n), gasLimit: 100_000n })
    const b = signLegacy(c, KEY2, { nonce: 0n, to, data: word(8n), gasLimit: 100_000n })
    const resp = await h.finalize([a, b])
    expect(resp.txResults.map((r) => r.code)).toEqual([0, 0])
    const ra = (await h.app.getReceipt(keccak256(a)))!
    const rb = (await h.app.getReceipt(keccak256(b)))!
    expect(ra.logs).toHaveLength(1)
    expect(rb.logs).toHaveLength(1)
    const la = ra.logs[0]!
    const lb = rb.logs[0]!
    expect([la.logIndex, lb.logIndex]).toEqual([0, 1])
    expect([la.transactionIndex, lb.transactionIndex]).toEqual([0, 1])
    expect(hex(la.address)).toBe(hex(contract))
    expect(la.topics.map(hex)).toEqual([hex(STORE_TOPIC), hex(pad32(DEV_ADDRESS))])
    expect(lb.topics.map(hex)).toEqual([hex(STORE_TOPIC), hex(pad32(ADDRESS2))])
    expect(hex(la.data)).toBe(hex(word(7n)))
    expect(la.blockNumber).toBe(2)
    const block = (await h.app.getBlock(2))!
    expect(hex(la.blockHash)).toBe(hex(block.hash))
    expect(hex(la.transactionHash)).toBe(hex(keccak256(a)))
    expect(bloomContains(ra.logsBloom, contract)).toBe(true)
    expect(bloomContains(ra.logsBloom, pad32(DEV_ADDRESS))).toBe(true)
    expect(bloomContains(ra.logsBloom, pad32(ADDRESS2))).toBe(false)
    for (const x of [contract, STORE_TOPIC, pad32(DEV_ADDRESS), pad32(ADDRESS2)]) expect(bloomContains(block.logsBloom, x)).toBe(true)
    expect(attrs(resp.events[0]!).bloom).toBe(hex(block.logsBloom))
    // tx_log attribute: one per log, JSON of the log
    const txLog = resp.txResults[1]!.events.find((e) => e.type === 'tx_log')!
    expect(JSON.parse(txLog.attributes[0]!.value)).toEqual({
      address: hex(contract),
      topics: [hex(STORE_TOPIC), hex(pad32(ADDRESS2))],
      data: hex(word(8n)),
      blockNumber: 2,
      transactionHash: hex(keccak256(b)),
      transactionIndex: 1,
      blockHash: hex(block.hash),
      logIndex: 1,
      removed: false,
    })
    expect(hex(await h.app.getStorageAt(contract, word(0n)))).toBe(hex(word(8n)))
  })

  it('answers eth_call without keeping its writes', async () => {
    const r = await h.app.call({ to: contract })
    expect(hex(r.returnValue)).toBe(hex(word(8n)))
    expect(r.gasUsed).toBeGreaterThan(21000n)
    // a call that writes does not change what the next call sees
    await h.app.call({ to: contract, input: word(99n) })
    expect(hex((await h.app.call({ to: contract })).returnValue)).toBe(hex(word(8n)))
    expect(hex((await h.app.call({ to: contract, input: new Uint8Array(0) })).returnValue)).toBe(hex(word(8n)))
    // at an older height
    expect(hex((await h.app.call({ to: contract }, 1)).returnValue)).toBe(hex(word(0n)))
  })

  it('decodes reverts as geth does', async () => {
    const err = await h.app.call({ to: contract, input: new Uint8Array(5) }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ExecutionRevertedError)
    const rev = err as ExecutionRevertedError
    expect(rev.message).toBe('execution reverted: bad input')
    expect(rev.reason).toBe('bad input')
    expect(hex(rev.revertData)).toBe(hex(errorData('bad input')))
    const panic = (await h.app.call({ to: contract, input: new Uint8Array(4) }).catch((e: unknown) => e)) as ExecutionRevertedError
    expect(panic.message).toBe('execution reverted: arithmetic underflow or overflow')
    expect(hex(panic.revertData)).toBe(hex(PANIC_DATA))
    expect(decodeRevertReason(hexToBytes('0xdeadbeef'))).toBeUndefined()
  })

  it('records a failed transaction with code 1 and status 0', async () => {
    const c = h.app.common
    const bad = sign1559(c, DEV_KEY, { nonce: 2n, to: hex(contract) as `0x${string}`, data: new Uint8Array(5), gasLimit: 100_000n })
    const oog = sign1559(c, DEV_KEY, { nonce: 3n, to: hex(contract) as `0x${string}`, data: word(1n), gasLimit: 22_000n })
    const resp = await h.finalize([bad, oog])
    expect(resp.txResults.map((r) => r.code)).toEqual([TxCode.ExecutionFailed, TxCode.ExecutionFailed])
    expect(resp.txResults[0]!.log).toBe('execution reverted: bad input')
    expect(hex(resp.txResults[0]!.data)).toBe(hex(errorData('bad input')))
    expect(resp.txResults[1]!.log).toBe('out of gas')
    expect(attrs(resp.txResults[0]!.events[0]!).ethereumTxFailed).toBe('execution reverted')
    expect(attrs(resp.txResults[1]!.events[0]!).ethereumTxFailed).toBe('out of gas')
    const r0 = (await h.app.getReceipt(keccak256(bad)))!
    const r1 = (await h.app.getReceipt(keccak256(oog)))!
    expect([r0.status, r1.status]).toEqual([0, 0])
    expect(r1.gasUsed).toBe(22_000n)
    expect(r0.gasUsed).toBeGreaterThan(21_000n)
    expect(r0.logs).toEqual([])
    expect(await h.app.getNonce(hexToBytes(DEV_ADDRESS))).toBe(4n)
  })

  it('gives BLOCKHASH the EVM block hashes', async () => {
    const latest = h.app.latestHeight()
    const r = await h.app.call({ to: contract, input: new Uint8Array(3) })
    expect(hex(r.returnValue)).toBe(hex((await h.app.getBlock(latest - 1))!.hash))
    const atTwo = await h.app.call({ to: contract, input: new Uint8Array(3) }, 2)
    expect(hex(atTwo.returnValue)).toBe(hex((await h.app.getBlock(1))!.hash))
  })

  it('estimates gas as geth does', async () => {
    expect(await h.app.estimateGas({ from: hexToBytes(DEV_ADDRESS), to: hexToBytes(ADDRESS2), value: 1n })).toBe(21000n)
    // an access list makes a plain transfer cost more: 21,000 + 2,400 per address
    const withList = await h.app.estimateGas({
      from: hexToBytes(DEV_ADDRESS),
      to: hexToBytes(ADDRESS2),
      value: 1n,
      accessList: [{ address: hexToBytes(ADDRESS2), storageKeys: [] }],
    })
    expect(withList).toBeGreaterThanOrEqual(23400n)
    expect(Number(withList - 23400n) / Number(withList)).toBeLessThan(0.015)
    const est = await h.app.estimateGas({ from: hexToBytes(DEV_ADDRESS), to: contract, input: word(5n) })
    // the estimate lets the transaction succeed, within geth's 1.5% error
    const raw = sign1559(h.app.common, DEV_KEY, { nonce: 4n, to: hex(contract) as `0x${string}`, data: word(5n), gasLimit: est })
    const resp = await h.finalize([raw])
    expect(resp.txResults[0]!.code).toBe(0)
    expect(est).toBeGreaterThanOrEqual(resp.txResults[0]!.gasUsed)
    expect(Number(est - resp.txResults[0]!.gasUsed) / Number(est)).toBeLessThan(0.015)
    const failing = await h.app
      .estimateGas({ from: hexToBytes(DEV_ADDRESS), to: contract, input: new Uint8Array(5) })
      .catch((e: unknown) => e)
    expect((failing as Error).message).toBe('execution reverted: bad input')
    const capped = await h.app
      .estimateGas({ from: hexToBytes(DEV_ADDRESS), to: contract, input: word(5n), gas: 22_000n })
      .catch((e: unknown) => e)
    expect(capped).toBeInstanceOf(VmExecutionError)
    expect((capped as Error).message).toBe('gas required exceeds allowance (22000)')
    const poor = await h.app.estimateGas({ from: new Uint8Array(20).fill(9), to: hexToBytes(ADDRESS2), value: 1n }).catch((e: unknown) => e)
    expect((poor as Error).message).toBe('insufficient funds for transfer')
    const deploy = await h.app.estimateGas({ from: hexToBytes(DEV_ADDRESS), input: deployCode(STORE_RUNTIME) })
    expect(deploy).toBeGreaterThan(53_000n)
  })

  it('validates call arguments', async () => {
    // data/input and gasPrice/1559 conflicts are refused by the decoder (api/eth/call-args.ts, eth-api.test.ts);
    // a tip over the defaulted (zero) fee cap and a fee cap under the base fee are execution-time rules
    const tip = await h.app.call({ to: contract, maxPriorityFeePerGas: 2n }).catch((e: unknown) => e)
    expect(tip).toBeInstanceOf(CallArgsError)
    expect((tip as Error).message).toBe('maxFeePerGas (0) < maxPriorityFeePerGas (2)')
    const low = await h.app.call({ to: contract, gas: 1000n }).catch((e: unknown) => e)
    expect((low as Error).message).toBe('intrinsic gas too low: have 1000, want 21000')
    const poor = await h.app
      .call({ from: new Uint8Array(20).fill(7), to: contract, gasPrice: 10n ** 9n, gas: 100_000n })
      .catch((e: unknown) => e)
    expect((poor as Error).message).toMatch(/^insufficient funds for gas \* price \+ value: address 0x0707/)
  })

  it('aborts calls past the EVM timeout and keeps serving', async () => {
    const err = await h.app.call({ to: contract, input: new Uint8Array(2) }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(CallTimeoutError)
    expect((err as Error).message).toBe('execution aborted (timeout = 200ms)')
    expect(hex((await h.app.call({ to: contract })).returnValue)).toBe(hex(word(5n)))
  })

  it('tells once when a call runs long, as a call worker posts the answers waiting behind it', async () => {
    let longRuns = 0
    const service = new CallService(
      {
        db: h.db,
        common: h.app.common,
        blockchain: new BlockHashes(new EvmStore(h.db)),
        resolve: (height) => h.app.stateAt(height),
        onLongRun: () => longRuns++,
      },
      { gasCap: 25_000_000n, evmTimeoutMs: 200 },
    )
    const state = await h.app.stateAt()
    expect(hex((await service.callAt({ to: contract }, state)).returnValue)).toBe(hex(word(5n)))
    expect(longRuns).toBe(0)
    await expect(service.callAt({ to: contract, input: new Uint8Array(2) }, state)).rejects.toBeInstanceOf(CallTimeoutError)
    expect(longRuns).toBe(1)
  })
})
