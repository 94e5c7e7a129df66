/**
 * Keeps the node responsive while long work runs on the main thread: the EVM awaits its listeners and
 * state reads, but once the state is cached those promises settle as microtasks, and a long trace or a
 * full block would hold the event loop (consensus timers, sockets, admissions) until it ends; so would
 * staging and writing a large block's records, which are loops of synchronous steps. Every few
 * milliseconds such work hands the loop over with `setImmediate`: a trace's listeners and jump probes,
 * a block between two transactions, the index entries of a block between two of its transactions, a
 * write batch between two of its operations.
 */

/** A promise settling in the next turn of the event loop, after the I/O and timers waiting now. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/** Longest stretch of re-execution between two turns of the event loop (ms). */
export const YIELD_EVERY_MS = 8
export class EventLoopYield {
  private last = performance.now()
  private calls = 0

  /** `clockEveryCalls`: calls of `poll` between two clock reads (a power of 2). */
  constructor(private readonly clockEveryCalls = 256) {}

  /** A promise settling after other work ran: between two phases of long work, whatever the time since the last turn. */
  next(): Promise<void> {
    return new Promise((resolve) =>
      setImmediate(() => {
        this.last = performance.now()
        resolve()
      }),
    )
  }

  /** A promise settling after other work ran, when YIELD_EVERY_MS passed since the last one; else undefined. */
  poll(): Promise<void> | undefined {
    if ((++this.calls & (this.clockEveryCalls - 1)) !== 0) return undefined
    if (performance.now() - this.last < YIELD_EVERY_MS) return undefined
    return this.next()
  }
}
