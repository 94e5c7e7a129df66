/**
 * One pending timeout at a time (CometBFT `consensus/ticker.go`): a new request for an older
 * (height, round, step) than the current one is ignored; a newer one replaces the running timer. A fired
 * timeout is handed to the state machine's queue, which checks it against its round state.
 */
import type { RoundStep } from './round-step.js'

export interface TimeoutInfo {
  durationMs: number
  height: number
  round: number
  step: RoundStep
}

export class TimeoutTicker {
  private current: TimeoutInfo | undefined
  private timer: NodeJS.Timeout | undefined
  private stopped = false

  constructor(private readonly onTimeout: (ti: TimeoutInfo) => void) {}

  schedule(ti: TimeoutInfo): void {
    if (this.stopped) return
    const cur = this.current
    if (cur) {
      if (ti.height < cur.height) return
      if (ti.height === cur.height) {
        if (ti.round < cur.round) return
        if (ti.round === cur.round && ti.step <= cur.step) return
      }
    }
    if (this.timer) clearTimeout(this.timer)
    this.current = ti
    this.timer = setTimeout(
      () => {
        this.timer = undefined
        if (!this.stopped) this.onTimeout(ti)
      },
      Math.max(0, ti.durationMs),
    )
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
  }
}
