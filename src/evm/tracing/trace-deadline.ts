/**
 * The wall-clock limit of one traced transaction (geth TraceConfig `timeout`, default 5 s): geth arms a
 * timer when the traced transaction starts and stops the tracer with `execution timeout`. Here the
 * adapter checks the clock from its listeners and opcode probes and throws, which unwinds the EVM; the
 * state copy is then discarded (the throw leaves its checkpoints unbalanced).
 */
import { TraceTimeoutError } from './trace-errors.js'

/** geth `defaultTraceTimeout`. */
export const DEFAULT_TRACE_TIMEOUT_MS = 5_000

/** Checks made between two clock reads from hot paths (a power of 2). */
const CLOCK_EVERY_CHECKS = 16

export class TraceDeadline {
  private readonly at: number
  private checks = 0

  /** `timeoutMs` ≤ 0 expires at once, as geth's context.WithTimeout(0). */
  constructor(readonly timeoutMs: number) {
    this.at = performance.now() + timeoutMs
  }

  get expired(): boolean {
    return performance.now() >= this.at
  }

  /** Throws TraceTimeoutError once the deadline passed. */
  check(): void {
    if (this.expired) throw new TraceTimeoutError()
  }

  /** `check()` on every CLOCK_EVERY_CHECKS-th call (jumps, steps): the clock read stays off the hot path. */
  tick(): void {
    if ((++this.checks & (CLOCK_EVERY_CHECKS - 1)) === 0) this.check()
  }
}
