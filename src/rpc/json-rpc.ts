/**
 * JSON-RPC 2.0 wire types and the EVM-side error codes (docs/decisions.md; the numbers are geth's
 * `rpc/errors.go`).
 */

/** The protocol version string of every response. */
export const JSONRPC_VERSION = '2.0'

/** The `error` member of a failure response. */
export interface JsonRpcErrorObject {
  code: number
  message: string
  data?: unknown
}

/** JSON-RPC error codes used on the EVM surface. */
export const RpcErrorCode = {
  /** Invalid JSON. */
  parseError: -32700,
  /** Not a request object, or an empty batch / batch too large. */
  invalidRequest: -32600,
  /** Unknown method, or a method of a namespace that is not enabled. */
  methodNotFound: -32601,
  /** `invalid argument N: ...`, `missing value for required argument N`, `too many arguments...`. */
  invalidParams: -32602,
  /** An unexpected exception in a handler (the detail is logged, never sent). */
  internal: -32603,
  /** Any other server error (geth's default for a returned Go error). */
  server: -32000,
  /** Private namespace without a valid JWT. */
  unauthorized: -32001,
  /** Batch response grew beyond `batch-response-max-size` (geth `errcodeResponseTooLarge`). */
  responseTooLarge: -32003,
  /** EVM execution reverted with data (geth `revertError`). */
  executionReverted: 3,
  /** A request past a fixed limit of the method (geth `errCodeClientLimitExceeded`). */
  clientLimitExceeded: -38026,
} as const
