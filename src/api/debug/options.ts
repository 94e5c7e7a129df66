/** Options of the debug namespace, owned here with their defaults. */
import { DEFAULT_TRACER_CONCURRENCY } from './trace-limiter.js'

/**
 * Default of `[json-rpc] trace-response-max-size`: 25,000,000 bytes, geth's cap on a batch response
 * (`--rpc.batch-response-max-size`, nodectl's `batch-response-max-size`), so one trace may be as large
 * as a whole batch answer may, and an answer held twice while it is sent stays near 50 MB.
 */
export const DEFAULT_TRACE_RESPONSE_MAX_SIZE = 25_000_000

export interface DebugApiOptions {
  /** Traces running at once; more wait in a FIFO queue (`[json-rpc] tracer-concurrency`, default 2). */
  tracerConcurrency: number
  /**
   * Most bytes of JSON in one debug_trace* answer (`[json-rpc] trace-response-max-size`, default
   * 25,000,000); a trace that grows past it stops and fails with -32003. 0 = no cap.
   */
  traceResponseMaxSize: number
}

export const defaultDebugApiOptions: DebugApiOptions = {
  tracerConcurrency: DEFAULT_TRACER_CONCURRENCY,
  traceResponseMaxSize: DEFAULT_TRACE_RESPONSE_MAX_SIZE,
}
