/**
 * The EVM JSON-RPC WebSocket listener (`--json-rpc.ws-address`) on `node:http` and `ws`. Every message
 * goes through the same Dispatcher as HTTP (all enabled methods, batches, notifications), so the two
 * transports cannot drift; eth_subscribe works here because each connection is a `NotificationSink`
 * (ws-connection.ts). Unlike Evmos, which proxies non-subscription calls to its HTTP port and accepts
 * only numeric ids, nothing here depends on the HTTP server and ids may be numbers or strings.
 * Limits:
 * - `ws-origins` on the browser `Origin` header (ws-origins.ts), else 403;
 * - `max-open-connections` WebSocket connections at once (0 = unlimited), else 503;
 * - messages up to `http-body-limit` bytes, else the connection is closed with 1009 (message too big);
 * - a client that does not read is disconnected (`maxBufferedBytes`), one that floods requests is no
 *   longer read until its replies are out (`maxConcurrentRequests`), a silent one is dropped after a
 *   missed ping.
 */
import http, { STATUS_CODES, type IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import { formatUrl, listenOn } from './listen.js'
import type { Duplex } from 'node:stream'
import { WebSocketServer } from 'ws'
import type { JsonRpcConfig } from '../config/node-config.js'
import type { Logger } from '../utils/logger.js'
import type { Dispatcher } from './dispatcher.js'
import { WsRpcConnection } from './ws-connection.js'
import { createOriginCheck } from './ws-origins.js'
import { denyAll, isLoopbackAddress, type CallerAuth } from './caller-auth.js'

/** Options of the WebSocket listener (the `[json-rpc]` keys named in each comment). */
export interface WsRpcServerOptions {
  /** Listen host (`ws-address`); port 0 picks a free port. */
  host: string
  port: number
  /** Largest incoming message in bytes (`http-body-limit`, default 5 MiB). */
  maxMessageSize: number
  /** WebSocket connections at once (`max-open-connections`); 0 = unlimited. */
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
  /** Ping period in ms; a connection without a pong by the next ping is closed (default 30 s, geth's). */
  pingInterval: number
  /** Who may call the private namespaces (caller-auth.ts), decided once at the upgrade. */
  auth: CallerAuth
}

/** Defaults from shared/spec/decisions.md and geth's `rpc/websocket.go`. */
export const defaultWsRpcServerOptions: WsRpcServerOptions = {
  host: '127.0.0.1',
  port: 8546,
  maxMessageSize: 5 * 1024 * 1024,
  maxConnections: 0,
  origins: ['127.0.0.1', 'localhost'],
  maxBufferedBytes: 32 * 1024 * 1024,
  maxConcurrentRequests: 100,
  pingInterval: 30_000,
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

/** WebSocket close code 1001 (going away, RFC 6455 §7.4.1): the server is shutting down. */
const CLOSE_GOING_AWAY = 1001
/** Grace period of `close()` for clients to answer the close frame before their sockets are dropped (ms). */
const DEFAULT_CLOSE_GRACE = 1_000

/** Answers an upgrade request with a plain HTTP error and drops the socket. */
function rejectUpgrade(socket: Duplex, status: number, text: string): void {
  const body = text + '\n'
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Connection: close\r\nContent-Type: text/plain; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
      body,
  )
}

/** The running WebSocket JSON-RPC listener. */
export class WsRpcServer {
  private readonly http: http.Server
  private readonly wss: WebSocketServer
  private readonly connections = new Set<WsRpcConnection>()
  private readonly originAllowed: (origin: string | undefined) => boolean
  private bound: { host: string; port: number } | undefined
  private closed: Promise<void> | undefined

  private constructor(
    private readonly dispatcher: Dispatcher,
    private readonly opts: WsRpcServerOptions,
    private readonly log: Logger,
  ) {
    this.originAllowed = createOriginCheck(opts.origins)
    this.wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxMessageSize, perMessageDeflate: false })
    this.http = http.createServer((_req, res) => {
      res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' })
      res.end('websocket: the client is not using the websocket protocol\n')
    })
    this.http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.onUpgrade(req, socket, head))
  }

  /** Creates the server and listens on `opts.host:opts.port`. */
  static async start(dispatcher: Dispatcher, opts: WsRpcServerOptions, log: Logger): Promise<WsRpcServer> {
    const server = new WsRpcServer(dispatcher, opts, log)
    server.bound = await listenOn(server.http, opts.host, opts.port)
    log.info('EVM JSON-RPC WebSocket listening', { url: server.url })
    return server
  }

  /** The bound address (the real port when 0 was asked). */
  get address(): { host: string; port: number } {
    if (this.bound === undefined) throw new Error('server is not listening')
    return this.bound
  }

  /** `ws://host:port` of the bound address. */
  get url(): string {
    return formatUrl('ws', this.address)
  }

  /** Open connections. */
  get connectionCount(): number {
    return this.connections.size
  }

  /**
   * Stops accepting, sends every client a close frame (1001) and drops the sockets still open after
   * `graceMs`; their subscriptions end with them. Idempotent.
   */
  close(graceMs = DEFAULT_CLOSE_GRACE): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      this.http.close(() => resolve())
      for (const conn of this.connections) conn.close(CLOSE_GOING_AWAY, 'server shutting down')
      const timer = setTimeout(() => {
        for (const conn of this.connections) conn.terminate()
      }, graceMs)
      timer.unref()
      this.http.once('close', () => clearTimeout(timer))
      this.http.closeIdleConnections()
    })
    return this.closed
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => {})
    if (this.closed) return rejectUpgrade(socket, 503, 'server is shutting down')
    const origin = req.headers.origin
    if (!this.originAllowed(origin)) {
      this.log.warn('rejected websocket connection', { origin })
      return rejectUpgrade(socket, 403, 'websocket: request origin not allowed by Upgrader.CheckOrigin')
    }
    const max = this.opts.maxConnections
    if (max > 0 && this.connections.size >= max) return rejectUpgrade(socket, 503, 'too many open connections')
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const remoteAddress = (socket as Socket).remoteAddress
      const remote = `${remoteAddress ?? ''}:${(socket as Socket).remotePort ?? ''}`
      // Both decided once per connection: the caller's address cannot change, and a token is checked at the upgrade.
      const caller = { authorized: this.opts.auth(req), loopback: isLoopbackAddress(remoteAddress) }
      const conn = new WsRpcConnection(ws, remote, caller, this.dispatcher, this.opts, this.log)
      this.connections.add(conn)
      conn.onClose(() => this.connections.delete(conn))
    })
  }
}
