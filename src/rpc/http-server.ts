/**
 * The EVM JSON-RPC HTTP listener on `node:http` (Evmos: a gorilla router accepting only `POST /` in
 * front of geth's HTTP handler; reference/evmos-jsonrpc.md §4.1):
 * - `POST /` only: another path → 404 `404 page not found`, another method on `/` → 405;
 * - Content-Type `application/json`, `application/json-rpc` or `application/jsonrequest` (parameters
 *   such as `charset` allowed), else 415 `invalid content type, only application/json is supported`;
 * - body larger than `http-body-limit` → 413 with a JSON-RPC error (-32600 `content length too large
 *   (N>limit)`), decided from Content-Length before reading, or while streaming without keeping more
 *   than the limit; the rest of the body is drained so the client reads the answer;
 * - JSON-RPC errors travel with HTTP 200, except a refused private-namespace call (-32001), which makes
 *   the reply 401 (caller-auth.ts); a notification-only request gets 200 with an empty body;
 * - CORS per `cors.ts`; `max-open-connections` per `connection-limiter.ts`;
 * - `http-timeout` bounds reading a request (headers and body) and socket inactivity while a request is
 *   served (Go's Read/WriteTimeout); `http-idle-timeout` is the keep-alive timeout.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import type { Server as NetServer, Socket } from 'node:net'
import { formatUrl, listenOn } from './listen.js'
import type { Logger } from '../utils/logger.js'
import { createLimitedListener, type LimitedListener } from './connection-limiter.js'
import { allowsActualRequest, answerPreflight, isPreflight, type CorsMode } from './cors.js'
import type { DispatchResult, Dispatcher } from './dispatcher.js'
import type { CallContext } from './method-table.js'
import { denyAll, isLoopbackAddress, type CallerAuth } from './caller-auth.js'

/** Options of the HTTP listener (the `[json-rpc]` keys named in each comment). */
export interface HttpRpcServerOptions {
  /** Listen host (`address`); port 0 picks a free port. */
  host: string
  port: number
  /** Largest request body in bytes (`http-body-limit`, default 5 MiB). */
  bodyLimit: number
  /** Read/serve timeout in ms (`http-timeout`, default 30 s); 0 = none. */
  timeout: number
  /** Keep-alive idle timeout in ms (`http-idle-timeout`, default 120 s); 0 = use `timeout`. */
  idleTimeout: number
  /** Connections served at once (`max-open-connections`); 0 = unlimited. */
  maxOpenConnections: number
  /** `allow-all` when `enabled-unsafe-cors`, else rs/cors' default policy. */
  cors: CorsMode
  /** Who may call the private namespaces (caller-auth.ts); a refused call makes the reply HTTP 401. */
  auth: CallerAuth
}

/** Defaults from reference/evmos-jsonrpc.md §2 and shared/spec/decisions.md. */
export const defaultHttpRpcServerOptions: HttpRpcServerOptions = {
  host: '127.0.0.1',
  port: 8545,
  bodyLimit: 5 * 1024 * 1024,
  timeout: 30_000,
  idleTimeout: 120_000,
  maxOpenConnections: 0,
  cors: 'default',
  auth: denyAll,
}

/**
 * The shared contexts of HTTP calls (no notifications: eth_subscribe answers -32000), one per
 * combination of authorised and loopback, so a request costs no context object.
 */
const httpContext = (authorized: boolean, loopback: boolean): CallContext => Object.freeze({ transport: 'http', authorized, loopback })
const AUTHORIZED_LOOPBACK = httpContext(true, true)
const AUTHORIZED_REMOTE = httpContext(true, false)
const UNAUTHORIZED_LOOPBACK = httpContext(false, true)
const UNAUTHORIZED_REMOTE = httpContext(false, false)

const ACCEPTED_CONTENT_TYPES = new Set(['application/json', 'application/json-rpc', 'application/jsonrequest'])
/** Grace period of `close()` for in-flight requests before their sockets are destroyed (ms). */
const DEFAULT_CLOSE_GRACE = 5_000

function isAcceptedContentType(value: string | undefined): boolean {
  if (value === undefined) return false
  if (value === 'application/json') return true
  const semi = value.indexOf(';')
  return ACCEPTED_CONTENT_TYPES.has((semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase())
}

/** A plain-text error page, as Go's `http.Error`, with the CORS headers of the request. */
function sendText(res: ServerResponse, cors: boolean, status: number, text: string, extra?: Record<string, string>): void {
  const headers: Record<string, string> = { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', Vary: 'Origin', ...extra }
  if (cors) headers['Access-Control-Allow-Origin'] = '*'
  res.writeHead(status, headers)
  res.end(text + '\n')
}

/**
 * Bytes of an oversized body read and thrown away after the 413: the client can finish sending and read
 * the answer instead of a broken pipe; a client that keeps sending past this loses its connection.
 */
const DRAIN_LIMIT = 64 * 1024 * 1024

/**
 * 413 with a JSON-RPC error body (-32600, id null), then the rest of the body is drained (up to
 * {@link DRAIN_LIMIT}) rather than the socket closed under a client that is still writing.
 */
function refuseTooLarge(req: IncomingMessage, res: ServerResponse, cors: boolean, size: string, limit: number): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `content length too large (${size}>${limit})` } })
  const headers: Record<string, string | number> = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Vary: 'Origin' }
  if (cors) headers['Access-Control-Allow-Origin'] = '*'
  res.writeHead(413, headers)
  res.end(body)
  req.removeAllListeners('data')
  req.removeAllListeners('end')
  let drained = 0
  req.on('data', (chunk: Buffer) => {
    drained += chunk.length
    if (drained > DRAIN_LIMIT) req.socket.destroy()
  })
  req.resume()
}

/** The running HTTP JSON-RPC listener. */
export class HttpRpcServer {
  private readonly http: http.Server
  private limiter: LimitedListener | undefined
  private readonly sockets = new Set<Socket>()
  private bound: { host: string; port: number } | undefined
  private closing = false
  private closed: Promise<void> | undefined

  private constructor(
    private readonly dispatcher: Dispatcher,
    private readonly opts: HttpRpcServerOptions,
    private readonly log: Logger,
  ) {
    this.http = http.createServer((req, res) => this.onRequest(req, res))
    const timeout = opts.timeout
    this.http.requestTimeout = timeout
    this.http.headersTimeout = timeout
    this.http.timeout = timeout
    this.http.keepAliveTimeout = opts.idleTimeout > 0 ? opts.idleTimeout : timeout
    this.http.on('connection', (socket: Socket) => {
      this.sockets.add(socket)
      socket.once('close', () => this.sockets.delete(socket))
    })
  }

  /** Creates the server and listens on `opts.host:opts.port`. */
  static async start(dispatcher: Dispatcher, opts: HttpRpcServerOptions, log: Logger): Promise<HttpRpcServer> {
    const server = new HttpRpcServer(dispatcher, opts, log)
    await server.listen()
    return server
  }

  /** The bound address (the real port when 0 was asked). */
  get address(): { host: string; port: number } {
    if (this.bound === undefined) throw new Error('server is not listening')
    return this.bound
  }

  /** `http://host:port` of the bound address. */
  get url(): string {
    return formatUrl('http', this.address)
  }

  private async listen(): Promise<void> {
    let listener: NetServer = this.http
    if (this.opts.maxOpenConnections > 0) {
      this.limiter = createLimitedListener(this.http, this.opts.maxOpenConnections)
      listener = this.limiter.server
      // The HTTP server never listens itself: start its connection tracking (timeouts, idle closing).
      this.http.emit('listening')
    }
    this.bound = await listenOn(listener, this.opts.host, this.opts.port)
    this.log.info('EVM JSON-RPC HTTP listening', { url: this.url })
  }

  /**
   * Stops accepting, closes idle keep-alive connections, lets in-flight requests finish (their
   * responses carry `Connection: close`) and destroys what remains after `graceMs`. Idempotent.
   */
  close(graceMs = DEFAULT_CLOSE_GRACE): Promise<void> {
    if (this.closed) return this.closed
    this.closing = true
    this.closed = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        for (const socket of this.sockets) socket.destroy()
      }, graceMs)
      timer.unref()
      const done = (): void => {
        clearTimeout(timer)
        resolve()
      }
      if (this.limiter) {
        this.limiter.close(done)
        this.http.close(() => {})
      } else {
        this.http.close(() => done())
      }
      this.http.closeIdleConnections()
    })
    return this.closed
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    if (isPreflight(req)) return answerPreflight(this.opts.cors, req, res)
    const cors = allowsActualRequest(this.opts.cors, req)
    const url = req.url ?? ''
    if (url !== '/' && !url.startsWith('/?')) return sendText(res, cors, 404, '404 page not found')
    if (req.method !== 'POST') return sendText(res, cors, 405, 'method not allowed', { Allow: 'POST, OPTIONS' })
    const limit = this.opts.bodyLimit
    const declared = req.headers['content-length']
    if (declared !== undefined && Number(declared) > limit) return refuseTooLarge(req, res, cors, declared, limit)
    if (!isAcceptedContentType(req.headers['content-type'])) {
      return sendText(res, cors, 415, 'invalid content type, only application/json is supported')
    }
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        if (!res.headersSent) refuseTooLarge(req, res, cors, String(size), limit)
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => {
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)
      const reply = { status: 200 }
      let out: DispatchResult | Promise<DispatchResult>
      try {
        out = this.dispatcher.handle(body.toString('utf8'), this.contextOf(req, reply))
      } catch (err) {
        this.log.error('rpc dispatch failed', { error: err instanceof Error ? err.stack : String(err) })
        return sendText(res, cors, 500, 'internal server error')
      }
      if (typeof out === 'object') {
        out.then(
          (text) => this.reply(res, cors, text, reply.status),
          (err: unknown) => {
            this.log.error('rpc dispatch failed', { error: err instanceof Error ? err.stack : String(err) })
            if (!res.headersSent) sendText(res, cors, 500, 'internal server error')
          },
        )
      } else {
        this.reply(res, cors, out, reply.status)
      }
    })
  }

  /**
   * The call context of a request. Only when private methods are served and the caller is not
   * authorised does it cost an object: its `onDenied` turns the reply's status into 401. `loopback`
   * is read from the socket (net caches the peer address after the first read).
   */
  private contextOf(req: IncomingMessage, reply: { status: number }): CallContext {
    const loopback = isLoopbackAddress(req.socket.remoteAddress)
    if (!this.dispatcher.servesPrivateMethods) return loopback ? UNAUTHORIZED_LOOPBACK : UNAUTHORIZED_REMOTE
    if (this.opts.auth(req)) return loopback ? AUTHORIZED_LOOPBACK : AUTHORIZED_REMOTE
    return { transport: 'http', authorized: false, loopback, onDenied: () => (reply.status = 401) }
  }

  private reply(res: ServerResponse, cors: boolean, text: DispatchResult, status: number): void {
    if (res.destroyed) return
    // A request that was in flight when close() began must not leave an idle keep-alive socket behind.
    if (this.closing) res.setHeader('Connection', 'close')
    // Raw header list with an explicit length: no chunked encoding, no header-object merging.
    const length = text === undefined ? 0 : Buffer.byteLength(text)
    res.writeHead(
      status,
      cors
        ? ['Content-Type', 'application/json', 'Content-Length', length, 'Vary', 'Origin', 'Access-Control-Allow-Origin', '*']
        : ['Content-Type', 'application/json', 'Content-Length', length, 'Vary', 'Origin'],
    )
    res.end(text)
  }
}
