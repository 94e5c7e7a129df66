/**
 * Block production figures of `--testnet`, from the times at which one node's newHeads notifications
 * arrived (HeadSubscriber): block timestamps are whole seconds, too coarse for sub-second blocks.
 */
import { mean, round, summarize, type LatencySummary } from './stats.js'

/** {@link summarize} plus the mean, in ms. */
export interface BlockTimeSummary extends LatencySummary {
  meanMs: number
}

/** A sampled transaction: when it was sent (performance.now(), ms) and the block that holds it. */
export interface SentTx {
  sentAt: number
  block: number
}

/**
 * The ms between the arrivals of heads n − 1 and n, for each n in (`after`, `upTo`]; a pair with a head
 * that never arrived is skipped rather than bridged, so a lost notification cannot pass for a slow block.
 */
export function blockIntervals(arrivals: ReadonlyMap<number, number>, after: number, upTo: number): number[] {
  const out: number[] = []
  for (let n = after + 1; n <= upTo; n++) {
    const [previous, current] = [arrivals.get(n - 1), arrivals.get(n)]
    if (previous !== undefined && current !== undefined) out.push(current - previous)
  }
  return out
}

/** Count, mean, nearest-rank percentiles and maximum of block intervals; all 0 for none. */
export function summarizeBlockTimes(intervals: readonly number[]): BlockTimeSummary {
  return { ...summarize(intervals), meanMs: round(mean(intervals)) }
}

/**
 * tx → finality: for each sample, the arrival of its block's head minus its send time. `missing` counts
 * the samples whose head never arrived (they have no latency).
 */
export function finalityLatencies(
  samples: readonly SentTx[],
  arrivals: ReadonlyMap<number, number>,
): { latencies: number[]; missing: number } {
  const latencies: number[] = []
  let missing = 0
  for (const { sentAt, block } of samples) {
    const at = arrivals.get(block)
    if (at === undefined) missing++
    else latencies.push(at - sentAt)
  }
  return { latencies, missing }
}
