/**
 * Proposal order, as geth's `TransactionsByPriceAndNonce` (miner/ordering.go): a max-heap holding the
 * lowest-nonce executable transaction of each sender, by effective tip at the next base fee, ties to
 * the one seen first. Taking a sender's head puts its next nonce in its place, so each sender's
 * transactions stay in nonce order. A head whose fee cap is below the base fee drops its sender (its
 * later nonces cannot run before it). Limits are checked as CometBFT's `ReapMaxBytesMaxGas` checks
 * them: the first transaction that does not fit ends the reap.
 */
import { effectiveTip } from '../evm/txs/tx.js'
import { BinaryHeap } from './binary-heap.js'
import type { PooledTx } from './sender-account.js'

interface Head {
  txs: readonly PooledTx[]
  index: number
  tip: bigint
}

/** Limits of a reap; a negative value means no limit. */
export interface ReapLimits {
  /** Bytes of the block's `Data.Txs` protobuf field (each tx adds a tag, a length varint and its bytes). */
  maxBytes: number
  /** Sum of the transactions' gas limits. */
  maxGas: bigint
  /** Number of transactions. */
  maxTxs: number
}

/** Protobuf size of one entry of a repeated bytes field (CometBFT `ComputeProtoSizeForTxs`). */
export function protoSizeOfTx(length: number): number {
  let varint = 1
  for (let n = length; n >= 0x80; n >>>= 7) varint++
  return 1 + varint + length
}

/**
 * How many transactions a reap without limits would take at `baseFee`: each sender's run up to its first
 * transaction whose fee cap is below the base fee (geth's miner stops a sender there: its later nonces
 * cannot run first). What the consensus engine reads as "transactions waiting".
 */
export function countIncludable(senders: Iterable<readonly PooledTx[]>, baseFee: bigint): number {
  let count = 0
  for (const txs of senders) {
    for (const p of txs) {
      if (p.tx.maxFeePerGas < baseFee) break
      count++
    }
  }
  return count
}

/** The raw bytes of executable transactions in proposal order, within `limits`. */
export function reapByPriceAndNonce(senders: Iterable<readonly PooledTx[]>, baseFee: bigint, limits: ReapLimits): Uint8Array[] {
  const heads: Head[] = []
  for (const txs of senders) {
    const head = txs[0]
    if (head === undefined) continue
    const tip = effectiveTip(head.tx, baseFee)
    if (tip !== undefined) heads.push({ txs, index: 0, tip })
  }
  const heap = new BinaryHeap<Head>((a, b) => a.tip > b.tip || (a.tip === b.tip && a.txs[a.index]!.seq < b.txs[b.index]!.seq))
  heap.reset(heads)
  const out: Uint8Array[] = []
  let bytes = 0
  let gas = 0n
  while (heap.size > 0) {
    if (limits.maxTxs >= 0 && out.length >= limits.maxTxs) break
    const head = heap.peek()!
    const p = head.txs[head.index]!
    const size = protoSizeOfTx(p.tx.size)
    if (limits.maxBytes >= 0 && bytes + size > limits.maxBytes) break
    if (limits.maxGas >= 0n && gas + p.tx.gasLimit > limits.maxGas) break
    out.push(p.tx.raw)
    bytes += size
    gas += p.tx.gasLimit
    const next = head.txs[head.index + 1]
    const tip = next === undefined ? undefined : effectiveTip(next.tx, baseFee)
    if (tip === undefined) {
      heap.pop()
    } else {
      head.index++
      head.tip = tip
      heap.replaceTop(head)
    }
  }
  return out
}
