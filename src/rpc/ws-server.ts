/**
 * The EVM JSON-RPC WebSocket listener (`--json-rpc.ws-address`): the shared listener (http-listener.ts)
 * serving WebSockets on any path, each connection an EvmWsSession over the same Dispatcher as HTTP (all
 * enabled methods, batches, notifications), so the two transports cannot drift. Unlike Evmos, which
 * proxies non-subscription calls to its HTTP port and accepts only numeric ids, nothing here depends on
 * the HTTP server and ids may be numbers or strings. Limits:
 * - `ws-origins` on the browser `Origin` header (ws-origins.ts), else 403;
 * - `max-open-connections` WebSocket connections at once, else 503 at once (a WebSocket holds its slot
 *   for long: a client waiting for one would wait indefinitely); the sockets of the listener, upgraded
 *   or not, are bounded by its share of the open-file limit (descriptor-budget.ts), further ones wait
 *   for a slot or are closed (connection-limiter.ts);
 * - messages up to `http-body-limit` bytes, else the connection is closed with 1009 (message too big);
 * - a client that does not read is disconnected (`maxBufferedBytes`), one that floods requests is no
 *   longer read until its replies are out (`maxConcurrentRequests`), a silent one is dropped after two
 *   ping periods without a frame or pong (ws-connection.ts).
 * A plain HTTP request gets 400, as from geth's upgrader.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import type { JsonRpcConfig } from '../config/node-config.js'
import type { Logger } from '../utils/logger.js'
import { denyAll, isLoopbackAddress, type CallerAuth } from './caller-auth.js'
import type { UpgradeRefusal, WsDialect } from './dialect.js'
import type { Dispatcher } from './dispatcher.js'
import { EvmWsSession } from './evm-ws-session.js'
import { HttpListener } from './http-listener.js'
import { DEFAULT_WS_WRITE_WAIT, type WsConnection, type WsConnectionLimits } from './ws-connection.js'
import { createOriginCheck } from './ws-origins.js'

/** Options of the WebSocket listener (the `[json-rpc]` keys named in each comment). */
export interface WsRpcServerOptions {
  /** Listen host (`ws-address`); port 0 picks a free port. */
  host: string
  port: number
  /** Largest incoming message in bytes (`http-body-limit`, default 5 MiB). */
  maxMessageSize: number
  /** WebSocket connections at once (`max-open-connections`, default 900, CometBFT's); 0 = as many as the listener's descriptor share allows. */
  maxConnections: number
  /** Browser origins allowed to connect (`ws-origins`, default 127.0.0.1 and localhost). */
  origins: readonly string[]
  /**
   * Bytes that may wait in a connection's send buffer (default 32 MiB, above the 25 MB
   * `batch-response-max-size` so one full batch reply fits); a client past it is disconnected.
   */
  maxBufferedBytes: number
  /** Requests of one connection answered concurrently before its socket stops being read (default 100). */
  maxConcurrentRequests: number
  /** Ping period in ms; a connection silent (no frame, no pong) for two periods is closed (default 30 s, geth's). */
  pingInterval: number
  /** Write deadline in ms: a client whose waiting messages see none written for this long is dropped (default 10 s, geth's). */
  writeWait: number
  /** Who may call the private namespaces (caller-auth.ts), decided once at the upgrade. */
  auth: CallerAuth
}

/** Defaults: the limits of docs/decisions.md and geth's `rpc/websocket.go`. */
export const defaultWsRpcServerOptions: WsRpcServerOptions = {
  host: '127.0.0.1',
  port: 8546,
  maxMessageSize: 5 * 1024 * 1024,
  maxConnections: 900,
  origins: ['127.0.0.1', 'localhost'],
  maxBufferedBytes: 32 * 1024 * 1024,
  maxConcurrentRequests: 100,
  pingInterval: 30_000,
  writeWait: DEFAULT_WS_WRITE_WAIT,
  auth: denyAll,
}

/** The listener's options from `[json-rpc]`; the others keep their defaults. */
export function wsRpcServerOptionsFromConfig(config: JsonRpcConfig): WsRpcServerOptions {
  return {
    ...defaultWsRpcServerOptions,
    host: config.wsAddress.host,
    port: config.wsAddress.port,
    maxMessageSize: config.httpBodyLimit,
    maxConnections: config.maxOpenConnections,
    origins: config.wsOrigins,
  }
}

/** Time for the upgrade request to arrive (ms): geth's 30 s read timeout. */
const UPGRADE_READ_TIMEOUT = 30_000
/** Grace period of `close()` for clients to answer the close frame before their sockets are dropped (ms). */
const DEFAULT_CLOSE_GRACE = 1_000

/** geth's upgrader answer to a request that is not an upgrade. */
function refusePlainRequest(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' })
  res.end('websocket: the client is not using the websocket protocol\n')
}

/** The EVM surface over WebSocket. */
class EvmWsDialect implements WsDialect {
  readonly maxMessageSize: number
  readonly limits: WsConnectionLimits
  private readonly originAllowed: (origin: string | undefined) => boolean

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly opts: WsRpcServerOptions,
    private readonly log: Logger,
  ) {
    this.originAllowed = createOriginCheck(opts.origins)
    this.maxMessageSize = opts.maxMessageSize
    const { maxBufferedBytes, maxConcurrentRequests, pingInterval, writeWait } = opts
    this.limits = { maxBufferedBytes, maxConcurrentRequests, pingInterval, readWait: 2 * pingInterval, writeWait }
  }

  refuseUpgrade(req: IncomingMessage, open: number): UpgradeRefusal | undefined {
    const origin = req.headers.origin
    if (!this.originAllowed(origin)) {
      this.log.warn('rejected websocket connection', { origin })
      return { status: 403, text: 'websocket: request origin not allowed by Upgrader.CheckOrigin' }
    }
    const max = this.opts.maxConnections
    if (max > 0 && open >= max) return { status: 503, text: 'too many open connections' }
    return undefined
  }

  accept(conn: WsConnection, req: IncomingMessage): void {
    // Both decided once per connection: the caller's address cannot change, and a token is checked at the upgrade.
    const caller = { authorized: this.opts.auth(req), loopback: isLoopbackAddress(req.socket.remoteAddress) }
    const session = new EvmWsSession(conn, caller, this.dispatcher, this.log)
    conn.onMessage((text) => session.handle(text))
  }
}

/** The running WebSocket JSON-RPC listener. */
export class WsRpcServer extends HttpListener {
  /** Creates the server and listens on `opts.host:opts.port`. */
  static async start(dispatcher: Dispatcher, opts: WsRpcServerOptions, log: Logger): Promise<WsRpcServer> {
    const server = new WsRpcServer(
      {
        name: 'EVM JSON-RPC WebSocket',
        scheme: 'ws',
        host: opts.host,
        port: opts.port,
        // Sockets: the descriptor share; WebSockets: `maxConnections`, refused with 503 in refuseUpgrade.
        maxConnections: 0,
        readTimeout: UPGRADE_READ_TIMEOUT,
        serveTimeout: 0,
        idleTimeout: 0,
        maxHeaderSize: http.maxHeaderSize,
        closeGrace: DEFAULT_CLOSE_GRACE,
      },
      { handleRequest: refusePlainRequest, webSocket: new EvmWsDialect(dispatcher, opts, log) },
      log,
    )
    await server.listen()
    return server
  }
}
