/**
 * The application and dev operations: a dev application applies the operations a block opens with
 * (PrepareProposal puts the queued ones first; FinalizeBlock applies them with no EVM transaction);
 * any application's CheckTx refuses them; an application that is not a dev one rejects a proposal
 * carrying them and refuses them as undecodable in FinalizeBlock.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { encodeDevOp } from '../../../../src/evm/dev/ops.js'
import { encodeImpersonatedTx } from '../../../../src/evm/dev/impersonated-tx.js'
import { TxCode } from '../../../../src/evm/txs/tx-codes.js'
import { ADDRESS2, createHarness, DEV_KEY, sign1559, type Harness } from '../helpers.js'
import { hexToBytes } from '../../../../src/primitives/hex.js'

const A = new Uint8Array(20).fill(0xaa)

function proposal(txs: Uint8Array[]) {
  return {
    txs,
    proposedLastCommit: { round: 0, votes: [] },
    hash: new Uint8Array(32),
    height: 2,
    time: { seconds: 0, nanos: 0 },
    nextValidatorsHash: new Uint8Array(32),
    proposerAddress: new Uint8Array(20),
  }
}

/** A PrepareProposal request for `height` offering the pool's `txs`. */
function prepareRequest(height: number, txs: Uint8Array[] = []) {
  return {
    maxTxBytes: 1_000_000,
    txs,
    localLastCommit: { round: 0, votes: [] },
    height,
    time: { seconds: 0, nanos: 0 },
    nextValidatorsHash: new Uint8Array(32),
    proposerAddress: new Uint8Array(20),
  }
}

describe('dev operations in the application', () => {
  let h: Harness | undefined
  afterEach(async () => {
    await h?.close()
    h = undefined
  })

  it('applies queued operations first in the block, outside the EVM view, and answers their waiters', async () => {
    h = await createHarness({ app: { dev: true } })
    const app = h.app
    const set = app.devOps!.push({ kind: 'setBalance', address: A, balance: 123n }, true)
    app.devOps!.push({ kind: 'nextTimestamp', timestamp: 1_900_000_000n }, false)
    expect(app.devOps!.blockWanted()).toBe(1)
    const tx = sign1559(app.common, DEV_KEY, { nonce: 0n, to: ADDRESS2, value: 1n })
    const prepared = await app.prepareProposal(prepareRequest(1, [tx]))
    expect(prepared.txs).toHaveLength(3)
    expect(prepared.txs[2]).toEqual(tx)
    expect((await app.processProposal(proposal(prepared.txs))).accept).toBe(true)
    const res = await h.finalize(prepared.txs)
    expect(res.txResults.map((r) => r.code)).toEqual([0, 0, 0])
    expect(res.txResults[0]!.events).toEqual([{ type: 'dev_op', attributes: [{ key: 'kind', value: 'setBalance', index: true }] }])
    expect(await set).toBe(1)
    expect(app.devOps!.pending()).toEqual([])
    expect(await app.getBalance(A)).toBe(123n)
    const block = (await app.getBlock(1))!
    expect(block.transactions).toHaveLength(1)
    expect(block.timestamp).toBe(1_900_000_000)
    // The clock continues from the timestamp set.
    await h.finalize([])
    expect((await app.getBlock(2))!.timestamp).toBeGreaterThanOrEqual(1_900_000_002)
  })

  it('takes queued transactions only while their gas fits the block, leaving the rest for the next one', async () => {
    h = await createHarness({ app: { dev: true } })
    const app = h.app
    const big = (nonce: bigint) =>
      encodeImpersonatedTx(A, {
        chainId: app.evmChainId,
        nonce,
        gasLimit: 20_000_000n,
        to: A,
        value: 0n,
        data: new Uint8Array(0),
        accessList: undefined,
        gasPrice: undefined,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 0n,
      })
    void app.devOps!.push({ kind: 'tx', from: A, raw: big(0n) }, true)
    void app.devOps!.push({ kind: 'tx', from: A, raw: big(1n) }, true)
    const prepare = () => app.prepareProposal(prepareRequest(h!.height))
    const first = await prepare()
    expect(first.txs).toHaveLength(1)
    expect((await app.processProposal(proposal(first.txs))).accept).toBe(true)
    expect((await app.processProposal(proposal(app.devOps!.pending()))).accept).toBe(false)
    await h.finalize(first.txs)
    expect(app.devOps!.pending()).toHaveLength(1)
  })

  it('leaves header overrides for a wanted block: not in an empty block the engine makes on its own, one requested block each', async () => {
    h = await createHarness({ app: { dev: true } })
    const app = h.app
    const queue = app.devOps!
    const prepare = async () => (await app.prepareProposal(prepareRequest(h!.height))).txs
    void queue.push({ kind: 'nextBaseFee', baseFee: 5n }, false)
    expect(await prepare()).toEqual([])
    const first = queue.requestBlock()
    void queue.push({ kind: 'nextBaseFee', baseFee: 6n }, false)
    const second = queue.requestBlock()
    const txs = await prepare()
    expect(txs).toHaveLength(2)
    await h.finalize(txs)
    expect(await first).toBe(1)
    expect((await app.getBlock(1))!.baseFeePerGas).toBe(5n)
    await h.finalize(await prepare())
    expect(await second).toBe(2)
    expect((await app.getBlock(2))!.baseFeePerGas).toBe(6n)
    expect(queue.blockWanted()).toBe(0)
  })

  it('rejects a proposal whose leading operation does not decode', async () => {
    h = await createHarness({ app: { dev: true } })
    const bad = hexToBytes('0xbe646576c0')
    expect((await h.app.processProposal(proposal([bad]))).accept).toBe(false)
  })

  it('refuses operations in CheckTx, dev or not', async () => {
    h = await createHarness({ app: { dev: true } })
    const op = encodeDevOp({ kind: 'setBalance', address: A, balance: 1n })
    expect((await h.app.checkTx(op, 'new')).code).toBe(TxCode.TxDecode)
  })

  it('outside a dev chain: a proposal with an operation is rejected and FinalizeBlock refuses it', async () => {
    h = await createHarness()
    const op = encodeDevOp({ kind: 'setBalance', address: A, balance: 1n })
    expect((await h.app.checkTx(op, 'new')).code).toBe(TxCode.TxDecode)
    expect((await h.app.processProposal(proposal([op]))).accept).toBe(false)
    const res = await h.finalize([op])
    expect(res.txResults[0]!.code).toBe(TxCode.TxDecode)
    expect(await h.app.getBalance(A)).toBe(0n)
  })
})
