/**
 * The one renderer of errors for the EVM JSON-RPC surface (STYLE.md rule 5): typed errors keep their
 * code, message and data (geth puts the detail in `message`); anything else is an unexpected
 * exception and becomes -32603 `internal error` without leaking its text or stack.
 */
import { NodeError } from '../utils/errors.js'
import type { Logger } from '../utils/logger.js'
import { RpcErrorCode, type JsonRpcErrorObject } from './json-rpc.js'

const INTERNAL_ERROR: JsonRpcErrorObject = Object.freeze({ code: RpcErrorCode.internal, message: 'internal error' })

/**
 * Maps a thrown value to the JSON-RPC error object. `method` and `log` only serve to log unexpected
 * exceptions (with their stack) on the server side.
 */
export function renderEvmError(err: unknown, method: string | undefined, log: Logger): JsonRpcErrorObject {
  if (err instanceof NodeError && Number.isInteger(err.code)) {
    const out: JsonRpcErrorObject = { code: err.code, message: err.message }
    if (err.data !== undefined) out.data = err.data
    return out
  }
  log.error('rpc handler failed', { method, error: err instanceof Error ? err.stack ?? err.message : String(err) })
  return INTERNAL_ERROR
}
