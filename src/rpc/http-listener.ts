/**
 * The one HTTP listener of every RPC surface (`node:http` and `ws`); a dialect (dialect.ts) answers its
 * requests and serves its WebSockets, the listener gives every surface the same transport:
 * - a dialect that answers plain requests (`answerPlain`) gets a connection's keep-alive requests from
 *   the listener's own HTTP/1.1 parser (plain-http.ts), node:http gets the rest;
 * - `maxConnections` connections served at once, a bounded number more wait for a slot, and any beyond
 *   those are closed at once (connection-limiter.ts); both bounds fit the listener's share of the
 *   process's file descriptors (descriptor-budget.ts), whatever the configured cap; a WebSocket holds
 *   its slot until it closes;
 * - `readTimeout` bounds reading a request (headers and body), from the moment the connection is served
 *   for its first request (Go's ReadTimeout starts when the connection is accepted), `serveTimeout`
 *   socket inactivity while a request is served (Go's WriteTimeout), `idleTimeout` keep-alive (0 =
 *   `readTimeout`, as Go's IdleTimeout); `maxHeaderSize` bounds the request head (431 past it);
 * - WebSocket connections (ws-connection.ts) with the bounds of the dialect; an upgrade the dialect
 *   refuses, one asking for a WebSocket version other than 13, or one arriving while the listener
 *   closes, gets a plain-text HTTP error;
 * - `close()` stops accepting, closes idle keep-alive sockets, lets in-flight requests finish (their
 *   responses carry `Connection: close`), sends WebSockets a close frame (1001), tells the dialect so its
 *   long waits give up, and destroys whatever is still open after a grace period.
 */
import http, { STATUS_CODES, ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import { WebSocketServer } from 'ws'
import type { Logger } from '../utils/logger.js'
import { createLimitedListener, type LimitedListener } from './connection-limiter.js'
import { connectionBounds, listenerShare, readOpenFileLimit, type ConnectionBounds } from './descriptor-budget.js'
import type { RpcDialect, WsDialect } from './dialect.js'
import { formatUrl, listenOn, type BoundAddress } from './listen.js'
import { PlainConnection, REQUEST_TIMEOUT_RESPONSE, type PlainHttpOptions } from './plain-http.js'
import { WsConnection } from './ws-connection.js'

/** Options of a listener. Durations are milliseconds, sizes bytes. */
export interface HttpListenerOptions {
  /** Named in the log line once listening (`EVM JSON-RPC HTTP`). */
  name: string
  /** Scheme of `url`. */
  scheme: 'http' | 'ws'
  /** Listen host; port 0 picks a free port. */
  host: string
  port: number
  /** Connections served at once, further ones wait; 0 = as many as the listener's descriptor share allows. */
  maxConnections: number
  /** Time to receive a request's headers and body; 0 = none. */
  readTimeout: number
  /** Socket inactivity allowed while a request is served; 0 = none. */
  serveTimeout: number
  /** Keep-alive idle timeout; 0 = `readTimeout`. */
  idleTimeout: number
  /** Largest request head. */
  maxHeaderSize: number
  /** Default grace period of `close()` before open sockets are destroyed. */
  closeGrace: number
}

/** WebSocket close code 1001 (going away, RFC 6455 §7.4.1): the server is shutting down. */
const CLOSE_GOING_AWAY = 1001

/** The only WebSocket protocol version (RFC 6455 §4.1); an upgrade asking for another gets 426 naming it (§4.4). */
const WEBSOCKET_VERSION = '13'

/**
 * How often node:http looks for requests past `readTimeout` once a connection has been served (its
 * `connectionsCheckingInterval`, 30 s by default, which let a 10 s read timeout run to 40 s).
 */
const TIMEOUT_CHECK_INTERVAL = 1_000

/** Least time between two log lines about refused connections (ms). */
const REFUSAL_LOG_INTERVAL = 60_000

type Headers = OutgoingHttpHeaders | OutgoingHttpHeader[]

/** Responses that ask the client to close the connection once `closing()` holds (Go's shutting-down server does the same). */
function responseClass(closing: () => boolean): typeof ServerResponse<IncomingMessage> {
  return class ListenerResponse extends ServerResponse<IncomingMessage> {
    override writeHead(statusCode: number, message?: string | Headers, headers?: Headers): this {
      if (closing()) this.setHeader('Connection', 'close')
      return typeof message === 'string' ? super.writeHead(statusCode, message, headers) : super.writeHead(statusCode, message)
    }
  }
}

/** Answers an upgrade request with a plain HTTP error (and `extraHeaders`, CR LF terminated) and drops the socket. */
function rejectUpgrade(socket: Duplex, status: number, text: string, extraHeaders = ''): void {
  const body = text + '\n'
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      extraHeaders +
      'Connection: close\r\nContent-Type: text/plain; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
      body,
  )
}

/** `ip:port` of a peer as Go's `RemoteAddr` writes it (IPv6 in brackets). */
function remoteAddrOf(socket: Socket): string {
  const ip = socket.remoteAddress ?? ''
  return `${ip.includes(':') ? `[${ip}]` : ip}:${socket.remotePort ?? 0}`
}

/** A running listener; `listen()` binds it, `close()` ends it. */
export class HttpListener {
  private readonly http: http.Server
  private readonly sockets = new Set<Socket>()
  private readonly plainConnections = new Set<PlainConnection>()
  private readonly plainOptions: PlainHttpOptions | undefined
  private readonly webSockets = new Set<WsConnection>()
  /** Sockets served by node:http that have not sent a whole request head yet, with their read deadline. */
  private readonly firstRequestDeadlines = new Map<Socket, NodeJS.Timeout>()
  private front: LimitedListener | undefined
  private limits: ConnectionBounds | undefined
  private bound: BoundAddress | undefined
  private closing = false
  private closed: Promise<void> | undefined

  constructor(
    private readonly opts: HttpListenerOptions,
    private readonly dialect: RpcDialect,
    private readonly log: Logger,
  ) {
    this.http = http.createServer(
      {
        maxHeaderSize: opts.maxHeaderSize,
        ServerResponse: responseClass(() => this.closing),
        connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL,
      },
      (req, res) => {
        this.clearFirstRequestDeadline(req.socket)
        dialect.handleRequest(req, res)
      },
    )
    this.http.requestTimeout = opts.readTimeout
    this.http.headersTimeout = opts.readTimeout
    this.http.timeout = opts.serveTimeout
    this.http.keepAliveTimeout = opts.idleTimeout > 0 ? opts.idleTimeout : opts.readTimeout
    if (dialect.answerPlain) {
      const answerPlain = dialect.answerPlain.bind(dialect)
      this.plainOptions = {
        handler: answerPlain,
        handOff: (socket) => this.handOff(socket),
        closing: () => this.closing,
        readTimeout: opts.readTimeout,
        serveTimeout: opts.serveTimeout,
        idleTimeout: this.http.keepAliveTimeout,
        maxHeaderSize: opts.maxHeaderSize,
      }
    }
    const webSocket = dialect.webSocket
    if (webSocket) {
      const wss = new WebSocketServer({ noServer: true, maxPayload: webSocket.maxMessageSize, perMessageDeflate: false })
      this.http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.onUpgrade(wss, webSocket, req, socket, head))
    }
  }

  /** Listens on `host:port`. */
  async listen(): Promise<void> {
    const configured = this.opts.maxConnections
    const limits = connectionBounds(configured, listenerShare(readOpenFileLimit()))
    this.limits = limits
    if (configured > limits.maxConnections) {
      this.log.warn('connection cap lowered to fit the open-file limit', {
        listener: this.opts.name,
        configured,
        maxConnections: limits.maxConnections,
        hint: 'raise the limit (ulimit -n) to serve more connections',
      })
    }
    let refused = 0
    let warnedAt = Number.NEGATIVE_INFINITY
    this.front = createLimitedListener(
      (socket) => this.serve(socket),
      limits.maxConnections,
      limits.maxQueued,
      () => {
        refused++
        // At most one line a minute: a flood of connections must not flood the log too.
        const now = performance.now()
        if (now - warnedAt < REFUSAL_LOG_INTERVAL) return
        warnedAt = now
        this.log.warn('connections refused: every slot and the wait queue are taken', { listener: this.opts.name, ...limits, refused })
        refused = 0
      },
    )
    // The HTTP server never listens itself: start its connection tracking (timeouts, idle closing).
    this.http.emit('listening')
    this.bound = await listenOn(this.front.server, this.opts.host, this.opts.port)
    this.log.info(`${this.opts.name} listening`, { url: this.url })
  }

  /**
   * Serves an accepted socket (paused): on the plain parser when the dialect answers plain requests (it
   * times the first request itself), else on node:http, whose own timeouts start only with a request's
   * first byte and are checked on a sweep: the first request head must arrive within `readTimeout`.
   */
  private serve(socket: Socket): void {
    this.sockets.add(socket)
    const conn = this.plainOptions && new PlainConnection(socket, this.plainOptions)
    socket.once('close', () => {
      this.sockets.delete(socket)
      this.clearFirstRequestDeadline(socket)
      if (conn) this.plainConnections.delete(conn)
    })
    if (conn) return void this.plainConnections.add(conn)
    if (this.opts.readTimeout > 0) {
      const timer = setTimeout(() => {
        this.firstRequestDeadlines.delete(socket)
        // As Node.js answers a request past its `requestTimeout`.
        socket.write(REQUEST_TIMEOUT_RESPONSE)
        socket.destroySoon()
      }, this.opts.readTimeout)
      timer.unref()
      this.firstRequestDeadlines.set(socket, timer)
    }
    this.handOff(socket)
  }

  /** A request head has arrived on `socket`: node:http's timeouts govern it from now on. */
  private clearFirstRequestDeadline(socket: Socket): void {
    const timer = this.firstRequestDeadlines.get(socket)
    if (timer === undefined) return
    clearTimeout(timer)
    this.firstRequestDeadlines.delete(socket)
  }

  /** node:http serves the socket from now on. */
  private handOff(socket: Socket): void {
    this.http.emit('connection', socket)
    socket.resume()
  }

  /** The bound address (the real port when 0 was asked). */
  get address(): BoundAddress {
    if (this.bound === undefined) throw new Error('server is not listening')
    return this.bound
  }

  /** `scheme://host:port` of the bound address. */
  get url(): string {
    return formatUrl(this.opts.scheme, this.address)
  }

  /** Open WebSocket connections. */
  get webSocketCount(): number {
    return this.webSockets.size
  }

  /** Connections served at once and connections that may wait beyond them, as sized at `listen()`. */
  get connectionLimits(): ConnectionBounds {
    if (this.limits === undefined) throw new Error('server is not listening')
    return this.limits
  }

  /**
   * Stops accepting, closes idle keep-alive sockets, lets in-flight requests finish, sends every
   * WebSocket a close frame and destroys what remains after `graceMs`; resolves once every connection
   * is gone. Idempotent.
   */
  close(graceMs = this.opts.closeGrace): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      this.closing = true
      this.dialect.onClose?.()
      const timer = setTimeout(() => {
        for (const conn of this.webSockets) conn.terminate()
        for (const socket of this.sockets) socket.destroy()
      }, graceMs)
      timer.unref()
      const done = (): void => {
        clearTimeout(timer)
        resolve()
      }
      if (this.front) this.front.close(done)
      else done()
      this.http.close(() => {})
      this.http.closeIdleConnections()
      for (const conn of this.plainConnections) conn.closeIfIdle()
      for (const conn of this.webSockets) conn.close(CLOSE_GOING_AWAY, 'server shutting down')
    })
    return this.closed
  }

  private onUpgrade(wss: WebSocketServer, webSocket: WsDialect, req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.clearFirstRequestDeadline(req.socket)
    socket.on('error', () => {})
    if (this.closing) return rejectUpgrade(socket, 503, 'server is shutting down')
    const refusal = webSocket.refuseUpgrade(req, this.webSockets.size)
    if (refusal) return rejectUpgrade(socket, refusal.status, refusal.text)
    // `ws` also takes version 8 (and any text JavaScript reads as 13, such as "0xd"); RFC 6455 §4.4: 426
    // with the versions served. An upgrade to another protocol is left to `ws` (400).
    const version = req.headers['sec-websocket-version']
    if (req.headers.upgrade?.toLowerCase() === 'websocket' && version?.trim() !== WEBSOCKET_VERSION) {
      return rejectUpgrade(
        socket,
        426,
        "websocket: unsupported version: 13 not found in 'Sec-Websocket-Version' header",
        `Sec-WebSocket-Version: ${WEBSOCKET_VERSION}\r\n`,
      )
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const conn = new WsConnection(ws, remoteAddrOf(req.socket), webSocket.limits, this.log)
      this.webSockets.add(conn)
      conn.onClose(() => this.webSockets.delete(conn))
      webSocket.accept(conn, req)
    })
  }
}
