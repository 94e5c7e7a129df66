/**
 * Errors of debug_trace* in geth's words (eth/tracers/api.go). geth returns them as plain errors
 * (-32000 with the text, api/evm-errors.ts).
 */
import { NodeError } from '../../utils/errors.js'

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

/** The tracer itself failed (a JavaScript tracer threw); the message is the tracer's. */
export class TracerError extends NodeError {}

/**
 * The answer grew past `[json-rpc] trace-response-max-size` (trace-budget.ts). Rendered as geth's
 * -32003 `response too large` (rpc/errors.go errcodeResponseTooLarge, its batch-size error), with the
 * setting named so an operator knows what to raise and a caller what to narrow.
 */
export class TraceTooLargeError extends NodeError {
  constructor(readonly maxBytes: number) {
    super(
      `response too large: the trace exceeds ${maxBytes} bytes ([json-rpc] trace-response-max-size, ` +
        '--json-rpc.trace-response-max-size); trace fewer steps (limit, disableStack, disableStorage) or raise the setting',
    )
  }
}
