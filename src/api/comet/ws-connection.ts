/**
 * One JSON-RPC WebSocket connection at `/websocket` (CometBFT `ws_handler.go`): one request per text
 * frame, handled in arrival order; every route is callable; numeric or string ids; param failures
 * are -32603 here; pings every `wsPingPeriod`; closed when nothing arrives for `wsReadWait`. The
 * connection is the subscriber (`ip:port`) for event subscriptions, removed when it closes.
 */
import type { WebSocket, RawData } from 'ws'
import type { Logger } from '../../utils/logger.js'
import type { RouteDispatcher } from './dispatch.js'
import { CometErrorCode, errorResponse, renderCometError, responseToJson, successResponse, type RpcResponse } from './errors.js'
import { parseJsonGo } from './go-json-error.js'
import type { EventSubscriptions, WsClient } from './route.js'
import { parseRpcRequest } from './rpc-request.js'
import { stringifyJson } from './wire-json.js'

/** Timings and buffer of a connection. */
export interface WsConnectionOptions {
  readWait: number
  pingPeriod: number
  writeBufferSize: number
}

/** Serves one socket until it closes. */
export class WsConnection implements WsClient {
  private queue: Promise<void> = Promise.resolve()
  private pending = 0
  private readTimer: NodeJS.Timeout | undefined
  private readonly pingTimer: NodeJS.Timeout
  private isClosed = false

  constructor(
    private readonly socket: WebSocket,
    readonly remoteAddr: string,
    private readonly dispatcher: RouteDispatcher,
    private readonly options: WsConnectionOptions,
    private readonly log: Logger,
    private readonly subscriptions?: EventSubscriptions,
  ) {
    socket.on('message', (data) => this.onMessage(data))
    socket.on('pong', () => this.touch())
    socket.on('close', () => this.onClose())
    socket.on('error', (err) => this.log.debug('websocket error', { remote: remoteAddr, err }))
    this.pingTimer = setInterval(() => {
      if (!this.isClosed) socket.ping()
    }, options.pingPeriod)
    this.touch()
  }

  get closed(): boolean {
    return this.isClosed
  }

  /** Queues a message; false when closed or when `writeBufferSize` messages are already waiting. */
  send(response: RpcResponse): boolean {
    if (this.isClosed || this.pending >= this.options.writeBufferSize) return false
    this.pending++
    this.socket.send(stringifyJson(responseToJson(response)), () => this.pending--)
    return true
  }

  /** Closes the socket (server shutdown). */
  terminate(): void {
    this.socket.terminate()
    this.onClose()
  }

  /** Any frame or pong resets the read deadline. */
  private touch(): void {
    clearTimeout(this.readTimer)
    this.readTimer = setTimeout(() => {
      this.log.debug('websocket read deadline passed', { remote: this.remoteAddr })
      this.terminate()
    }, this.options.readWait)
  }

  private onMessage(data: RawData): void {
    this.touch()
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8')
    // Requests are handled one at a time, in order, as CometBFT's read loop does.
    this.queue = this.queue.then(() => this.handle(text)).catch((err) => this.log.error('websocket request failed', { remote: this.remoteAddr, err }))
  }

  private async handle(text: string): Promise<void> {
    let request
    try {
      request = parseRpcRequest(parseJsonGo(text))
    } catch (err) {
      this.send(errorResponse(undefined, CometErrorCode.ParseError, `error unmarshaling request: ${(err as Error).message}`))
      return
    }
    if (request.id === undefined) return
    const route = this.dispatcher.routes.get(request.method)
    if (!route) {
      this.send(errorResponse(request.id, CometErrorCode.MethodNotFound))
      return
    }
    let args
    try {
      args = this.dispatcher.argsFromJson(route, request.params)
    } catch (err) {
      // Over WebSocket CometBFT reports param conversion failures as internal errors.
      this.send(errorResponse(request.id, CometErrorCode.InternalError, (err as Error).message))
      return
    }
    try {
      this.send(successResponse(request.id, await this.dispatcher.call(route, args, { client: this, requestId: request.id })))
    } catch (err) {
      this.send(renderCometError(request.id, err))
    }
  }

  private onClose(): void {
    if (this.isClosed) return
    this.isClosed = true
    clearInterval(this.pingTimer)
    clearTimeout(this.readTimer)
    this.subscriptions?.unsubscribeAll(this).catch(() => undefined)
  }
}
