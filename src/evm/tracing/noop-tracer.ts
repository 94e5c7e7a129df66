/** geth's `noopTracer` (eth/tracers/native/noop.go): runs with every hook and returns `{}`; for timing the tracing overhead. */
import type { Tracer, TracerFactory } from './hooks.js'

export const createNoopTracer: TracerFactory = (): Tracer => ({
  onTxStart() {},
  onEnter() {},
  onExit() {},
  onOpcode() {},
  onFault() {},
  onLog() {},
  onTxEnd() {},
  result: () => ({}),
})
