/**
 * The EVM view's blocks, headers and receipts in Ethereum's consensus encoding (geth `rlp.EncodeToBytes`
 * of types.Header / types.Block, `Receipt.MarshalBinary`), for debug_getRawHeader, debug_getRawBlock
 * and debug_getRawReceipts. The header (debug_getRawHeader) is block-header.ts's `encodeHeader`, whose
 * Keccak-256 is the block hash.
 */
import { RLP } from '@ethereumjs/rlp'
import type { TransactionType } from '@ethereumjs/tx'
import { encodeReceipt } from '@ethereumjs/vm'
import { logsBloom } from './bloom.js'
import { headerFields } from './block-header.js'
import type { RawLog } from '../executor.js'
import { rawTxType } from '../txs/raw-tx.js'
import type { EvmBlock } from './views.js'

type Nested = Uint8Array | bigint | number | Nested[]

/**
 * RLP of [header, transactions, uncles, withdrawals] (the list of withdrawals is empty, and present
 * as from Shanghai on): a typed transaction is its `type ‖ payload` bytes as an RLP string, a legacy
 * one its RLP list (EIP-2718).
 */
export function encodeRawBlock(block: EvmBlock, rawTxs: readonly Uint8Array[]): Uint8Array {
  const txs = rawTxs.map((raw) => (rawTxType(raw) === 0 ? (RLP.decode(raw) as Nested) : raw))
  return RLP.encode([headerFields(block), txs, [], []])
}

/** What a consensus receipt holds. */
export interface RawReceiptFields {
  type: number
  status: 0 | 1
  cumulativeGasUsed: bigint
  logs: readonly RawLog[]
}

/** `Receipt.MarshalBinary`: the consensus encoding the block's receiptsRoot commits to (executor.ts encodes it the same way). */
export function encodeRawReceipt(r: RawReceiptFields): Uint8Array {
  const logs = r.logs.map((l): [Uint8Array, Uint8Array[], Uint8Array] => [l.address, l.topics, l.data])
  return encodeReceipt(
    { status: r.status, cumulativeBlockGasUsed: r.cumulativeGasUsed, bitvector: logsBloom(r.logs), logs },
    r.type as TransactionType,
  )
}
