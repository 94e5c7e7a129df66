/**
 * Errors of the JSON-RPC client: a node that answered with a JSON-RPC error (code + message, as the
 * node sent them), and a node that could not be reached at all (refused, DNS, reset before a reply).
 */

/** The node answered with `{"error": {code, message, data}}`. */
export class JsonRpcClientError extends Error {
  override readonly name = 'JsonRpcClientError'
  constructor(
    /** JSON-RPC error code (-32602 invalid params, 3 execution reverted, ...). */
    readonly code: number,
    /** The node's message, unchanged. */
    readonly rpcMessage: string,
    /** The optional `data` member (revert data, CometBFT detail...). */
    readonly data?: unknown,
  ) {
    super(`${rpcMessage} (code ${code})`)
  }
}

/** No connection could be made to the node, or it closed before answering. */
export class NodeUnreachableError extends Error {
  override readonly name = 'NodeUnreachableError'
  constructor(
    /** The URL that was tried. */
    readonly url: string,
    /** The underlying reason (ECONNREFUSED...), kept for --verbose style diagnostics. */
    readonly reason?: string,
  ) {
    super(`cannot reach node at ${url}${reason ? ` (${reason})` : ''}`)
  }
}

/** The node sent something that is not a JSON-RPC 2.0 response (or HTTP failed without a JSON body). */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError'
}

/** Finds the system error code (ECONNREFUSED...) in a fetch/ws error chain. */
export function systemErrorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === 'string') return code
    e = (e as { cause?: unknown }).cause
  }
  return undefined
}
