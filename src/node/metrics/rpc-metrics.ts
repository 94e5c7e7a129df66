/**
 * geth's `rpc/*` series of the EVM JSON-RPC (HTTP and WebSocket): requests, successes and failures, and
 * their durations as summaries, one over every method (`rpc_duration_all`) and one per method and
 * outcome (`rpc_duration_eth_call_success`). Durations are in nanoseconds and the quantiles geth
 * exports, so geth's dashboards read them unchanged.
 */
import { Counter, Summary, type Registry } from 'prom-client'
import type { MethodCallObserver } from '../../rpc/timed-methods.js'

/** geth's timer quantiles (`metrics/prometheus` collector). */
const QUANTILES = [0.5, 0.75, 0.95, 0.99, 0.999, 0.9999]
/**
 * The window the quantiles cover (s): about what geth's exponentially decaying samples weigh (their
 * alpha, 0.015, halves a sample's weight in under a minute and leaves little after five).
 */
const WINDOW_SECONDS = 300
/** Sub-windows the window slides by (prom-client `ageBuckets`): one a minute. */
const WINDOW_STEPS = 5

/** Registers the series; the observer is handed to the EVM JSON-RPC's tables. */
export function createRpcMetrics(geth: Registry): MethodCallObserver {
  const counter = (name: string, help: string) => new Counter({ name, help, registers: [geth] })
  const summary = (name: string, help: string) =>
    new Summary({ name, help, percentiles: QUANTILES, maxAgeSeconds: WINDOW_SECONDS, ageBuckets: WINDOW_STEPS, registers: [geth] })
  const requests = counter('rpc_requests', 'EVM JSON-RPC calls answered.')
  const success = counter('rpc_success', 'EVM JSON-RPC calls answered with a result.')
  const failure = counter('rpc_failure', 'EVM JSON-RPC calls answered with an error.')
  const all = summary('rpc_duration_all', 'Time to answer an EVM JSON-RPC call, in nanoseconds.')
  const perMethod = new Map<string, Summary>()
  return {
    observe(method, ok, seconds) {
      const ns = seconds * 1e9
      requests.inc()
      ;(ok ? success : failure).inc()
      all.observe(ns)
      // Method names come from the method tables (the call decoded against one), so the series are bounded.
      const name = `rpc_duration_${method}_${ok ? 'success' : 'failure'}`
      let timer = perMethod.get(name)
      if (timer === undefined) {
        timer = summary(name, `Time to answer ${method} ${ok ? 'with a result' : 'with an error'}, in nanoseconds.`)
        perMethod.set(name, timer)
      }
      timer.observe(ns)
    },
  }
}
