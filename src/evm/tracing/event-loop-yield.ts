/**
 * Keeps the node responsive while a trace re-executes: the EVM awaits its listeners and state reads,
 * but once the state is cached those promises settle as microtasks, and a long trace would hold the
 * event loop (consensus timers, sockets) until it ends. Every few milliseconds of execution the
 * adapter's listeners and jump probes hand the loop over with `setImmediate`: a trace never holds up
 * consensus.
 */

/** Longest stretch of re-execution between two turns of the event loop (ms). */
export const YIELD_EVERY_MS = 8
/** Calls between two clock reads (a power of 2). */
const CLOCK_EVERY_CALLS = 256

export class EventLoopYield {
  private last = performance.now()
  private calls = 0

  /** A promise settling after other work ran, when YIELD_EVERY_MS passed since the last one; else undefined. */
  poll(): Promise<void> | undefined {
    if ((++this.calls & (CLOCK_EVERY_CALLS - 1)) !== 0) return undefined
    if (performance.now() - this.last < YIELD_EVERY_MS) return undefined
    return new Promise((resolve) =>
      setImmediate(() => {
        this.last = performance.now()
        resolve()
      }),
    )
  }
}
