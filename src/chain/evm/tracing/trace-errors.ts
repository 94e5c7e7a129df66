/**
 * Errors of debug_trace* in geth's words (eth/tracers/api.go). They are NodeErrors with the default
 * -32000 code: geth returns them as plain errors.
 */
import { NodeError } from '../../../utils/errors.js'

/** The trace ran past its `timeout` (geth stops the tracer with `execution timeout`). */
export class TraceTimeoutError extends NodeError {
  constructor() {
    super('execution timeout')
  }
}

/** A tracer name that is neither built in nor a JavaScript program. */
export class TracerNotFoundError extends NodeError {
  constructor() {
    super('tracer not found')
  }
}

/** geth `errTxNotFound`. */
export class TraceTxNotFoundError extends NodeError {
  constructor() {
    super('transaction not found')
  }
}

/** Block 0 has no parent state to replay from (geth `traceBlock`). */
export class GenesisNotTraceableError extends NodeError {
  constructor() {
    super('genesis is not traceable')
  }
}

/** The transaction could not be applied at all (geth wraps ApplyTransaction's error: `tracing failed: …`). */
export class TracingFailedError extends NodeError {
  constructor(reason: string) {
    super(`tracing failed: ${reason}`)
  }
}
