/**
 * What the pool reports as it works, for the node's metrics (CometBFT's mempool counters, geth's
 * txpool meters). The pool calls it only when one is given: nothing is counted otherwise.
 */
import type { TxPoolRejection } from './tx-pool-error.js'

export interface TxPoolMetrics {
  /** A transaction entered the pool (a replacement included); `size` is its encoded length in bytes. */
  added(size: number): void
  /** A transaction was refused, for `reason`. */
  refused(reason: TxPoolRejection): void
  /** `count` pooled transactions were dropped to make room for others or to keep within the limits. */
  evicted(count: number): void
  /** `count` pooled transactions were checked again against a new block's state. */
  rechecked(count: number): void
}
