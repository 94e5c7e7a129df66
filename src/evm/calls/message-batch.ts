/**
 * Messages to another thread, sent in batches. A `postMessage` that finds the other thread asleep wakes
 * it, and the sender pays for the wake-up: under the benchmark's `call` workload the worker spent 28 µs
 * of its 200 µs a call in `postMessage` of the answer, the main thread being mostly idle. Values pushed
 * together go out in one message, in order, once `max` are waiting or at the batch's flush point:
 * - `turn`: once the current turn of the event loop has run its I/O callbacks (`setImmediate`), for a
 *   thread whose turns are short (a call worker, which also flushes when a call runs long);
 * - `microtask`: once the current callback's microtasks have run, for the main thread, whose turn may go
 *   on with a block's execution that a worker's call must not wait for.
 */

/** What a batch is posted to (a worker, a worker's parent port). */
export interface BatchTarget<T> {
  postMessage(batch: T[]): void
}

export type FlushPoint = 'turn' | 'microtask'

export class MessageBatch<T> {
  private queued: T[] = []
  private scheduled = false
  private immediate: NodeJS.Immediate | undefined

  constructor(
    private readonly target: BatchTarget<T>,
    private readonly max: number,
    private readonly flushPoint: FlushPoint,
  ) {}

  /** Queues `value`; it is posted at the flush point, or now if `max` are waiting. */
  push(value: T): void {
    this.queued.push(value)
    if (this.queued.length >= this.max) return this.flush()
    if (this.scheduled) return
    this.scheduled = true
    if (this.flushPoint === 'turn') this.immediate = setImmediate(this.flush)
    else queueMicrotask(this.flush)
  }

  /** Posts what is queued. */
  readonly flush = (): void => {
    this.cancel()
    if (this.queued.length === 0) return
    const batch = this.queued
    this.queued = []
    this.target.postMessage(batch)
  }

  /** Forgets what is queued (the receiver is gone). */
  clear(): void {
    this.cancel()
    this.queued = []
  }

  private cancel(): void {
    if (this.immediate !== undefined) clearImmediate(this.immediate)
    this.immediate = undefined
    // A microtask already queued finds nothing to post, or what was pushed since: never later than asked.
    this.scheduled = false
  }
}
