/**
 * A small typed JSON-RPC 2.0 client over HTTP: `fetch` (undici keeps connections alive between calls),
 * one request per call, JSON-RPC errors thrown as {@link JsonRpcClientError}, connection failures as
 * {@link NodeUnreachableError} (`cannot reach node at URL`).
 */
import { JsonRpcClientError, NodeUnreachableError, ProtocolError, systemErrorCode } from './errors.js'

/** Options of {@link HttpRpcClient}. */
export interface HttpRpcClientOptions {
  /** Extra headers on every request (e.g. `Authorization: Bearer <JWT>`); a function is called per request. */
  headers?: Record<string, string> | (() => Record<string, string>)
  /** Time allowed for one call, in ms (default 30,000). */
  timeoutMs?: number
}

/** Default time allowed for one call: 30 s, enough for a large eth_getLogs. */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000

/** A JSON-RPC 2.0 response envelope. */
export interface JsonRpcResponse {
  jsonrpc: '2.0'
  id: number | string | null
  result?: unknown
  error?: { code: number; message: string; data?: unknown }
}

/** JSON-RPC `params`: positional (the EVM API) or by name (the consensus RPC, CometBFT's preferred form). */
export type JsonRpcParams = unknown[] | Record<string, unknown>

/** Interface shared by the HTTP and WebSocket clients. */
export interface RpcCaller {
  /** Calls `method` and resolves with its `result` (typed by the caller). */
  call<T = unknown>(method: string, params?: JsonRpcParams): Promise<T>
}

/** Turns a response envelope into its result, or throws its error. */
export function resultOf<T>(response: JsonRpcResponse): T {
  if (response.error) throw new JsonRpcClientError(response.error.code, response.error.message, response.error.data)
  if (!('result' in response)) throw new ProtocolError('response has neither result nor error')
  return response.result as T
}

/** JSON-RPC client over HTTP POST. */
export class HttpRpcClient implements RpcCaller {
  private nextId = 1
  private readonly timeoutMs: number

  constructor(
    /** The node's HTTP JSON-RPC URL (`http://127.0.0.1:8545`, or a consensus RPC `http://127.0.0.1:26657`). */
    readonly url: string,
    private readonly options: HttpRpcClientOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS
  }

  async call<T = unknown>(method: string, params: JsonRpcParams = []): Promise<T> {
    const id = this.nextId++
    const headers = typeof this.options.headers === 'function' ? this.options.headers() : (this.options.headers ?? {})
    let res: Response
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
        signal: AbortSignal.timeout(this.timeoutMs),
      })
    } catch (err) {
      if ((err as Error).name === 'TimeoutError')
        throw new ProtocolError(`${method}: no answer from ${this.url} within ${this.timeoutMs} ms`)
      throw new NodeUnreachableError(this.url, systemErrorCode(err))
    }
    const text = await res.text()
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      throw new ProtocolError(`HTTP ${res.status} from ${this.url}: ${text.slice(0, 200).trim() || res.statusText}`)
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ProtocolError(`unexpected reply from ${this.url}`)
    return resultOf<T>(body as JsonRpcResponse)
  }
}
