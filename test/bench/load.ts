/** Closed-loop load: `concurrency` workers call `fn` until the deadline; latency percentiles in ms. */
import { percentiles, round, type Percentiles } from './stats.js'

export interface LoadResult extends Percentiles {
  requests: number
  errors: number
  seconds: number
  reqPerSec: number
}

export async function runLoad(fn: (i: number) => Promise<unknown>, concurrency: number, durationMs: number): Promise<LoadResult> {
  const latencies: number[] = []
  let errors = 0
  let n = 0
  const start = performance.now()
  const deadline = start + durationMs
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const t0 = performance.now()
      try {
        await fn(n++)
      } catch {
        errors++
      }
      latencies.push(performance.now() - t0)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const seconds = (performance.now() - start) / 1000
  return {
    requests: latencies.length,
    errors,
    seconds: round(seconds),
    reqPerSec: Math.round(latencies.length / seconds),
    ...percentiles(latencies),
  }
}
