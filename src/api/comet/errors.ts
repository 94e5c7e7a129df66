/**
 * Consensus-style JSON-RPC errors (CometBFT `rpc/jsonrpc/types`): a fixed phrase in `message`, the
 * detail in `data` (omitted when empty), and the response `id` omitted when unknown. The HTTP status
 * each transport gives them is decided in server.ts (shared/reference/cometbft-rpc.md §2.4).
 */
import { NodeError } from '../../utils/errors.js'
import type { Json, JsonObject } from './wire-json.js'

/** CometBFT's error codes. */
export const CometErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  ServerError: -32000,
} as const
export type CometErrorCode = (typeof CometErrorCode)[keyof typeof CometErrorCode]

/** The fixed `message` of each code. */
export const COMET_ERROR_MESSAGES: Record<CometErrorCode, string> = {
  [CometErrorCode.ParseError]: 'Parse error. Invalid JSON',
  [CometErrorCode.InvalidRequest]: 'Invalid Request',
  [CometErrorCode.MethodNotFound]: 'Method not found',
  [CometErrorCode.InvalidParams]: 'Invalid params',
  [CometErrorCode.InternalError]: 'Internal error',
  [CometErrorCode.ServerError]: 'Server error',
}

/** A JSON-RPC id: CometBFT keeps integers (truncated) and strings. */
export type RpcId = number | string

/** A response envelope in Go's field order: jsonrpc, id, result, error. */
export interface RpcResponse {
  jsonrpc: '2.0'
  id?: RpcId
  result?: Json
  error?: { code: number; message: string; data?: string }
}

/** An error with a CometBFT code; its `message` is the detail that goes into `data`. */
export class CometRpcError extends NodeError {
  constructor(code: CometErrorCode, detail = '') {
    super(detail, code)
  }
}

/** Decoding the params failed (-32602 over HTTP, -32603 over WebSocket). */
export class InvalidParamsError extends CometRpcError {
  constructor(detail: string) {
    super(CometErrorCode.InvalidParams, detail)
  }
}

/** The route is unknown, or only served over WebSocket (-32601). */
export class MethodNotFoundError extends CometRpcError {
  constructor() {
    super(CometErrorCode.MethodNotFound)
  }
}

/** A success response. */
export function successResponse(id: RpcId | undefined, result: Json): RpcResponse {
  return { jsonrpc: '2.0', id, result }
}

/** An error response; `data` is omitted when empty. */
export function errorResponse(id: RpcId | undefined, code: CometErrorCode, data = ''): RpcResponse {
  return { jsonrpc: '2.0', id, error: { code, message: COMET_ERROR_MESSAGES[code], data: data === '' ? undefined : data } }
}

/**
 * Maps anything a handler threw to the wire: a CometRpcError keeps its code; every other error is a
 * handler error, -32603 with its message (CometBFT returns handler errors as `RPCInternalError`).
 */
export function renderCometError(id: RpcId | undefined, err: unknown): RpcResponse {
  if (err instanceof CometRpcError) return errorResponse(id, err.code as CometErrorCode, err.message)
  return errorResponse(id, CometErrorCode.InternalError, err instanceof Error ? err.message : String(err))
}

/** The response as a JSON value tree (for stringifyJson). */
export function responseToJson(r: RpcResponse): JsonObject {
  return { jsonrpc: r.jsonrpc, id: r.id, result: r.result, error: r.error }
}
