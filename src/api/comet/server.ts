/**
 * The consensus-engine RPC listener (CometBFT `rpc/jsonrpc/server` as wired by `node.startRPC`): one
 * node:http server with `/` (JSON-RPC POST, HTML route list), `/<route>` (URI), `/websocket`
 * (JSON-RPC over WebSocket), CORS when configured, `X-Server-Time` on every response, and the
 * body, header, batch and connection limits of `[rpc]`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { formatUrl, listenOn } from '../../rpc/listen.js'
import type { Duplex } from 'node:stream'
import { WebSocketServer } from 'ws'
import { silentLogger, type Logger } from '../../utils/logger.js'
import type { CometBackend } from './backend.js'
import { applyCors } from './cors.js'
import { RouteDispatcher } from './dispatch.js'
import { handleJsonRpc, handleUri, writeNotFound, type HttpLimits } from './http-handlers.js'
import { defaultCometRpcOptions, type CometRpcOptions } from './options.js'
import type { EventSubscriptions } from './route.js'
import { WsConnection } from './ws-connection.js'

/** The WebSocket endpoint path. */
export const WEBSOCKET_PATH = '/websocket'

/** What the server is built from. */
export interface CometRpcServerDeps {
  backend: CometBackend
  options?: Partial<CometRpcOptions>
  log?: Logger
  /** The event system behind subscribe/unsubscribe; without it they answer with errors. */
  subscriptions?: EventSubscriptions
}

/** `ip:port` as Go's `RemoteAddr` writes it (IPv6 in brackets). */
function remoteAddrOf(socket: Socket): string {
  const ip = socket.remoteAddress ?? ''
  return `${ip.includes(':') ? `[${ip}]` : ip}:${socket.remotePort ?? 0}`
}

/** The consensus RPC server. `start()` listens; `close()` stops it and every connection. */
export class CometRpcServer {
  readonly options: CometRpcOptions
  private readonly log: Logger
  private readonly http: Server
  private readonly wss: WebSocketServer
  private readonly dispatcher: RouteDispatcher
  private readonly abort = new AbortController()
  private readonly connections = new Set<WsConnection>()
  private readonly subscriptions?: EventSubscriptions
  private listening = false

  constructor(deps: CometRpcServerDeps) {
    this.options = { ...defaultCometRpcOptions, ...deps.options }
    this.log = deps.log ?? silentLogger
    this.subscriptions = deps.subscriptions
    this.dispatcher = new RouteDispatcher({
      backend: deps.backend,
      options: { timeoutBroadcastTxCommit: this.options.timeoutBroadcastTxCommit },
      log: this.log,
      signal: this.abort.signal,
      subscriptions: deps.subscriptions,
    })
    this.http = createServer({ maxHeaderSize: this.options.maxHeaderBytes }, (req, res) => this.onRequest(req, res))
    this.http.headersTimeout = this.options.readTimeout
    this.http.requestTimeout = this.options.readTimeout
    if (this.options.maxOpenConnections > 0) this.http.maxConnections = this.options.maxOpenConnections
    // CometBFT's upgrader accepts every Origin (CheckOrigin returns true).
    this.wss = new WebSocketServer({ noServer: true, maxPayload: this.options.maxBodyBytes })
    this.http.on('upgrade', (req, socket, head) => this.onUpgrade(req, socket, head))
  }

  /** Starts listening on `options.listen` (port 0 = any free port). */
  async start(): Promise<void> {
    const { host, port } = this.options.listen
    await listenOn(this.http, host, port)
    this.listening = true
    this.log.info('consensus rpc listening', { url: this.url() })
  }

  /** The bound address (the real port when started with port 0). */
  address(): { host: string; port: number } {
    const a = this.http.address() as AddressInfo | null
    if (!a) throw new Error('consensus rpc server is not listening')
    return { host: a.address, port: a.port }
  }

  /** `http://host:port` of the bound address. */
  url(): string {
    return formatUrl('http', this.address())
  }

  /** Stops accepting, ends waits (broadcast_tx_commit), closes WebSockets and open connections. Idempotent. */
  async close(): Promise<void> {
    this.abort.abort()
    for (const c of this.connections) c.terminate()
    this.connections.clear()
    this.wss.close()
    if (!this.listening) return
    this.listening = false
    await new Promise<void>((resolve) => {
      this.http.close(() => resolve())
      this.http.closeAllConnections()
    })
  }

  private limits(): HttpLimits {
    return { maxBodyBytes: this.options.maxBodyBytes, maxRequestBatchSize: this.options.maxRequestBatchSize }
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    res.setHeader('X-Server-Time', Math.floor(Date.now() / 1000).toString())
    const cors = { allowedOrigins: this.options.corsAllowedOrigins, allowedMethods: this.options.corsAllowedMethods, allowedHeaders: this.options.corsAllowedHeaders }
    if (applyCors(cors, req, res)) return
    this.route(req, res).catch((err) => {
      this.log.error('consensus rpc request failed', { url: req.url, err })
      if (!res.headersSent) {
        res.writeHead(500)
        res.end()
      }
    })
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname
    if (path === '/') return handleJsonRpc(this.dispatcher, this.limits(), req, res)
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
    return handleUri(this.dispatcher, this.limits(), route, req, res)
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname
    if (path !== WEBSOCKET_PATH || this.abort.signal.aborted) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n404 page not found\n')
      return
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const conn = new WsConnection(
        ws,
        remoteAddrOf(req.socket),
        this.dispatcher,
        { readWait: this.options.wsReadWait, pingPeriod: this.options.wsPingPeriod, writeBufferSize: this.options.wsWriteBufferSize },
        this.log,
        this.subscriptions,
      )
      this.connections.add(conn)
      ws.on('close', () => this.connections.delete(conn))
    })
  }
}
