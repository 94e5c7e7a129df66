/** Closed-loop load: `concurrency` workers call `fn` until the deadline; latency percentiles in ms. */
export interface LoadResult {
  requests: number
  errors: number
  seconds: number
  reqPerSec: number
  p50Ms: number
  p99Ms: number
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
  return { requests: latencies.length, errors, seconds: round(seconds), reqPerSec: Math.round(latencies.length / seconds), ...percentiles(latencies) }
}

export function percentiles(values: number[]): { p50Ms: number; p99Ms: number } {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (q: number): number => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0)
  return { p50Ms: at(0.5), p99Ms: at(0.99) }
}

export function round(x: number, digits = 3): number {
  const f = 10 ** digits
  return Math.round(x * f) / f
}
