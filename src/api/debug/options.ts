/** Options of the debug namespace (STYLE.md rule 2). */
import { DEFAULT_TRACER_CONCURRENCY } from './trace-limiter.js'

export interface DebugApiOptions {
  /** Traces running at once; more wait in a FIFO queue (`[json-rpc] tracer-concurrency`, default 2). */
  tracerConcurrency: number
}

export const defaultDebugApiOptions: DebugApiOptions = { tracerConcurrency: DEFAULT_TRACER_CONCURRENCY }
