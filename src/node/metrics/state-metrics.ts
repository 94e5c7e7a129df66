/**
 * How long the application takes to answer the engine: CometBFT's `state_block_processing_time`
 * (FinalizeBlock, in milliseconds) and `abci_connection_method_timing_seconds{method,type}` (every
 * ABCI call the engine makes), and geth's `chain_execution` (FinalizeBlock executes the block) and
 * `chain_write` (Commit writes it) timers. The engine is handed the application wrapped by {@link timeApplication};
 * the wrapper exists only when metrics are on.
 */
import { linearBuckets, type Registry } from 'prom-client'
import type { Application } from '../../abci/application.js'
import { exponentialBucketsRange, type CometSeries } from './comet-series.js'
import { gethTimer } from './geth-timer.js'

/** The ABCI calls timed, by their name on the wire (`finalize_block`). */
const ABCI_METHODS: Readonly<Record<string, string>> = {
  info: 'info',
  initChain: 'init_chain',
  checkTx: 'check_tx',
  prepareProposal: 'prepare_proposal',
  processProposal: 'process_proposal',
  finalizeBlock: 'finalize_block',
  commit: 'commit',
  query: 'query',
}

/** Records the durations of the ABCI calls of an application wrapped by {@link timeApplication}. */
export type AbciTimer = (method: keyof Application, seconds: number) => void

export function createStateMetrics(series: CometSeries, geth: Registry): AbciTimer {
  const blockProcessing = series.histogram(
    'state',
    'block_processing_time',
    'Time spent processing FinalizeBlock (ms).',
    // CometBFT's `buckettype=lin bucketsizes=1,10,10`.
    linearBuckets(1, 10, 10),
  )
  const methodTiming = series.labelledHistogram(
    'abci_connection',
    'method_timing_seconds',
    'Timing for each ABCI method.',
    ['method', 'type'],
    // CometBFT's `buckettype=exprange bucketsizes=.0001,.004,5`.
    exponentialBucketsRange(0.0001, 0.004, 5),
  )
  const execution = gethTimer(geth, 'chain_execution', 'Time to execute a block (FinalizeBlock), in nanoseconds.')
  const write = gethTimer(geth, 'chain_write', 'Time to write a block (Commit), in nanoseconds.')
  return (method, seconds) => {
    if (method === 'finalizeBlock') {
      blockProcessing.observe(seconds * 1000)
      execution.observeSeconds(seconds)
    } else if (method === 'commit') write.observeSeconds(seconds)
    methodTiming.observe({ chain_id: series.chainId, method: ABCI_METHODS[method] ?? method, type: 'sync' }, seconds)
  }
}

/** `app` with each ABCI call timed; every other property is the application's own. */
export function timeApplication<A extends Application>(app: A, timer: AbciTimer): A {
  const timed = new Map<string, unknown>()
  return new Proxy(app, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target)
      if (typeof key !== 'string' || !(key in ABCI_METHODS) || typeof value !== 'function') return value
      let wrapper = timed.get(key)
      if (wrapper === undefined) {
        const method = key as keyof Application
        wrapper = async (...args: unknown[]) => {
          const start = performance.now()
          try {
            return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)
          } finally {
            timer(method, (performance.now() - start) / 1000)
          }
        }
        timed.set(key, wrapper)
      }
      return wrapper
    },
  })
}
