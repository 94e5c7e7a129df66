/**
 * The fee-recipient declaration: how a proposer names the coinbase of its block (miner_setEtherbase)
 * so that every node executes the block with the same coinbase.
 *
 * A CometBFT header has no field for it, and a node-local setting read at execution would make the
 * state root depend on which node executes. So the proposer carries it in the block, as ABCI 2.0
 * applications carry proposer data: PrepareProposal puts one declaration as the block's first tx,
 * ProcessProposal accepts it only there, and FinalizeBlock uses it as the coinbase instead of the
 * genesis `fee_recipients` default. The block is signed by its proposer, so only the proposer can
 * name its own block's fee recipient, as an Ethereum block builder sets its header's coinbase.
 *
 * Encoding: the RLP byte string of `FEE_RECIPIENT_TAG ‖ address`. Its first byte (0x80–0xbf, an RLP
 * string) can never start a signed EVM transaction: EIP-2718 typed envelopes start with 0x00–0x7f and
 * legacy ones with an RLP list (≥ 0xc0). CheckTx therefore refuses it, so no user can place one in
 * the pool, and it never enters the EVM view (no hash, receipt or index of its own).
 */
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, bytesToUpperHex, equalBytes, utf8ToBytes } from '../../primitives/hex.js'
import { okExecTxResult, type ExecTxResult } from '../../abci/types.js'

/** Marks the payload; versioned so a later format can coexist. */
const FEE_RECIPIENT_TAG = utf8ToBytes('nodectl/fee-recipient/v1:')
const ADDRESS_BYTES = 20
const PAYLOAD_BYTES = FEE_RECIPIENT_TAG.length + ADDRESS_BYTES
/** ABCI event of the declaration (tx_search `fee_recipient.recipient='0x…'`). */
export const FEE_RECIPIENT_EVENT = 'fee_recipient'

/** The declaration tx naming `address` as the coinbase of the block it opens. */
export function encodeFeeRecipientTx(address: Uint8Array): Uint8Array {
  if (address.length !== ADDRESS_BYTES) throw new Error(`fee recipient must be ${ADDRESS_BYTES} bytes`)
  const payload = new Uint8Array(PAYLOAD_BYTES)
  payload.set(FEE_RECIPIENT_TAG)
  payload.set(address, FEE_RECIPIENT_TAG.length)
  return RLP.encode(payload)
}

/** The address a declaration names, or undefined when `raw` is not one. */
export function decodeFeeRecipientTx(raw: Uint8Array): Uint8Array | undefined {
  // RLP of a 45-byte string: one prefix byte (0x80 + length), then the payload.
  if (raw.length !== PAYLOAD_BYTES + 1 || raw[0] !== 0x80 + PAYLOAD_BYTES) return undefined
  if (!equalBytes(raw.subarray(1, 1 + FEE_RECIPIENT_TAG.length), FEE_RECIPIENT_TAG)) return undefined
  return raw.slice(1 + FEE_RECIPIENT_TAG.length)
}

/**
 * Splits a block's txs into its declared fee recipient (a declaration at index 0) and the rest. A
 * declaration anywhere else is left in place: it does not decode as a transaction and is refused.
 */
export function splitFeeRecipientTx(txs: readonly Uint8Array[]): { feeRecipient: Uint8Array | undefined; txs: readonly Uint8Array[] } {
  const first = txs[0]
  const feeRecipient = first === undefined ? undefined : decodeFeeRecipientTx(first)
  return feeRecipient === undefined ? { feeRecipient, txs } : { feeRecipient, txs: txs.slice(1) }
}

/** Protobuf size of one entry of the block's repeated `txs` field (CometBFT `ComputeProtoSizeForTxs`). */
export function protoSizeOfTx(length: number): number {
  let varint = 1
  for (let n = length; n >= 0x80; n >>>= 7) varint++
  return 1 + varint + length
}

/**
 * Puts the declaration of `feeRecipient` in front of the proposal's `txs`, dropping txs from the end
 * until the whole still fits `maxTxBytes` (protobuf bytes, as the engine checks it).
 */
export function prependFeeRecipientTx(feeRecipient: Uint8Array, txs: readonly Uint8Array[], maxTxBytes: number): Uint8Array[] {
  const declaration = encodeFeeRecipientTx(feeRecipient)
  const out = [declaration]
  let bytes = protoSizeOfTx(declaration.length)
  for (const tx of txs) {
    bytes += protoSizeOfTx(tx.length)
    if (maxTxBytes > 0 && bytes > maxTxBytes) break
    out.push(tx)
  }
  return out
}

/** The FinalizeBlock result of the declaration: success, with an event naming proposer and recipient. */
export function createFeeRecipientTxResult(proposer: Uint8Array, feeRecipient: Uint8Array): ExecTxResult {
  const attributes = [
    { key: 'validator', value: bytesToUpperHex(proposer), index: true },
    { key: 'recipient', value: bytesToHex(feeRecipient), index: true },
  ]
  return okExecTxResult([{ type: FEE_RECIPIENT_EVENT, attributes }])
}
