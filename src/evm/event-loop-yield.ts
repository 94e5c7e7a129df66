/**
 * Keeps the node responsive while the EVM runs long: the EVM awaits its listeners and state reads,
 * but once the state is cached those promises settle as microtasks, and a long trace or a full block
 * would hold the event loop (consensus timers, sockets, admissions) until it ends. Every few
 * milliseconds of execution the work hands the loop over with `setImmediate`: a trace's listeners and
 * jump probes, and a block between two transactions.
 */

/** Longest stretch of re-execution between two turns of the event loop (ms). */
export const YIELD_EVERY_MS = 8
export class EventLoopYield {
  private last = performance.now()
  private calls = 0

  /** `clockEveryCalls`: calls of `poll` between two clock reads (a power of 2). */
  constructor(private readonly clockEveryCalls = 256) {}

  /** A promise settling after other work ran, when YIELD_EVERY_MS passed since the last one; else undefined. */
  poll(): Promise<void> | undefined {
    if ((++this.calls & (this.clockEveryCalls - 1)) !== 0) return undefined
    if (performance.now() - this.last < YIELD_EVERY_MS) return undefined
    return new Promise((resolve) =>
      setImmediate(() => {
        this.last = performance.now()
        resolve()
      }),
    )
  }
}
