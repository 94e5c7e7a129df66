/**
 * What the pool keeps per sender: the cached state (nonce, balance) of the latest committed block and
 * the sender's transactions, split as geth splits them: `pending` is the executable run of nonces
 * starting at the state nonce, `queued` holds the rest (nonces after a gap).
 */
import type { DecodedTx } from '../evm/txs/tx.js'

/** A transaction as held by the pool, with the values computed once at admission. */
export interface PooledTx {
  readonly tx: DecodedTx
  /** gasLimit × maxFeePerGas + value, in wei. */
  readonly cost: bigint
  /** Pool slots taken (one per started 32 KB). */
  readonly slots: number
  /** Arrival order; breaks ties between equal prices (first seen first, as geth's miner). */
  readonly seq: number
}

export class SenderAccount {
  /** Executable transactions: `pending[i].tx.nonce === nonce + i`. */
  pending: PooledTx[] = []
  /** Transactions behind a nonce gap, by nonce. */
  readonly queued = new Map<bigint, PooledTx>()
  /** Sum of the costs of `pending` (geth `list.totalcost`), for the overdraft check. */
  pendingCost = 0n
  /** Logical time of the last promotion or of the first queued tx; the oldest queues are truncated first. */
  beat = 0

  constructor(
    /** Lower-case 0x address. */
    readonly address: string,
    /** Account nonce in the latest committed state. */
    public nonce: bigint,
    /** Balance in wei in the latest committed state. */
    public balance: bigint,
  ) {}

  /** The nonce after the executable run: what `eth_getTransactionCount(…, 'pending')` returns. */
  nextNonce(): bigint {
    return this.nonce + BigInt(this.pending.length)
  }

  /** The pending transaction with `nonce`, if any. */
  getPending(nonce: bigint): PooledTx | undefined {
    const i = nonce - this.nonce
    return i >= 0n && i < BigInt(this.pending.length) ? this.pending[Number(i)] : undefined
  }

  /** Index of `p` in `pending`, or -1. */
  pendingIndexOf(p: PooledTx): number {
    const i = Number(p.tx.nonce - this.nonce)
    return i >= 0 && i < this.pending.length && this.pending[i] === p ? i : -1
  }

  /** Queued transactions in nonce order. */
  sortedQueued(): PooledTx[] {
    return [...this.queued.values()].sort((a, b) => (a.tx.nonce < b.tx.nonce ? -1 : a.tx.nonce > b.tx.nonce ? 1 : 0))
  }

  /** Highest queued nonce, or undefined when nothing is queued. */
  maxQueuedNonce(): bigint | undefined {
    let max: bigint | undefined
    for (const nonce of this.queued.keys()) if (max === undefined || nonce > max) max = nonce
    return max
  }

  get txCount(): number {
    return this.pending.length + this.queued.size
  }
}
