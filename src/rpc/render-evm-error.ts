/**
 * The renderer of errors for the EVM JSON-RPC surface (geth `rpc/handler.go`): a protocol error
 * (`RpcError`) keeps its code, message and data; any other error goes to the renderer of the API the
 * dispatcher serves (api/evm-errors.ts: the transport is given it and knows none of the API's errors);
 * what neither knows is an unexpected exception and becomes -32603 `internal error` without leaking
 * its text or stack.
 */
import type { Logger } from '../utils/logger.js'
import { RpcErrorCode, type JsonRpcErrorObject } from './json-rpc.js'
import { RpcError } from './rpc-errors.js'

/** Maps an error the API knows to its JSON-RPC error object; undefined for an error it does not know. */
export type ApiErrorRenderer = (err: unknown) => JsonRpcErrorObject | undefined

/** The renderer of a dispatcher whose API has no errors of its own (every non-protocol error is internal). */
export const NO_API_ERRORS: ApiErrorRenderer = () => undefined

const INTERNAL_ERROR: JsonRpcErrorObject = Object.freeze({ code: RpcErrorCode.internal, message: 'internal error' })

/**
 * Maps a thrown value to the JSON-RPC error object. `method` and `log` only serve to log unexpected
 * exceptions (with their stack) on the server side.
 */
export function renderEvmError(
  err: unknown,
  renderApiError: ApiErrorRenderer,
  method: string | undefined,
  log: Logger,
): JsonRpcErrorObject {
  if (err instanceof RpcError) {
    const out: JsonRpcErrorObject = { code: err.code, message: err.message }
    if (err.data !== undefined) out.data = err.data
    return out
  }
  const known = renderApiError(err)
  if (known !== undefined) return known
  log.error('rpc handler failed', { method, error: err instanceof Error ? (err.stack ?? err.message) : String(err) })
  return INTERNAL_ERROR
}
