/**
 * The byte budget of one debug_trace* answer (`[json-rpc] trace-response-max-size`, config/settings.ts):
 * every byte of JSON a trace produces is counted as it is written, by the struct logger while the
 * transaction runs (json-bytes.ts) and by the debug API when it renders other tracers' results and
 * the block wrapper, so an answer past the cap fails as soon as it gets there, before it is whole.
 * One budget spans a request: a block trace's transactions share it.
 */
import { TraceTooLargeError } from './trace-errors.js'

export class TraceBudget {
  private used = 0

  /** `maxBytes` 0 = no cap (the answer is still built as bytes, never as objects). */
  constructor(readonly maxBytes: number) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) throw new Error(`trace byte budget must be an integer ≥ 0, got ${maxBytes}`)
  }

  /** Bytes counted so far. */
  get spent(): number {
    return this.used
  }

  /** Counts `bytes` more; throws TraceTooLargeError once the total passes the cap. */
  take(bytes: number): void {
    this.used += bytes
    if (this.maxBytes > 0 && this.used > this.maxBytes) throw new TraceTooLargeError(this.maxBytes)
  }
}
