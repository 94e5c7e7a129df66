/**
 * The global limit on traces running at once (`[json-rpc] tracer-concurrency`, default 2): a trace
 * re-executes a whole block or transaction, so an unbounded number of them would starve block
 * production and other RPC of the CPU. Traces past the limit wait in arrival order (FIFO).
 */

/** Default of `[json-rpc] tracer-concurrency`. */
export const DEFAULT_TRACER_CONCURRENCY = 2

export class TraceLimiter {
  private running = 0
  private readonly waiting: (() => void)[] = []

  /** `concurrency` ≥ 1 traces run at once. */
  constructor(readonly concurrency: number = DEFAULT_TRACER_CONCURRENCY) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`tracer concurrency must be an integer ≥ 1, got ${concurrency}`)
  }

  /** Traces running now. */
  get active(): number {
    return this.running
  }

  /** Traces waiting for a slot. */
  get queued(): number {
    return this.waiting.length
  }

  /** Runs `trace` once a slot is free; the slot passes to the longest-waiting trace when it ends. */
  async run<T>(trace: () => Promise<T>): Promise<T> {
    if (this.running < this.concurrency) this.running++
    else await new Promise<void>((resolve) => this.waiting.push(resolve))
    try {
      return await trace()
    } finally {
      const next = this.waiting.shift()
      if (next) next()
      else this.running--
    }
  }
}
