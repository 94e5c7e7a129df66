/**
 * A typed JSON-RPC 2.0 client over WebSocket (`ws`) with subscriptions: `eth_subscribe` by default,
 * or CometBFT's `subscribe` (see subscription-dialects.ts).
 *
 * Calls are matched to replies by id. Pushed events (`{"method":"eth_subscription","params":
 * {"subscription","result"}}`, or CometBFT's replies to the subscribe request's id) go to the
 * subscription's handler. A subscription the node cancels (CometBFT's -32000) drops the connection
 * so that it is renewed like after a disconnection. When the socket drops while
 * subscriptions are open (the node restarted), the client reconnects with exponential back-off and
 * subscribes again with the same parameters, reporting each attempt through `onReconnecting` and
 * success through `onReconnected`; the subscription handles stay valid, only their server ids change.
 */
import WebSocket from 'ws'
import { JsonRpcClientError, NodeUnreachableError, ProtocolError, systemErrorCode } from './errors.js'
import { DEFAULT_CALL_TIMEOUT_MS, type JsonRpcParams, type RpcCaller } from './http-client.js'
import { ethSubscriptions, type SubscriptionDialect } from './subscription-dialects.js'

/** Back-off of reconnection attempts. */
export interface ReconnectOptions {
  /** Delay before the first attempt, in ms (default 250). */
  initialDelayMs?: number
  /** Longest delay between attempts, in ms (default 5,000); the delay doubles up to it. */
  maxDelayMs?: number
  /** Attempts before giving up; Infinity = keep trying (default Infinity). */
  maxAttempts?: number
}

/** Options of {@link WsRpcClient.connect}. */
export interface WsRpcClientOptions {
  /** Headers of the upgrade request (e.g. `Authorization: Bearer <JWT>`); a function is called per connection. */
  headers?: Record<string, string> | (() => Record<string, string>)
  /** Time allowed for one call, in ms (default 30,000). */
  timeoutMs?: number
  /** Reconnection back-off; `false` disables reconnecting (default on, see {@link ReconnectOptions}). */
  reconnect?: ReconnectOptions | false
  /** Called before each reconnection attempt (attempt counts from 1). */
  onReconnecting?: (attempt: number, delayMs: number, reason: string) => void
  /** Called once subscriptions are re-established on a new connection. */
  onReconnected?: (attempt: number) => void
  /** Called when the client gives up (reconnection disabled or attempts exhausted); the client is then closed. */
  onFatal?: (err: Error) => void
  /** The subscription protocol (default {@link ethSubscriptions}). */
  dialect?: SubscriptionDialect
  /** Called when the node cancels a subscription; the client then reconnects and subscribes again. */
  onCancelled?: (err: JsonRpcClientError) => void
}

/** A live subscription; stays valid across reconnections. */
export interface Subscription {
  /** The current server-side subscription id (changes after a reconnection); CometBFT: the subscribe request's id. */
  readonly id: string
  /** Calls `eth_unsubscribe` / `unsubscribe` (if connected) and stops delivering events. */
  unsubscribe(): Promise<void>
}

interface PendingCall {
  method: string
  resolve(result: unknown): void
  reject(err: Error): void
  timer: NodeJS.Timeout
}

interface SubscriptionState {
  id: string
  params: unknown[]
  onEvent(result: unknown): void
  active: boolean
}

const DEFAULT_RECONNECT: Required<ReconnectOptions> = { initialDelayMs: 250, maxDelayMs: 5_000, maxAttempts: Infinity }

/** Opens one WebSocket, resolving when open and rejecting with NodeUnreachableError otherwise. */
function openSocket(url: string, headers: Record<string, string>): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers })
    const onError = (err: Error): void => {
      socket.removeAllListeners()
      socket.on('error', () => {})
      reject(new NodeUnreachableError(url, systemErrorCode(err) ?? err.message))
    }
    socket.once('error', onError)
    socket.once('unexpected-response', (_req, res) => {
      socket.removeAllListeners()
      socket.on('error', () => {})
      socket.terminate()
      reject(new ProtocolError(`WebSocket upgrade refused by ${url}: HTTP ${res.statusCode}`))
    })
    socket.once('open', () => {
      socket.off('error', onError)
      resolve(socket)
    })
  })
}

/** JSON-RPC client over one (re)connecting WebSocket. */
export class WsRpcClient implements RpcCaller {
  private nextId = 1
  private readonly pending = new Map<number, PendingCall>()
  private readonly subsById = new Map<string, SubscriptionState>()
  private readonly subs = new Set<SubscriptionState>()
  private closed = false
  private reconnecting = false
  private readonly timeoutMs: number
  private readonly backoff: Required<ReconnectOptions> | false
  private readonly dialect: SubscriptionDialect

  private constructor(
    /** The node's WebSocket URL (`ws://127.0.0.1:8546`). */
    readonly url: string,
    private socket: WebSocket,
    private readonly options: WsRpcClientOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS
    this.backoff = options.reconnect === false ? false : { ...DEFAULT_RECONNECT, ...options.reconnect }
    this.dialect = options.dialect ?? ethSubscriptions
    this.attach(socket)
  }

  /** Connects to `url`; rejects with {@link NodeUnreachableError} when nothing answers. */
  static async connect(url: string, options: WsRpcClientOptions = {}): Promise<WsRpcClient> {
    const socket = await openSocket(url, WsRpcClient.headersOf(options))
    return new WsRpcClient(url, socket, options)
  }

  private static headersOf(options: WsRpcClientOptions): Record<string, string> {
    return typeof options.headers === 'function' ? options.headers() : (options.headers ?? {})
  }

  call<T = unknown>(method: string, params: JsonRpcParams = []): Promise<T> {
    return this.send<T>(method, params)
  }

  /**
   * Subscribes with `params` (`eth_subscribe`: `['newHeads']`, `['logs', {address}]`...; CometBFT:
   * `[query]`); `onEvent` receives each event (the notification's `result`, or CometBFT's
   * `{query, data, events}`). The subscription is renewed automatically after a reconnection.
   */
  async subscribe(params: unknown[], onEvent: (result: unknown) => void): Promise<Subscription> {
    const state: SubscriptionState = { id: '', params, onEvent, active: true }
    await this.openSubscription(state)
    this.subs.add(state)
    return {
      get id() {
        return state.id
      },
      unsubscribe: async () => {
        if (!state.active) return
        state.active = false
        this.subs.delete(state)
        this.subsById.delete(state.id)
        const request = this.dialect.unsubscribeRequest(state.id, state.params)
        if (this.socket.readyState === WebSocket.OPEN) await this.send(request.method, request.params).catch(() => undefined)
      },
    }
  }

  /** Closes the socket; pending calls fail and no reconnection is attempted. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.failPending(new ProtocolError('client closed'))
    if (this.socket.readyState === WebSocket.CLOSED) return
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.socket.terminate()
        resolve()
      }, 1_000)
      this.socket.once('close', () => {
        clearTimeout(timer)
        resolve()
      })
      this.socket.close()
    })
  }

  /** Sends the subscribe request of `state` and records its key synchronously, before any push that follows. */
  private async openSubscription(state: SubscriptionState): Promise<void> {
    const request = this.dialect.subscribeRequest(state.params)
    await this.send(request.method, request.params, (result, requestId) => {
      const key = this.dialect.keyOf(result, requestId)
      if (key === undefined) return
      this.subsById.delete(state.id)
      state.id = key
      this.subsById.set(key, state)
    })
  }

  private send<T>(method: string, params: JsonRpcParams, onResultSync?: (result: unknown, requestId: number) => void): Promise<T> {
    if (this.closed) return Promise.reject(new ProtocolError('client closed'))
    if (this.socket.readyState !== WebSocket.OPEN) return Promise.reject(new NodeUnreachableError(this.url, 'connection lost'))
    const id = this.nextId++
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        reject(new ProtocolError(`${method}: no answer from ${this.url} within ${this.timeoutMs} ms`))
      }, this.timeoutMs)
      this.pending.set(id, {
        method,
        resolve: (result) => {
          onResultSync?.(result, id)
          resolve(result as T)
        },
        reject,
        timer,
      })
      this.socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    })
  }

  private attach(socket: WebSocket): void {
    socket.on('message', (data) => this.onMessage(String(data)))
    socket.on('error', () => {}) // 'close' follows and handles it
    socket.on('close', () => this.onClose(socket))
  }

  private onMessage(text: string): void {
    let msg: unknown
    try {
      msg = JSON.parse(text)
    } catch {
      return
    }
    for (const item of Array.isArray(msg) ? msg : [msg]) this.onEnvelope(item as Record<string, unknown>)
  }

  private onEnvelope(msg: Record<string, unknown>): void {
    const pushed = this.dialect.pushOf(msg)
    const state = pushed && this.subsById.get(pushed.key)
    if (pushed && 'event' in pushed) {
      if (state?.active) state.onEvent(pushed.event)
      return
    }
    if (pushed && state?.active) {
      this.onCancelled(new JsonRpcClientError(pushed.error.code, pushed.error.message, pushed.error.data))
      return
    }
    const pending = typeof msg.id === 'number' ? this.pending.get(msg.id) : undefined
    if (!pending) return
    this.pending.delete(msg.id as number)
    clearTimeout(pending.timer)
    const error = msg.error as { code: number; message: string; data?: unknown } | undefined
    if (error) pending.reject(new JsonRpcClientError(error.code, error.message, error.data))
    else pending.resolve(msg.result)
  }

  private failPending(err: Error): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer)
      p.reject(err)
    }
    this.pending.clear()
  }

  /** The node dropped a subscription: drop the connection too, so that reconnecting renews every subscription. */
  private onCancelled(err: JsonRpcClientError): void {
    this.options.onCancelled?.(err)
    this.socket.terminate()
  }

  private onClose(socket: WebSocket): void {
    if (socket !== this.socket) return
    this.failPending(new NodeUnreachableError(this.url, 'connection lost'))
    if (this.closed || this.reconnecting || this.subs.size === 0) return
    if (this.backoff === false) {
      this.giveUp(new NodeUnreachableError(this.url, 'connection lost'))
      return
    }
    void this.reconnect(this.backoff)
  }

  private giveUp(err: Error): void {
    this.closed = true
    this.options.onFatal?.(err)
  }

  /** Reconnects with exponential back-off and renews every subscription. */
  private async reconnect(backoff: Required<ReconnectOptions>): Promise<void> {
    this.reconnecting = true
    let delay = backoff.initialDelayMs
    for (let attempt = 1; attempt <= backoff.maxAttempts && !this.closed; attempt++) {
      this.options.onReconnecting?.(attempt, delay, 'connection lost')
      await new Promise((r) => setTimeout(r, delay))
      if (this.closed) break
      delay = Math.min(delay * 2, backoff.maxDelayMs)
      let socket: WebSocket
      try {
        socket = await openSocket(this.url, WsRpcClient.headersOf(this.options))
      } catch {
        continue
      }
      if (this.closed) {
        socket.terminate()
        break
      }
      this.socket = socket
      this.attach(socket)
      try {
        this.subsById.clear()
        for (const state of this.subs) await this.openSubscription(state)
      } catch {
        socket.terminate()
        continue
      }
      this.reconnecting = false
      this.options.onReconnected?.(attempt)
      return
    }
    this.reconnecting = false
    if (!this.closed) this.giveUp(new NodeUnreachableError(this.url, `gave up after ${backoff.maxAttempts} reconnection attempts`))
  }
}
