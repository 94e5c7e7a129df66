/**
 * The consensus-engine RPC (CometBFT `rpc/jsonrpc/server` as wired by `node.startRPC`) as a dialect of
 * the shared listener (rpc/http-listener.ts): `/` (JSON-RPC POST, HTML route list), `/<route>` (URI),
 * `/websocket` (JSON-RPC over WebSocket, the only path that upgrades), CORS when `cors_allowed_origins`
 * is set, `X-Server-Time` on every response. The listener applies the `[rpc]` body, header and
 * connection limits, keepalive and the write bound of WebSockets, and the graceful close, which also
 * ends long waits (broadcast_tx_commit).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Cors } from '../../rpc/cors.js'
import type { RpcDialect, WsDialect } from '../../rpc/dialect.js'
import { HttpListener } from '../../rpc/http-listener.js'
import { silentLogger, type Logger } from '../../utils/logger.js'
import type { CometBackend } from './backend.js'
import { RouteDispatcher } from './dispatch.js'
import { handleJsonRpc, handleUri, writeNotFound, type HttpLimits } from './http-handlers.js'
import { defaultCometRpcOptions, type CometRpcOptions } from './options.js'
import type { EventSubscriptions } from './route.js'
import { CometWsSession } from './ws-session.js'

/** The WebSocket endpoint path. */
export const WEBSOCKET_PATH = '/websocket'

/** Requests of one WebSocket connection waiting for their turn before its socket stops being read. */
const WS_MAX_QUEUED_REQUESTS = 100
/** Default grace period of `close()` for in-flight requests and WebSocket close handshakes (ms). */
const DEFAULT_CLOSE_GRACE = 5_000

/** What the server is built from. */
export interface CometRpcServerDeps {
  backend: CometBackend
  options?: Partial<CometRpcOptions>
  log?: Logger
  /** The event system behind subscribe/unsubscribe; without it they answer with errors. */
  subscriptions?: EventSubscriptions
}

function pathOf(req: IncomingMessage): string {
  return new URL(req.url ?? '/', 'http://localhost').pathname
}

/** How the consensus RPC answers HTTP requests and serves `/websocket`. */
class CometDialect implements RpcDialect {
  readonly webSocket: WsDialect
  private readonly abort = new AbortController()
  private readonly dispatcher: RouteDispatcher
  private readonly cors: Cors
  private readonly limits: HttpLimits

  constructor(
    deps: CometRpcServerDeps,
    options: CometRpcOptions,
    private readonly log: Logger,
  ) {
    this.dispatcher = new RouteDispatcher({
      backend: deps.backend,
      options: { timeoutBroadcastTxCommit: options.timeoutBroadcastTxCommit },
      log,
      signal: this.abort.signal,
      subscriptions: deps.subscriptions,
    })
    this.cors = new Cors({ origins: options.corsAllowedOrigins, methods: options.corsAllowedMethods, headers: options.corsAllowedHeaders })
    this.limits = { maxBodyBytes: options.maxBodyBytes, maxRequestBatchSize: options.maxRequestBatchSize }
    this.webSocket = {
      maxMessageSize: options.maxBodyBytes,
      limits: {
        maxBufferedBytes: options.wsMaxBufferedBytes,
        maxConcurrentRequests: WS_MAX_QUEUED_REQUESTS,
        pingInterval: options.wsPingPeriod,
        readWait: options.wsReadWait,
        writeWait: options.wsWriteWait,
      },
      // CometBFT's upgrader accepts every Origin (CheckOrigin returns true).
      refuseUpgrade: (req) => (pathOf(req) === WEBSOCKET_PATH ? undefined : { status: 404, text: '404 page not found' }),
      accept: (conn) => {
        const session = new CometWsSession(conn, this.dispatcher, options.wsWriteBufferSize, log, deps.subscriptions)
        conn.onMessage((text) => session.handle(text))
      },
    }
  }

  handleRequest(req: IncomingMessage, res: ServerResponse): void {
    res.setHeader('X-Server-Time', Math.floor(Date.now() / 1000).toString())
    const cors = this.cors
    if (cors.isPreflight(req)) return cors.answerPreflight(req, res)
    if (cors.enabled) {
      res.setHeader('Vary', 'Origin')
      const origin = cors.allowedOrigin(req)
      if (origin !== undefined) res.setHeader('Access-Control-Allow-Origin', origin)
    }
    this.route(req, res).catch((err) => {
      this.log.error('consensus rpc request failed', { url: req.url, err })
      if (!res.headersSent) {
        res.writeHead(500)
        res.end()
      }
    })
  }

  onClose(): void {
    this.abort.abort()
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = pathOf(req)
    if (path === '/') return handleJsonRpc(this.dispatcher, this.limits, req, res)
    if (path === WEBSOCKET_PATH) {
      // gorilla/websocket's answer to a request that is not an upgrade.
      res.setHeader('Sec-Websocket-Version', '13')
      res.setHeader('Content-Type', 'text/plain; charset=utf-8')
      res.setHeader('X-Content-Type-Options', 'nosniff')
      res.writeHead(400)
      res.end('Bad Request\n')
      return
    }
    const route = this.dispatcher.routes.get(path.slice(1))
    if (!route) return writeNotFound(res)
    return handleUri(this.dispatcher, this.limits, route, req, res)
  }
}

/** The consensus RPC server: the shared listener speaking CometBFT's dialect. */
export class CometRpcServer extends HttpListener {
  /** Creates the server and listens on `options.listen` (port 0 = any free port). */
  static async start(deps: CometRpcServerDeps): Promise<CometRpcServer> {
    const options = { ...defaultCometRpcOptions, ...deps.options }
    const log = deps.log ?? silentLogger
    const server = new CometRpcServer(
      {
        name: 'consensus rpc',
        scheme: 'http',
        host: options.listen.host,
        port: options.listen.port,
        maxConnections: options.maxOpenConnections,
        readTimeout: options.readTimeout,
        // CometBFT's WriteTimeout outlasts timeout_broadcast_tx_commit, during which the socket is silent.
        serveTimeout: 0,
        // Go's IdleTimeout left at 0: the read timeout.
        idleTimeout: 0,
        maxHeaderSize: options.maxHeaderBytes,
        closeGrace: DEFAULT_CLOSE_GRACE,
      },
      new CometDialect(deps, options, log),
      log,
    )
    await server.listen()
    return server
  }
}
