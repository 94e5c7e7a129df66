/**
 * The fee-recipient declaration (miner_setEtherbase): encoding, its place in proposals, and
 * FinalizeBlock executing the block with the declared coinbase, the same on every node.
 */
import { afterEach, describe, expect, it } from 'vitest'
import {
  decodeFeeRecipientTx,
  encodeFeeRecipientTx,
  prependFeeRecipientTx,
  splitFeeRecipientTx,
} from '../../../../src/evm/txs/fee-recipient-tx.js'
import { decodeRawTx } from '../../../../src/evm/txs/tx.js'
import { bytesToHex, hexToBytes } from '../../../../src/primitives/hex.js'
import { ADDRESS2, DEV_KEY, FEE_RECIPIENT, GWEI, createHarness, sign1559, type Harness } from '../helpers.js'

const ETHERBASE = hexToBytes('0x' + 'e7'.repeat(20))

describe('fee-recipient declaration', () => {
  let h: Harness | undefined
  afterEach(async () => {
    await h?.close()
    h = undefined
  })

  it('round-trips, is never a transaction, and is found only at index 0', async () => {
    const raw = encodeFeeRecipientTx(ETHERBASE)
    expect(raw[0]! >= 0x80 && raw[0]! < 0xc0).toBe(true)
    expect(decodeFeeRecipientTx(raw)).toEqual(ETHERBASE)
    expect(decodeFeeRecipientTx(raw.slice(0, -1))).toBeUndefined()
    h = await createHarness()
    expect(() => decodeRawTx(raw, h!.app.common)).toThrow()
    expect((await h.app.checkTx(raw, 'new')).code).not.toBe(0)
    const tx = sign1559(h.app.common, DEV_KEY, { nonce: 0n, to: ADDRESS2 })
    expect(splitFeeRecipientTx([raw, tx])).toEqual({ feeRecipient: ETHERBASE, txs: [tx] })
    expect(splitFeeRecipientTx([tx, raw]).feeRecipient).toBeUndefined()
    // Txs that no longer fit after the declaration are dropped from the end.
    expect(prependFeeRecipientTx(ETHERBASE, [tx, tx], raw.length + 2 + tx.length + 2)).toEqual([raw, tx])
  })

  it('is put first by PrepareProposal, accepted there only, and sets the coinbase in FinalizeBlock', async () => {
    let declared: Uint8Array | undefined = ETHERBASE
    h = await createHarness({ app: { proposerFeeRecipient: () => declared } })
    const tx = sign1559(h.app.common, DEV_KEY, { nonce: 0n, to: ADDRESS2, maxPriorityFeePerGas: 2n * GWEI, maxFeePerGas: 10n * GWEI })
    const req = {
      maxTxBytes: 1_000_000,
      localLastCommit: { round: 0, votes: [] },
      height: 1,
      time: { seconds: 0, nanos: 0 },
      nextValidatorsHash: new Uint8Array(32),
      proposerAddress: new Uint8Array(20),
    }
    const prepared = await h.app.prepareProposal({ ...req, txs: [tx] })
    expect(prepared.txs).toEqual([encodeFeeRecipientTx(ETHERBASE), tx])
    const proposal = (txs: Uint8Array[]) => ({
      txs,
      proposedLastCommit: { round: 0, votes: [] },
      hash: new Uint8Array(32),
      height: 1,
      time: { seconds: 0, nanos: 0 },
      nextValidatorsHash: new Uint8Array(32),
      proposerAddress: new Uint8Array(20),
    })
    expect((await h.app.processProposal(proposal(prepared.txs))).accept).toBe(true)
    expect((await h.app.processProposal(proposal([tx, encodeFeeRecipientTx(ETHERBASE)]))).accept).toBe(false)

    const resp = await h.finalize(prepared.txs)
    expect(resp.txResults).toHaveLength(2)
    expect(resp.txResults[0]).toMatchObject({
      code: 0,
      events: [{ type: 'fee_recipient', attributes: [{ key: 'validator' }, { key: 'recipient', value: bytesToHex(ETHERBASE) }] }],
    })
    expect(resp.txResults[1]!.code).toBe(0)
    const block = (await h.app.getBlock(1))!
    expect(bytesToHex(block.miner)).toBe(bytesToHex(ETHERBASE))
    expect(block.transactions).toHaveLength(1)
    const receipt = (await h.app.getReceipt(block.transactions[0]!))!
    expect(receipt.transactionIndex).toBe(0)
    expect(await h.app.getBalance(ETHERBASE)).toBe(receipt.gasUsed * 2n * GWEI)

    // Without a declaration the genesis default applies again.
    declared = undefined
    const next = await h.app.prepareProposal({ ...req, height: 2, txs: [sign1559(h.app.common, DEV_KEY, { nonce: 1n, to: ADDRESS2 })] })
    expect(next.txs).toHaveLength(1)
    await h.finalize(next.txs)
    expect(bytesToHex((await h.app.getBlock(2))!.miner)).toBe(FEE_RECIPIENT)
  })
})
