/**
 * Transport-independent JSON-RPC 2.0 dispatch: one HTTP body or WebSocket text frame in, the serialized
 * response out (or nothing, for notifications). Behaviour follows geth's `rpc/handler.go`:
 * - a request may omit `jsonrpc`, but one that is not exactly "2.0" is -32600; ids may be numbers or strings
 *   (anything but an object/array is echoed, as the bytes received: json-scan.ts);
 * - a body nested deeper than 10,000 levels is -32700, as Go's decoder refuses it;
 * - a message without `id` is a notification: it runs but gets no reply;
 * - params are positional; `null`/absent means no arguments, an object is `non-array args`;
 * - batches run in order; `[]` is a single -32600 `empty batch`; more than `batchRequestLimit` requests
 *   is one -32600 `batch too large` (in an array, with the first call's id); once the batch response
 *   passes `batchResponseMaxSize`, the remaining calls get -32003 `response too large`.
 * The hot path (a single request whose handler answers synchronously) stays synchronous and serializes
 * the result with one JSON.stringify; a `RawJson` result is copied into a byte response as it is.
 */
import type { Logger } from '../utils/logger.js'
import { JSONRPC_VERSION, RpcErrorCode, type JsonRpcErrorObject } from './json-rpc.js'
import { namespaceOf, type CallContext, type MethodDef, type MethodTable, type Param } from './method-table.js'
import { elementSources, exceedsDepth, memberSourceIf } from './json-scan.js'
import { RawJson } from './raw-json.js'
import { NO_API_ERRORS, renderEvmError, type ApiErrorRenderer } from './render-evm-error.js'
import { invalidParamsError, methodNotFoundError, notificationsUnsupportedError, unauthorizedError } from './rpc-errors.js'
import { PRIVATE_NAMESPACES } from './caller-auth.js'

/** Options of the dispatcher (the `[json-rpc]` limits that concern messages, not sockets). */
export interface DispatcherOptions {
  /** Enabled namespaces (`--json-rpc.api`); methods of other namespaces answer -32601 like unknown ones. */
  namespaces: readonly string[]
  /** Namespaces served only to an authorised caller (`CallContext.authorized`), else -32001. */
  privateNamespaces: readonly string[]
  /** Most requests in one batch (`batch-request-limit`, default 1000); 0 = unlimited. */
  batchRequestLimit: number
  /** Most bytes of responses in one batch (`batch-response-max-size`, default 25 MB); 0 = unlimited. */
  batchResponseMaxSize: number
}

/** Defaults: the request and batch limits of docs/decisions.md. */
export const defaultDispatcherOptions: DispatcherOptions = {
  namespaces: ['eth', 'net', 'web3'],
  privateNamespaces: PRIVATE_NAMESPACES,
  batchRequestLimit: 1000,
  batchResponseMaxSize: 25_000_000,
}

/**
 * The result of handling one message: the serialized response (bytes, UTF-8, when a result was
 * `RawJson`), or undefined when nothing is sent.
 */
export type DispatchResult = string | Buffer | undefined

const PREFIX = '{"jsonrpc":"' + JSONRPC_VERSION + '","id":'
const PARSE_ERROR = PREFIX + 'null,"error":{"code":' + RpcErrorCode.parseError + ',"message":"parse error"}}'
/**
 * A body nested deeper than Go's decoder allows: geth's HTTP server answers every read error with
 * `parse error` (rpc/server.go `messageForReadError`), its WebSocket reader with the decoder's own
 * text, `exceeded max depth` (rpc/client.go `read`: `parseError{err.Error()}`), both -32700.
 */
const TOO_DEEP_WS = PREFIX + 'null,"error":{"code":' + RpcErrorCode.parseError + ',"message":"exceeded max depth"}}'
const EMPTY_BATCH = PREFIX + 'null,"error":{"code":' + RpcErrorCode.invalidRequest + ',"message":"empty batch"}}'
const INVALID_REQUEST: JsonRpcErrorObject = Object.freeze({ code: RpcErrorCode.invalidRequest, message: 'invalid request' })
const BATCH_OPEN = Buffer.from('[')
const BATCH_COMMA = Buffer.from(',')
const BATCH_CLOSE = Buffer.from(']')
const EMPTY_ARGS: unknown[] = []
const NO_PARAMS: readonly unknown[] = []

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function'
}

function errorResponse(idJson: string, error: JsonRpcErrorObject): string {
  return PREFIX + idJson + ',"error":' + JSON.stringify(error) + '}'
}

/**
 * The id of a request message as JSON text, or undefined when the message has no usable id. geth
 * echoes the id's bytes as received (`json.RawMessage`), so `123456789012345678901234567890`, `1.0`
 * and `"\u0041"` come back as sent; `source` is the message's text, where the id is looked up (a
 * number parsed to a double would come back rounded).
 */
function idJsonOf(msg: Record<string, unknown>, source: string | undefined): string | undefined {
  const id = msg.id
  if (id === undefined || (id !== null && typeof id === 'object')) return undefined
  if (id === null) return 'null'
  // What clients send is almost always what JSON.stringify writes back; the source proves it or tells.
  const written = JSON.stringify(id)
  return source === undefined ? written : (memberSourceIf(source, 'id', written) ?? written)
}

/** Decodes positional params against the method's codecs; throws -32602 with geth's wording. */
function decodeArgs(params: readonly Param<unknown>[], raw: unknown): unknown[] {
  let list: readonly unknown[]
  if (raw === undefined || raw === null) list = NO_PARAMS
  else if (Array.isArray(raw)) list = raw
  else throw invalidParamsError('non-array args')
  const n = params.length
  if (n === 0) {
    if (list.length > 0) throw invalidParamsError('too many arguments, want at most 0')
    return EMPTY_ARGS
  }
  const args = new Array<unknown>(n)
  for (let i = 0; i < n; i++) {
    const param = params[i]!
    const value = list[i]
    if (value === undefined || (value === null && !param.required)) {
      if (param.required) throw invalidParamsError(`missing value for required argument ${i}`)
      args[i] = param.default
      continue
    }
    try {
      args[i] = param.codec(value)
    } catch (err) {
      throw invalidParamsError(`invalid argument ${i}: ${err instanceof Error ? err.message : String(err)}`)
    }
  }
  if (list.length > n) throw invalidParamsError(`too many arguments, want at most ${n}`)
  return args
}

/**
 * Routes JSON-RPC messages to the enabled methods; shared by the HTTP and WebSocket servers. Errors the
 * handlers throw are rendered by `renderApiError`, the error table of the API whose methods it serves.
 */
export class Dispatcher {
  private readonly methods = new Map<string, MethodDef>()
  private readonly privateMethods = new Set<string>()

  constructor(
    tables: readonly MethodTable[],
    private readonly opts: DispatcherOptions,
    private readonly log: Logger,
    private readonly renderApiError: ApiErrorRenderer = NO_API_ERRORS,
  ) {
    const enabled = new Set(opts.namespaces)
    for (const table of tables) {
      for (const def of table) {
        if (this.methods.has(def.name)) throw new Error(`duplicate RPC method ${def.name}`)
        const namespace = namespaceOf(def.name)
        if (!enabled.has(namespace)) continue
        this.methods.set(def.name, def)
        if (opts.privateNamespaces.includes(namespace)) this.privateMethods.add(def.name)
      }
    }
  }

  /** True when some served method needs an authorised caller. */
  get servesPrivateMethods(): boolean {
    return this.privateMethods.size > 0
  }

  /** True when `method` is served (exists and its namespace is enabled). */
  has(method: string): boolean {
    return this.methods.has(method)
  }

  /** Handles one raw message (HTTP body, WebSocket text frame). */
  handle(text: string, ctx: CallContext): DispatchResult | Promise<DispatchResult> {
    let msg: unknown
    try {
      msg = JSON.parse(text)
    } catch {
      return PARSE_ERROR
    }
    // JSON.parse has no nesting limit; Go's decoder stops at 10,000 levels.
    if (exceedsDepth(text)) return ctx.transport === 'ws' ? TOO_DEEP_WS : PARSE_ERROR
    return this.handleParsed(msg, ctx, text)
  }

  /** Handles an already parsed message (single request or batch); `text`, its source, gives the ids as sent. */
  handleParsed(msg: unknown, ctx: CallContext, text?: string): DispatchResult | Promise<DispatchResult> {
    return Array.isArray(msg) ? this.handleBatch(msg, ctx, text) : this.handleCall(msg, ctx, text)
  }

  /** Handles one request object; returns its serialized response (undefined for a notification). */
  private handleCall(msg: unknown, ctx: CallContext, source: string | undefined): DispatchResult | Promise<DispatchResult> {
    if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return errorResponse('null', INVALID_REQUEST)
    const req = msg as Record<string, unknown>
    const method = req.method
    const idJson = idJsonOf(req, source)
    if (typeof method !== 'string' || method === '') return errorResponse(idJson ?? 'null', INVALID_REQUEST)
    // An object or array id: neither a call nor a notification (geth `invalid request`, id null).
    if (idJson === undefined && req.id !== undefined) return errorResponse('null', INVALID_REQUEST)
    // JSON-RPC 2.0 §4: `jsonrpc` MUST be exactly "2.0". Absent is accepted: the spec's eth_subscribe
    // examples omit it. A wrong version is an Invalid Request, answered even without an id.
    if (req.jsonrpc !== undefined && req.jsonrpc !== JSONRPC_VERSION) {
      return errorResponse(idJson ?? 'null', {
        code: RpcErrorCode.invalidRequest,
        message: `invalid request: "jsonrpc" must be "${JSONRPC_VERSION}"`,
      })
    }
    let result: unknown
    try {
      const def = this.methods.get(method)
      if (def === undefined) throw methodNotFoundError(method)
      if (!ctx.authorized && this.privateMethods.has(method)) {
        ctx.onDenied?.()
        throw unauthorizedError()
      }
      if (def.notificationsOnly && ctx.notifications === undefined) throw notificationsUnsupportedError()
      result = def.handler(decodeArgs(def.params, req.params), ctx)
    } catch (err) {
      return idJson === undefined ? undefined : errorResponse(idJson, this.renderError(err, method))
    }
    if (isThenable(result)) {
      return Promise.resolve(result).then(
        (value) => (idJson === undefined ? undefined : this.serializeResult(idJson, value, method)),
        (err: unknown) => (idJson === undefined ? undefined : errorResponse(idJson, this.renderError(err, method))),
      )
    }
    return idJson === undefined ? undefined : this.serializeResult(idJson, result, method)
  }

  private renderError(err: unknown, method: string): JsonRpcErrorObject {
    return renderEvmError(err, this.renderApiError, method, this.log)
  }

  private serializeResult(idJson: string, result: unknown, method: string): string | Buffer {
    try {
      if (result instanceof RawJson) return result.wrap(PREFIX + idJson + ',"result":', '}')
      return PREFIX + idJson + ',"result":' + (result === undefined ? 'null' : JSON.stringify(result)) + '}'
    } catch (err) {
      return errorResponse(idJson, this.renderError(err, method))
    }
  }

  private async handleBatch(msgs: unknown[], ctx: CallContext, text: string | undefined): Promise<DispatchResult> {
    if (msgs.length === 0) return EMPTY_BATCH
    const sources: readonly (string | undefined)[] = text === undefined ? [] : elementSources(text)
    const limit = this.opts.batchRequestLimit
    if (limit > 0 && msgs.length > limit) {
      const first = msgs.findIndex(
        (m, i) =>
          m !== null && typeof m === 'object' && !Array.isArray(m) && idJsonOf(m as Record<string, unknown>, sources[i]) !== undefined,
      )
      const idJson = first < 0 ? 'null' : idJsonOf(msgs[first] as Record<string, unknown>, sources[first])!
      return '[' + errorResponse(idJson, { code: RpcErrorCode.invalidRequest, message: 'batch too large' }) + ']'
    }
    const maxSize = this.opts.batchResponseMaxSize
    const parts: (string | Buffer)[] = []
    let size = 0
    for (let i = 0; i < msgs.length; i++) {
      const part = await this.handleCall(msgs[i], ctx, sources[i])
      if (part === undefined) continue
      parts.push(part)
      size += part.length
      if (maxSize > 0 && size > maxSize) {
        for (let j = i + 1; j < msgs.length; j++) {
          const m = msgs[j]
          if (m === null || typeof m !== 'object' || Array.isArray(m)) {
            parts.push(errorResponse('null', { code: RpcErrorCode.responseTooLarge, message: 'response too large' }))
            continue
          }
          const idJson = idJsonOf(m as Record<string, unknown>, sources[j])
          if (idJson === undefined && typeof (m as Record<string, unknown>).method === 'string') continue // notification
          parts.push(errorResponse(idJson ?? 'null', { code: RpcErrorCode.responseTooLarge, message: 'response too large' }))
        }
        break
      }
    }
    if (parts.length === 0) return undefined
    if (parts.every((part) => typeof part === 'string')) return '[' + parts.join(',') + ']'
    return joinBytes(parts)
  }
}

/** A batch response with byte parts: `[part,part,...]` as one buffer. */
function joinBytes(parts: readonly (string | Buffer)[]): Buffer {
  const chunks: Buffer[] = [BATCH_OPEN]
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) chunks.push(BATCH_COMMA)
    const part = parts[i]!
    chunks.push(typeof part === 'string' ? Buffer.from(part) : part)
  }
  chunks.push(BATCH_CLOSE)
  return Buffer.concat(chunks)
}
