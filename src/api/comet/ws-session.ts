/**
 * The consensus RPC over one WebSocket connection at `/websocket` (CometBFT `ws_handler.go`): one
 * request per text frame, answered in arrival order; every route is callable; numeric or string ids;
 * param failures are -32603 here. The session is the subscriber (`ip:port`) of event subscriptions,
 * removed when the connection closes. Keepalive, the read deadline and the bound on unread bytes are
 * the shared connection's (rpc/ws-connection.ts); on top of them at most `writeBufferSize` messages
 * may wait to be written (`experimental_websocket_write_buffer_size`): past it `send` refuses an event,
 * and the subscription is cancelled as a slow client's.
 */
import type { Logger } from '../../utils/logger.js'
import type { WsConnection } from '../../rpc/ws-connection.js'
import type { RouteDispatcher } from './dispatch.js'
import { CometErrorCode, errorResponse, renderCometError, responseToJson, successResponse, type RpcResponse } from './errors.js'
import { parseJsonGo } from './go-json-error.js'
import type { EventSubscriptions, WsClient } from './route.js'
import { parseRpcRequest, type RpcRequest } from './rpc-request.js'
import { stringifyJson } from './wire-json.js'

/** The consensus RPC side of one WebSocket connection. */
export class CometWsSession implements WsClient {
  private queue: Promise<void> = Promise.resolve()
  /** Messages handed to the connection and not yet written to the socket. */
  private pending = 0

  constructor(
    private readonly conn: WsConnection,
    private readonly dispatcher: RouteDispatcher,
    private readonly writeBufferSize: number,
    private readonly log: Logger,
    subscriptions: EventSubscriptions | undefined,
  ) {
    conn.onClose(() => {
      subscriptions?.unsubscribeAll(this).catch(() => undefined)
    })
  }

  get remoteAddr(): string {
    return this.conn.remote
  }

  get closed(): boolean {
    return this.conn.closed
  }

  /** Queues an event; false when closed, or when `writeBufferSize` messages are already waiting. */
  send(response: RpcResponse): boolean {
    if (this.conn.closed || this.pending >= this.writeBufferSize) return false
    return this.write(response)
  }

  /** Takes one message; requests are handled one at a time, in order, as CometBFT's read loop does. */
  handle(text: string): void {
    this.conn.beginRequest()
    this.queue = this.queue
      .then(() => this.answer(text))
      .catch((err) => this.log.error('websocket request failed', { remote: this.remoteAddr, err }))
      .finally(() => this.conn.endRequest())
  }

  private write(response: RpcResponse): boolean {
    this.pending++
    if (this.conn.write(stringifyJson(responseToJson(response)), () => this.pending--)) return true
    this.pending--
    return false
  }

  private async answer(text: string): Promise<void> {
    let request: RpcRequest
    try {
      request = parseRpcRequest(parseJsonGo(text))
    } catch (err) {
      this.write(errorResponse(undefined, CometErrorCode.ParseError, `error unmarshaling request: ${(err as Error).message}`))
      return
    }
    if (request.id === undefined) return
    const route = this.dispatcher.routes.get(request.method)
    if (!route) {
      this.write(errorResponse(request.id, CometErrorCode.MethodNotFound))
      return
    }
    let args: Record<string, unknown>
    try {
      args = this.dispatcher.argsFromJson(route, request.params)
    } catch (err) {
      // Over WebSocket CometBFT reports param conversion failures as internal errors.
      this.write(errorResponse(request.id, CometErrorCode.InternalError, (err as Error).message))
      return
    }
    try {
      this.write(successResponse(request.id, await this.dispatcher.call(route, args, { client: this, requestId: request.id })))
    } catch (err) {
      this.write(renderCometError(request.id, err))
    }
  }
}
