/** Latency summaries of the benchmark: nearest-rank percentiles in milliseconds, rounded to the µs. */

import type { Startup } from './node-process.js'

/** p50 / p95 / p99 of a sample, in ms. */
export interface Percentiles {
  p50Ms: number
  p95Ms: number
  p99Ms: number
}

/** Percentiles plus the sample size and its maximum. */
export interface LatencySummary extends Percentiles {
  count: number
  maxMs: number
}

/**
 * Nearest-rank percentiles (the value at index ⌊q·n⌋ of the sorted sample, clamped to the last one),
 * so every figure is a latency that was actually observed; 0 for an empty sample.
 */
export function percentiles(values: readonly number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (q: number): number => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0)
  return { p50Ms: at(0.5), p95Ms: at(0.95), p99Ms: at(0.99) }
}

/** {@link percentiles} with the count and the maximum. */
export function summarize(values: readonly number[]): LatencySummary {
  return { count: values.length, ...percentiles(values), maxMs: round(values.reduce((m, v) => Math.max(m, v), 0)) }
}

/** Arithmetic mean; 0 for an empty sample. */
export function mean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0
}

/** `x` rounded to `digits` decimals (default 3: µs for values in ms). */
export function round(x: number, digits = 3): number {
  const f = 10 ** digits
  return Math.round(x * f) / f
}

/** Runs `fn` `count` times in a row and returns each call's latency in ms. */
export async function timeSequential(count: number, fn: (i: number) => Promise<void>): Promise<number[]> {
  const latencies: number[] = []
  for (let i = 0; i < count; i++) {
    const t0 = performance.now()
    await fn(i)
    latencies.push(performance.now() - t0)
  }
  return latencies
}

/** RSS readings of a soak after its warm-up, against their mean. */
export interface RssBand {
  /** Readings counted (those at or after the warm-up). */
  readings: number
  minMb: number
  maxMb: number
  meanMb: number
  /** How far the lowest and highest readings are from the mean, in percent (below: negative). */
  belowPct: number
  abovePct: number
}

/** The band of the readings taken at or after `fromSeconds`; undefined when there is none. */
export function rssBand(readings: readonly { seconds: number; rssMb: number }[], fromSeconds: number): RssBand | undefined {
  const values = readings.filter((r) => r.seconds >= fromSeconds).map((r) => r.rssMb)
  if (values.length === 0) return undefined
  const m = mean(values)
  const minMb = Math.min(...values)
  const maxMb = Math.max(...values)
  return {
    readings: values.length,
    minMb,
    maxMb,
    meanMb: round(m, 1),
    belowPct: round((minMb / m - 1) * 100, 1),
    abovePct: round((maxMb / m - 1) * 100, 1),
  }
}

/** The median of `values` (ms), to 0.1 ms. */
export function medianMs(values: readonly number[]): number {
  return round(percentiles(values).p50Ms, 1)
}

/** The median of each figure over `samples` (one spawn is noisy on a shared machine), and every spawn's time to the eth_call. */
export function startupSummary(samples: readonly Startup[]): Startup & { spawns: number; msToEthCallSamples: number[] } {
  return {
    msToFirstAnswer: medianMs(samples.map((s) => s.msToFirstAnswer)),
    msToEthCall: medianMs(samples.map((s) => s.msToEthCall)),
    spawns: samples.length,
    msToEthCallSamples: samples.map((s) => s.msToEthCall),
  }
}
