/**
 * The EVM view's blocks, headers and receipts in Ethereum's consensus encoding (geth `rlp.EncodeToBytes`
 * of types.Header / types.Block, `Receipt.MarshalBinary`), for debug_getRawHeader, debug_getRawBlock
 * and debug_getRawReceipts. The header is the London shape of the fields the EVM view shows
 * (eth_getBlockByNumber): no withdrawals or blob fields, so a decoder reads it as a post-London,
 * pre-Shanghai header. Its Keccak-256 is not the block hash: the EVM view's hash is the consensus
 * (CometBFT) block hash (docs/behaviour.md, "Block hashes").
 */
import { RLP } from '@ethereumjs/rlp'
import type { TransactionType } from '@ethereumjs/tx'
import { encodeReceipt } from '@ethereumjs/vm'
import { hexToBytes } from '../../primitives/hex.js'
import { logsBloom } from './bloom.js'
import type { RawLog } from '../executor.js'
import { rawTxType } from '../txs/raw-tx.js'
import type { EvmBlock } from './views.js'

/** Keccak-256 of RLP([]): the ommers hash of a block without uncles. */
const EMPTY_UNCLES_HASH = hexToBytes('0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347')
/** The 8-byte block nonce (always zero, as after the merge). */
const ZERO_NONCE = new Uint8Array(8)

type Nested = Uint8Array | bigint | number | Nested[]

function headerFields(b: EvmBlock): Nested[] {
  return [
    b.parentHash,
    EMPTY_UNCLES_HASH,
    b.miner,
    b.stateRoot,
    b.transactionsRoot,
    b.receiptsRoot,
    b.logsBloom,
    0n,
    b.number,
    b.gasLimit,
    b.gasUsed,
    b.timestamp,
    b.extraData,
    b.mixHash,
    ZERO_NONCE,
    b.baseFeePerGas,
  ]
}

/** RLP of the header: [parentHash, ommersHash, coinbase, stateRoot, txRoot, receiptRoot, bloom, difficulty, number, gasLimit, gasUsed, time, extra, mixDigest, nonce, baseFee]. */
export function encodeRawHeader(block: EvmBlock): Uint8Array {
  return RLP.encode(headerFields(block))
}

/**
 * RLP of [header, transactions, uncles]: a typed transaction is its `type ‖ payload` bytes as an RLP
 * string, a legacy one its RLP list (EIP-2718).
 */
export function encodeRawBlock(block: EvmBlock, rawTxs: readonly Uint8Array[]): Uint8Array {
  const txs = rawTxs.map((raw) => (rawTxType(raw) === 0 ? (RLP.decode(raw) as Nested) : raw))
  return RLP.encode([headerFields(block), txs, []])
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
