/**
 * geth's `rpc/*` series of the EVM JSON-RPC (HTTP and WebSocket): requests, successes and failures, and
 * their durations as geth timers, one over every method (`rpc_duration_all`) and one per method and
 * outcome (`rpc_duration_eth_call_success`).
 */
import { Counter, type Registry } from 'prom-client'
import type { MethodCallObserver } from '../../rpc/timed-methods.js'
import { gethTimer } from './geth-timer.js'

type Timer = ReturnType<typeof gethTimer>

/** Registers the series; the observer is handed to the EVM JSON-RPC's tables. */
export function createRpcMetrics(geth: Registry): MethodCallObserver {
  const counter = (name: string, help: string) => new Counter({ name, help, registers: [geth] })
  const requests = counter('rpc_requests', 'EVM JSON-RPC calls answered.')
  const success = counter('rpc_success', 'EVM JSON-RPC calls answered with a result.')
  const failure = counter('rpc_failure', 'EVM JSON-RPC calls answered with an error.')
  const all = gethTimer(geth, 'rpc_duration_all', 'Time to answer an EVM JSON-RPC call, in nanoseconds.')
  const perMethod = new Map<string, Timer>()
  return {
    observe(method, ok, seconds) {
      requests.inc()
      ;(ok ? success : failure).inc()
      all.observeSeconds(seconds)
      // Method names come from the method tables (the call decoded against one), so the series are bounded.
      const name = `rpc_duration_${method}_${ok ? 'success' : 'failure'}`
      let timer = perMethod.get(name)
      if (timer === undefined) {
        timer = gethTimer(geth, name, `Time to answer ${method} ${ok ? 'with a result' : 'with an error'}, in nanoseconds.`)
        perMethod.set(name, timer)
      }
      timer.observeSeconds(seconds)
    },
  }
}
