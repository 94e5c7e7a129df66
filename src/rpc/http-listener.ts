/**
 * The one HTTP listener of every RPC surface (`node:http` and `ws`); a dialect (dialect.ts) answers its
 * requests and serves its WebSockets, the listener gives every surface the same transport:
 * - a dialect that answers plain requests (`answerPlain`) gets a connection's keep-alive requests from
 *   the listener's own HTTP/1.1 parser (plain-http.ts), node:http gets the rest;
 * - `maxConnections` connections served at once, further ones wait for a slot (connection-limiter.ts);
 *   a WebSocket holds its slot until it closes;
 * - `readTimeout` bounds reading a request (headers and body), `serveTimeout` socket inactivity while a
 *   request is served (Go's Read/WriteTimeout), `idleTimeout` keep-alive (0 = `readTimeout`, as Go's
 *   IdleTimeout); `maxHeaderSize` bounds the request head (431 past it);
 * - WebSocket connections (ws-connection.ts) with the bounds of the dialect; an upgrade the dialect
 *   refuses, or one arriving while the listener closes, gets a plain-text HTTP error;
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
import type { RpcDialect, WsDialect } from './dialect.js'
import { formatUrl, listenOn, type BoundAddress } from './listen.js'
import { PlainConnection, type PlainHttpOptions } from './plain-http.js'
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
  /** Connections served at once, further ones wait; 0 = unlimited. */
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
  private front: LimitedListener | undefined
  private bound: BoundAddress | undefined
  private closing = false
  private closed: Promise<void> | undefined

  constructor(
    private readonly opts: HttpListenerOptions,
    private readonly dialect: RpcDialect,
    private readonly log: Logger,
  ) {
    this.http = http.createServer({ maxHeaderSize: opts.maxHeaderSize, ServerResponse: responseClass(() => this.closing) }, (req, res) =>
      dialect.handleRequest(req, res),
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
    const max = this.opts.maxConnections > 0 ? this.opts.maxConnections : Number.POSITIVE_INFINITY
    this.front = createLimitedListener((socket) => this.serve(socket), max)
    // The HTTP server never listens itself: start its connection tracking (timeouts, idle closing).
    this.http.emit('listening')
    this.bound = await listenOn(this.front.server, this.opts.host, this.opts.port)
    this.log.info(`${this.opts.name} listening`, { url: this.url })
  }

  /** Serves an accepted socket (paused): on the plain parser when the dialect answers plain requests. */
  private serve(socket: Socket): void {
    this.sockets.add(socket)
    const conn = this.plainOptions && new PlainConnection(socket, this.plainOptions)
    socket.once('close', () => {
      this.sockets.delete(socket)
      if (conn) this.plainConnections.delete(conn)
    })
    if (conn) this.plainConnections.add(conn)
    else this.handOff(socket)
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
    socket.on('error', () => {})
    if (this.closing) return rejectUpgrade(socket, 503, 'server is shutting down')
    const refusal = webSocket.refuseUpgrade(req, this.webSockets.size)
    if (refusal) return rejectUpgrade(socket, refusal.status, refusal.text)
    wss.handleUpgrade(req, socket, head, (ws) => {
      const conn = new WsConnection(ws, remoteAddrOf(req.socket), webSocket.limits, this.log)
      this.webSockets.add(conn)
      conn.onClose(() => this.webSockets.delete(conn))
      webSocket.accept(conn, req)
    })
  }
}
