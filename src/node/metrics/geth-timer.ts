/**
 * geth's timers as Prometheus summaries: values in nanoseconds and the quantiles geth's exporter
 * writes (`metrics/prometheus`), so geth's dashboards read them unchanged.
 */
import { Summary, type Registry } from 'prom-client'

/** geth's timer quantiles. */
const QUANTILES = [0.5, 0.75, 0.95, 0.99, 0.999, 0.9999]
/**
 * The window the quantiles cover (s): about what geth's exponentially decaying samples weigh (their
 * alpha, 0.015, halves a sample's weight in under a minute and leaves little after five).
 */
const WINDOW_SECONDS = 300
/** Sub-windows the window slides by (prom-client `ageBuckets`): one a minute. */
const WINDOW_STEPS = 5

/** A summary named as geth names the timer; observe durations in seconds. */
export function gethTimer(geth: Registry, name: string, help: string): { observeSeconds(seconds: number): void } {
  const summary = new Summary({
    name,
    help,
    percentiles: QUANTILES,
    maxAgeSeconds: WINDOW_SECONDS,
    ageBuckets: WINDOW_STEPS,
    registers: [geth],
  })
  return { observeSeconds: (seconds) => summary.observe(seconds * 1e9) }
}
