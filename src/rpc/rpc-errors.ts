/**
 * Errors of the JSON-RPC protocol itself, which carry their wire code: geth's exact wording
 * (`rpc/errors.go`, `handler.go`). Errors of the node's domains have no code; the API maps them.
 */
import { RpcErrorCode } from './json-rpc.js'

/** An error that is already a JSON-RPC error object: `code`, `message` and optional `data` go on the wire as they are. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message)
    this.name = 'RpcError'
  }
}

/** -32602 with the given reason (already in `invalid argument N: ...` form when it concerns one argument). */
export function invalidParamsError(message: string): RpcError {
  return new RpcError(RpcErrorCode.invalidParams, message)
}

/** -32601 for an unknown method or one whose namespace is not enabled: both read the same. */
export function methodNotFoundError(method: string): RpcError {
  return new RpcError(RpcErrorCode.methodNotFound, `the method ${method} does not exist/is not available`)
}

/** -32000 for eth_subscribe / eth_unsubscribe on a transport without notifications (HTTP). */
export function notificationsUnsupportedError(): RpcError {
  return new RpcError(RpcErrorCode.server, 'notifications not supported')
}

/** -32001 `unauthorized`: a private-namespace method without a valid JWT (docs/decisions.md). */
export function unauthorizedError(): RpcError {
  return new RpcError(RpcErrorCode.unauthorized, 'unauthorized')
}
