/** An `UnlockClock` whose time moves only when a test says so: unlock expiry without sleeping. */
import type { UnlockClock } from '../../src/keystore/unlock-manager.js'

export class FakeClock implements UnlockClock {
  private time = 1_000_000
  private timers: { at: number; fn: () => void; cancelled: boolean }[] = []

  now(): number {
    return this.time
  }

  schedule(ms: number, fn: () => void): () => void {
    const timer = { at: this.time + ms, fn, cancelled: false }
    this.timers.push(timer)
    return () => {
      timer.cancelled = true
    }
  }

  /** Timers not yet fired nor cancelled. */
  get pending(): number {
    return this.timers.filter((t) => !t.cancelled).length
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in time order. */
  advance(ms: number): void {
    const until = this.time + ms
    for (;;) {
      const due = this.timers.filter((t) => !t.cancelled && t.at <= until).sort((a, b) => a.at - b.at)[0]
      if (!due) break
      this.time = due.at
      due.cancelled = true
      due.fn()
    }
    this.time = until
    this.timers = this.timers.filter((t) => !t.cancelled)
  }

  /** Moves time forward without firing timers (a late timer: the read-time deadline check must still hold). */
  skipWithoutTimers(ms: number): void {
    this.time += ms
  }
}
