/**
 * Consensus-style JSON-RPC errors (CometBFT `rpc/jsonrpc/types`): a fixed phrase in `message`, the
 * detail in `data` (omitted when empty), and the response `id` omitted when unknown. The HTTP status
 * that goes with them is the transport's (docs/consensus-rpc.md).
 *
 * This file holds the CometBFT surface's one table of errors (COMET_ERRORS, with the pool's rejections
 * in POOL_REJECTIONS): each typed error of the node's domains and the code and text CometBFT gives it.
 * Any other error a handler throws is CometBFT's handler error, -32603 with its message.
 */
import type { CheckTxResponse } from '../../abci/application.js'
import { QueryParseError } from '../../comet/query/query.js'
import { TX_CODESPACE, TxCode } from '../../evm/txs/tx-codes.js'
import { TxPoolError, TxPoolRejection, TxTooLargeError } from '../../txpool/tx-pool-error.js'
import { errorRow, lookupError } from '../../utils/errors.js'
import type { Json, JsonObject, RawJson } from './wire-json.js'

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

/** A JSON-RPC id: CometBFT keeps integers (truncated; beyond 2^53 as exact text) and strings. */
export type RpcId = number | string | RawJson

/** A response envelope in Go's field order: jsonrpc, id, result, error. */
export interface RpcResponse {
  jsonrpc: '2.0'
  id?: RpcId
  result?: Json
  error?: { code: number; message: string; data?: string }
}

/** An error of the RPC itself with its CometBFT code (bad params, unknown route); its `message` is the detail that goes into `data`. */
export class CometRpcError extends Error {
  constructor(
    readonly code: CometErrorCode,
    detail = '',
  ) {
    super(detail)
    this.name = new.target.name
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

/** An error as CometBFT shows it: a code (its fixed phrase is the `message`) and the detail (`data`). */
export interface CometError {
  code: CometErrorCode
  data: string
}

/** CometBFT's handler error (`RPCInternalError`): -32603 with the detail. */
function internalError(data: string): CometError {
  return { code: CometErrorCode.InternalError, data }
}

/** A pool rejection shown as the mempool's own error (CometBFT `mempool/errors.go`), with its text. */
interface MempoolError {
  readonly mempoolError: (err: TxPoolError) => string
}

/** A pool rejection shown as a successful broadcast whose CheckTx result has this code ≠ 0 (evm/txs/tx-codes.ts). */
interface CheckTxFailure {
  readonly checkTxCode: TxCode
}

/** A refusal by the application's CheckTx: its answer as it is. */
interface ApplicationAnswer {
  readonly application: true
}

/** CometBFT `ErrTxTooLarge`, with the sizes the pool's TxTooLargeError carries. */
function txTooLarge(err: TxPoolError): string {
  return err instanceof TxTooLargeError ? `Tx too large. Max size is ${err.limit}, but got ${err.size}` : err.message
}

/**
 * Each pool rejection on this surface. A refusal by the application's CheckTx is its answer; a
 * refusal by the pool's nonce, funds or replacement rules is a CheckTx failure with the pool's text as
 * `log` (those rules are the application's in an SDK chain); a duplicate, an oversized tx and a full
 * pool are the mempool's own errors, thrown before or after CheckTx in CometBFT.
 */
const POOL_REJECTIONS: Record<TxPoolRejection, MempoolError | CheckTxFailure | ApplicationAnswer> = {
  [TxPoolRejection.CheckTx]: { application: true },
  [TxPoolRejection.FeeCapExceeded]: { checkTxCode: TxCode.InsufficientFee },
  [TxPoolRejection.Oversized]: { mempoolError: txTooLarge },
  [TxPoolRejection.AlreadyKnown]: { mempoolError: () => 'tx already exists in cache' },
  [TxPoolRejection.NonceTooLow]: { checkTxCode: TxCode.InvalidSequence },
  [TxPoolRejection.InsufficientFunds]: { checkTxCode: TxCode.InsufficientFunds },
  [TxPoolRejection.ReplaceUnderpriced]: { checkTxCode: TxCode.InsufficientFee },
  [TxPoolRejection.PoolFull]: { mempoolError: (err) => `mempool is full: ${err.message}` },
  [TxPoolRejection.FutureReplacePending]: { checkTxCode: TxCode.InvalidRequest },
  [TxPoolRejection.AccountLimit]: { checkTxCode: TxCode.InvalidRequest },
}

/** Each error class and its CometBFT form; a subclass not listed reads as its nearest listed ancestor. */
export const COMET_ERRORS = [
  errorRow(CometRpcError, (err) => ({ code: err.code, data: err.message })),
  // A query that does not parse is the handler's error, -32603 (rpc/core/tx.go, blocks.go return
  // `cmtquery.New`'s error as is; events.go wraps it as `failed to parse query: …`, see event-subscriptions.ts).
  errorRow(QueryParseError, (err) => internalError(err.message)),
  errorRow(TxPoolError, (err) => {
    const outcome = POOL_REJECTIONS[err.reason]
    return internalError('mempoolError' in outcome ? outcome.mempoolError(err) : err.message)
  }),
]

const lookupCometError = lookupError(COMET_ERRORS)

/** What anything a handler threw is on the wire: its row of the table, else a handler error with its message. */
export function cometErrorOf(err: unknown): CometError {
  return lookupCometError(err) ?? internalError(err instanceof Error ? err.message : String(err))
}

/** Maps anything a handler threw to the wire (cometErrorOf). */
export function renderCometError(id: RpcId | undefined, err: unknown): RpcResponse {
  const { code, data } = cometErrorOf(err)
  return errorResponse(id, code, data)
}

const NO_CHECK: CheckTxResponse = { code: 0, data: new Uint8Array(0), log: '', gasWanted: 0n, gasUsed: 0n, events: [], codespace: '' }

/**
 * The CheckTx result of a pool rejection CometBFT reports as a CheckTx failure (the application's own
 * answer, or its accepting answer with the pool's code and text), or undefined for any other error
 * (which the caller rethrows).
 */
export function checkTxRejectionOf(err: unknown): CheckTxResponse | undefined {
  if (!(err instanceof TxPoolError)) return undefined
  const outcome = POOL_REJECTIONS[err.reason]
  if ('mempoolError' in outcome) return undefined
  const answer = err.checkTx ?? NO_CHECK
  return 'checkTxCode' in outcome ? { ...answer, code: outcome.checkTxCode, log: err.message, codespace: TX_CODESPACE } : answer
}

/** The response as a JSON value tree (for stringifyJson). */
export function responseToJson(r: RpcResponse): JsonObject {
  return { jsonrpc: r.jsonrpc, id: r.id, result: r.result, error: r.error }
}
