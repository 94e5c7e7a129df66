/** Constructors of the framework-level errors, with geth's exact wording (`rpc/errors.go`, `handler.go`). */
import { NodeError } from '../utils/errors.js'
import { RpcErrorCode } from './json-rpc.js'

/** -32602 with the given reason (already in `invalid argument N: ...` form when it concerns one argument). */
export function invalidParamsError(message: string): NodeError {
  return new NodeError(message, RpcErrorCode.invalidParams)
}

/** -32601 for an unknown method or one whose namespace is not enabled: both read the same. */
export function methodNotFoundError(method: string): NodeError {
  return new NodeError(`the method ${method} does not exist/is not available`, RpcErrorCode.methodNotFound)
}

/** -32600 `invalid request` (not a request object). */
export function invalidRequestError(message = 'invalid request'): NodeError {
  return new NodeError(message, RpcErrorCode.invalidRequest)
}

/** -32000 for eth_subscribe / eth_unsubscribe on a transport without notifications (HTTP). */
export function notificationsUnsupportedError(): NodeError {
  return new NodeError('notifications not supported', RpcErrorCode.server)
}

/** -32001 `unauthorized`: a private-namespace method without a valid JWT (shared/spec/decisions.md). */
export function unauthorizedError(): NodeError {
  return new NodeError('unauthorized', RpcErrorCode.unauthorized)
}
