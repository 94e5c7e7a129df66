/**
 * What one RPC surface plugs into the shared listener (http-listener.ts): how it answers an HTTP
 * request, and whether and how it serves WebSockets. The listener owns everything else: listening,
 * connection limit, timeouts, graceful close, upgrades and the bounds of each WebSocket connection.
 * Implementations: the EVM JSON-RPC (evm-http-dialect.ts, ws-server.ts: geth's envelope and errors) and
 * the CometBFT RPC (api/comet/comet-dialect.ts: URI routes, JSON-RPC POST, `/websocket`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { PlainReply, PlainRequest } from './plain-http.js'
import type { WsConnection, WsConnectionLimits } from './ws-connection.js'

/** An HTTP answer to an upgrade request that is refused. */
export interface UpgradeRefusal {
  status: number
  /** Plain-text body (a newline is added). */
  text: string
}

/** How a surface serves WebSockets. */
export interface WsDialect {
  /** Largest incoming message in bytes; a larger one closes the connection with 1009 (message too big). */
  readonly maxMessageSize: number
  /** Bounds of each connection. */
  readonly limits: WsConnectionLimits
  /** Decides an upgrade request, given the WebSocket connections already open: undefined accepts it. */
  refuseUpgrade(req: IncomingMessage, open: number): UpgradeRefusal | undefined
  /** Serves an accepted connection (sets its message handler). */
  accept(conn: WsConnection, req: IncomingMessage): void
}

/** One RPC surface. */
export interface RpcDialect {
  /** Answers an HTTP request (every request that is not a WebSocket upgrade). */
  handleRequest(req: IncomingMessage, res: ServerResponse): void
  /**
   * Answers a keep-alive request read by the listener's own parser (plain-http.ts), or returns undefined
   * to have node:http serve it (and the rest of its connection) through `handleRequest`. Without it
   * every request goes to node:http.
   */
  answerPlain?(req: PlainRequest): PlainReply | Promise<PlainReply> | undefined
  /** WebSocket service; without it an upgrade request is answered as a plain request. */
  readonly webSocket?: WsDialect
  /** Called when the listener starts closing: long waits give up. */
  onClose?(): void
}
