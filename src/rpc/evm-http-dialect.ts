/**
 * The EVM JSON-RPC over HTTP (Evmos: a gorilla router accepting only `POST /` in front of geth's HTTP
 * handler; reference/evmos-jsonrpc.md §4.1):
 * - `POST /` only: another path → 404 `404 page not found`, another method on `/` → 405;
 * - body larger than `http-body-limit` → 413 with a JSON-RPC error (-32600 `content length too large
 *   (N>limit)`), decided from Content-Length before reading or while streaming (http-body.ts);
 * - Content-Type `application/json`, `application/json-rpc` or `application/jsonrequest` (parameters
 *   such as `charset` allowed), else 415 `invalid content type, only application/json is supported`;
 * - JSON-RPC errors travel with HTTP 200, except a refused private-namespace call (-32001), which makes
 *   the reply 401 (caller-auth.ts); a notification-only request gets 200 with an empty body;
 * - CORS per the rs/cors preset of `enabled-unsafe-cors` (cors.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '../utils/logger.js'
import { isLoopbackAddress, type CallerAuth } from './caller-auth.js'
import type { Cors } from './cors.js'
import type { RpcDialect } from './dialect.js'
import type { DispatchResult, Dispatcher } from './dispatcher.js'
import { BodyTooLargeError, declaredOverLimit, drainBody, readBody } from './http-body.js'
import type { CallContext } from './method-table.js'

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

function isAcceptedContentType(value: string | undefined): boolean {
  if (value === undefined) return false
  if (value === 'application/json') return true
  const semi = value.indexOf(';')
  return ACCEPTED_CONTENT_TYPES.has((semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase())
}

/** A plain-text error page, as Go's `http.Error`, with the CORS headers of the request. */
function sendText(res: ServerResponse, origin: string | undefined, status: number, text: string, extra?: Record<string, string>): void {
  const headers: Record<string, string> = {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    Vary: 'Origin',
    ...extra,
  }
  if (origin !== undefined) headers['Access-Control-Allow-Origin'] = origin
  res.writeHead(status, headers)
  res.end(text + '\n')
}

/** 413 with a JSON-RPC error body (-32600, id null). */
function sendTooLarge(res: ServerResponse, origin: string | undefined, size: string, limit: number): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `content length too large (${size}>${limit})` } })
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    Vary: 'Origin',
  }
  if (origin !== undefined) headers['Access-Control-Allow-Origin'] = origin
  res.writeHead(413, headers)
  res.end(body)
}

/** What the dialect needs from the HTTP server's options. */
export interface EvmHttpDialectOptions {
  bodyLimit: number
  cors: Cors
  auth: CallerAuth
}

/** The EVM surface over HTTP: `POST /` into the Dispatcher. */
export class EvmHttpDialect implements RpcDialect {
  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly opts: EvmHttpDialectOptions,
    private readonly log: Logger,
  ) {}

  handleRequest(req: IncomingMessage, res: ServerResponse): void {
    const cors = this.opts.cors
    if (cors.isPreflight(req)) return cors.answerPreflight(req, res)
    const origin = cors.allowedOrigin(req)
    const url = req.url ?? ''
    if (url !== '/' && !url.startsWith('/?')) return sendText(res, origin, 404, '404 page not found')
    if (req.method !== 'POST') return sendText(res, origin, 405, 'method not allowed', { Allow: 'POST, OPTIONS' })
    const limit = this.opts.bodyLimit
    const declared = declaredOverLimit(req, limit)
    if (declared !== undefined) {
      sendTooLarge(res, origin, declared, limit)
      return drainBody(req)
    }
    if (!isAcceptedContentType(req.headers['content-type'])) {
      return sendText(res, origin, 415, 'invalid content type, only application/json is supported')
    }
    readBody(req, limit).then(
      (body) => this.dispatch(req, res, origin, body),
      (err: unknown) => {
        if (err instanceof BodyTooLargeError && !res.headersSent) sendTooLarge(res, origin, err.size, limit)
      },
    )
  }

  private dispatch(req: IncomingMessage, res: ServerResponse, origin: string | undefined, body: Buffer): void {
    const reply = { status: 200 }
    let out: DispatchResult | Promise<DispatchResult>
    try {
      out = this.dispatcher.handle(body.toString('utf8'), this.contextOf(req, reply))
    } catch (err) {
      this.log.error('rpc dispatch failed', { error: err instanceof Error ? err.stack : String(err) })
      return sendText(res, origin, 500, 'internal server error')
    }
    if (!(out instanceof Promise)) return this.reply(res, origin, out, reply.status)
    out.then(
      (text) => this.reply(res, origin, text, reply.status),
      (err: unknown) => {
        this.log.error('rpc dispatch failed', { error: err instanceof Error ? err.stack : String(err) })
        if (!res.headersSent) sendText(res, origin, 500, 'internal server error')
      },
    )
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

  private reply(res: ServerResponse, origin: string | undefined, body: DispatchResult, status: number): void {
    if (res.destroyed) return
    // Raw header list with an explicit length: no chunked encoding, no header-object merging.
    const length = body === undefined ? 0 : Buffer.byteLength(body)
    res.writeHead(
      status,
      origin === undefined
        ? ['Content-Type', 'application/json', 'Content-Length', length, 'Vary', 'Origin']
        : ['Content-Type', 'application/json', 'Content-Length', length, 'Vary', 'Origin', 'Access-Control-Allow-Origin', origin],
    )
    res.end(body)
  }
}
