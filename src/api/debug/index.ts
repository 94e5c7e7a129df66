/**
 * The debug namespace over a `DebugBackend`: the tracing methods (debug-trace.ts) under one global trace
 * limit and a byte cap per answer, and the raw-data getters (debug-raw.ts). Served only when `debug` is listed in
 * `--json-rpc.api` (all namespaces under `--dev`).
 */
import type { MethodTable } from '../../rpc/method-table.js'
import type { DebugBackend } from './backend.js'
import { createDebugRawMethods } from './debug-raw.js'
import { createDebugTraceMethods } from './debug-trace.js'
import { defaultDebugApiOptions, type DebugApiOptions } from './options.js'
import { TraceLimiter } from './trace-limiter.js'

export type { CallOverrides, DebugBackend, TracerRequest, TxTraceResult } from './backend.js'
export { DEFAULT_TRACE_RESPONSE_MAX_SIZE, defaultDebugApiOptions, type DebugApiOptions } from './options.js'
export { TraceLimiter } from './trace-limiter.js'

/** The tables of the debug namespace. */
export function createDebugApi(backend: DebugBackend, options: DebugApiOptions = defaultDebugApiOptions): MethodTable[] {
  const limiter = new TraceLimiter(options.tracerConcurrency)
  return [createDebugTraceMethods(backend, limiter, options.traceResponseMaxSize), createDebugRawMethods(backend)]
}
