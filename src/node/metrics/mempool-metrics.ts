/**
 * The pool's series under both names operators chart: CometBFT's `mempool` subsystem
 * (`mempool/metrics.go`) and geth's `txpool/*` meters and gauges (`core/txpool/legacypool`). Sizes are
 * read from the pool at scrape time; admissions, refusals and evictions are counted as the pool reports
 * them (txpool/pool-metrics.ts).
 */
import { Counter, Gauge, exponentialBuckets, type Registry } from 'prom-client'
import { TxPoolRejection, type TxPool, type TxPoolMetrics } from '../../txpool/index.js'
import type { CometSeries } from './comet-series.js'

const SUBSYSTEM = 'mempool'

/** Refusals CometBFT counts as failed: CheckTx said no (our pool's nonce and funds rules are CheckTx's in Cosmos). */
const FAILED: ReadonlySet<TxPoolRejection> = new Set([
  TxPoolRejection.CheckTx,
  TxPoolRejection.FeeCapExceeded,
  TxPoolRejection.Oversized,
  TxPoolRejection.NonceTooLow,
  TxPoolRejection.InsufficientFunds,
])
/** Refusals geth meters as underpriced (`txpool/underpriced`); the rest but "already known" are `txpool/invalid`. */
const UNDERPRICED: ReadonlySet<TxPoolRejection> = new Set([TxPoolRejection.ReplaceUnderpriced, TxPoolRejection.PoolFull])

/** Registers the series; the returned recorder is handed to the pool before it is built. */
export function createMempoolMetrics(series: CometSeries, geth: Registry, pool: () => TxPool | undefined): TxPoolMetrics {
  series.gauge(SUBSYSTEM, 'size', 'Number of uncommitted transactions in the mempool.', () => pool()?.count())
  series.gauge(SUBSYSTEM, 'size_bytes', 'Total size of the mempool in bytes.', () => pool()?.sizeBytes())
  const txSize = series.histogram(
    SUBSYSTEM,
    'tx_size_bytes',
    'Histogram of transaction sizes in bytes.',
    // CometBFT's `buckettype=exp bucketsizes=1,3,7`.
    exponentialBuckets(1, 3, 7),
  )
  const failed = series.counter(SUBSYSTEM, 'failed_txs', 'Number of failed transactions.')
  const rejected = series.counter(SUBSYSTEM, 'rejected_txs', 'Number of rejected transactions.')
  const evictedTxs = series.counter(SUBSYSTEM, 'evicted_txs', 'Number of evicted transactions.')
  const recheck = series.counter(SUBSYSTEM, 'recheck_times', 'Number of times transactions are rechecked in the mempool.')

  const gethGauge = (name: string, help: string, read: (p: TxPool) => number) =>
    new Gauge({
      name,
      help,
      registers: [geth],
      collect(this: Gauge) {
        const p = pool()
        if (p) this.set(read(p))
      },
    })
  gethGauge('txpool_pending', 'Executable transactions in the pool.', (p) => p.status().pending)
  gethGauge('txpool_queued', 'Transactions in the pool behind a nonce gap.', (p) => p.status().queued)
  const gethCounter = (name: string, help: string) => new Counter({ name, help, registers: [geth] })
  const valid = gethCounter('txpool_valid', 'Transactions admitted to the pool.')
  const invalid = gethCounter('txpool_invalid', 'Transactions refused as invalid.')
  const underpriced = gethCounter('txpool_underpriced', 'Transactions refused as underpriced (replacement or full pool).')
  const known = gethCounter('txpool_known', 'Transactions refused as already known.')

  return {
    added(size) {
      txSize.observe(size)
      valid.inc()
    },
    refused(reason) {
      if (reason === TxPoolRejection.AlreadyKnown) known.inc()
      else if (UNDERPRICED.has(reason)) underpriced.inc()
      else invalid.inc()
      if (FAILED.has(reason)) failed.inc()
      else if (reason !== TxPoolRejection.AlreadyKnown) rejected.inc()
    },
    evicted(count) {
      evictedTxs.inc(count)
    },
    rechecked(count) {
      recheck.inc(count)
    },
  }
}
