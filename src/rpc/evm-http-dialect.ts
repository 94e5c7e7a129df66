/**
 * The EVM JSON-RPC over HTTP (Evmos: a gorilla router accepting only `POST /` in front of geth's HTTP
 * handler, whose framework errors are geth 1.10's):
 * - `POST /` only: another path → 404 `404 page not found`, another method on `/` → 405;
 * - body larger than `http-body-limit` → 413 with a JSON-RPC error (-32600 `content length too large
 *   (N>limit)`), decided from Content-Length before reading or while streaming (http-body.ts);
 * - Content-Type `application/json`, `application/json-rpc` or `application/jsonrequest` (parameters
 *   such as `charset` allowed), else 415 `invalid content type, only application/json is supported`;
 * - JSON-RPC errors travel with HTTP 200, except a refused private-namespace call (-32001), which makes
 *   the reply 401 (caller-auth.ts); a notification-only request gets 200 with an empty body;
 * - a `Host` name not in `http-vhosts` → 403 `invalid host specified`, before anything else (vhosts.ts);
 * - CORS as geth's: none unless `http-corsdomain` names origins; all with `enabled-unsafe-cors` (cors.ts).
 * The listener's own parser (plain-http.ts) brings the common request, a `POST /` of JSON without an
 * Origin, within the body limit, for an allowed host, to `answerPlain`; node:http brings every other one
 * to `handleRequest`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '../utils/logger.js'
import { isLoopbackAddress, type AuthRequest, type CallerAuth } from './caller-auth.js'
import type { Cors } from './cors.js'
import type { RpcDialect } from './dialect.js'
import type { DispatchResult, Dispatcher } from './dispatcher.js'
import { BodyTooLargeError, declaredOverLimit, drainBody, readBody } from './http-body.js'
import type { CallContext } from './method-table.js'
import type { PlainReply, PlainRequest } from './plain-http.js'
import { createHostCheck } from './vhosts.js'

/**
 * The shared contexts of HTTP calls (no notifications: eth_subscribe answers -32000), one per
 * combination of authorised and loopback, so a request costs no context object.
 */
const httpContext = (authorized: boolean, loopback: boolean): CallContext => Object.freeze({ transport: 'http', authorized, loopback })
const AUTHORIZED_LOOPBACK = httpContext(true, true)
const AUTHORIZED_REMOTE = httpContext(true, false)
const UNAUTHORIZED_LOOPBACK = httpContext(false, true)
const UNAUTHORIZED_REMOTE = httpContext(false, false)

const JSON_HEADERS: readonly string[] = ['Content-Type', 'application/json', 'Vary', 'Origin']
/** The headers of Go's `http.Error` pages. */
const TEXT_HEADERS: readonly string[] = ['Content-Type', 'text/plain; charset=utf-8', 'X-Content-Type-Options', 'nosniff', 'Vary', 'Origin']
/** Go's `http.Error` page for a request the node failed on (the failure is logged). */
const INTERNAL_ERROR: PlainReply = { status: 500, headers: TEXT_HEADERS, body: 'internal server error\n' }

/** `/` or `/?query`: the only path served. */
function isRootPath(url: string): boolean {
  return url === '/' || url.startsWith('/?')
}

const ACCEPTED_CONTENT_TYPES = new Set(['application/json', 'application/json-rpc', 'application/jsonrequest'])

function isAcceptedContentType(value: string | undefined): boolean {
  if (value === undefined) return false
  if (value === 'application/json') return true
  const semi = value.indexOf(';')
  return ACCEPTED_CONTENT_TYPES.has((semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase())
}

/** A plain-text error page, as Go's `http.Error`, with the CORS headers of the request (`extra`: more name/value pairs). */
function sendText(res: ServerResponse, origin: string | undefined, status: number, text: string, extra: readonly string[] = []): void {
  const headers = [...TEXT_HEADERS, ...extra]
  if (origin !== undefined) headers.push('Access-Control-Allow-Origin', origin)
  res.writeHead(status, headers)
  res.end(text + '\n')
}

/** Writes an answer through node:http, with the request's CORS origin. */
function writeReply(res: ServerResponse, origin: string | undefined, reply: PlainReply): void {
  if (res.destroyed) return
  // Raw header list with an explicit length: no chunked encoding, no header-object merging.
  const headers: (string | number)[] = [...reply.headers, 'Content-Length', reply.body === undefined ? 0 : Buffer.byteLength(reply.body)]
  if (origin !== undefined) headers.push('Access-Control-Allow-Origin', origin)
  res.writeHead(reply.status, headers)
  res.end(reply.body)
}

/** 413 with a JSON-RPC error body (-32600, id null). */
function sendTooLarge(res: ServerResponse, origin: string | undefined, size: string, limit: number): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `content length too large (${size}>${limit})` } })
  writeReply(res, origin, { status: 413, headers: JSON_HEADERS, body })
}

/** What the dialect needs from the HTTP server's options. */
export interface EvmHttpDialectOptions {
  bodyLimit: number
  cors: Cors
  /** `http-vhosts`: the Host names answered. */
  vhosts: readonly string[]
  auth: CallerAuth
}

/** The EVM surface over HTTP: `POST /` into the Dispatcher. */
export class EvmHttpDialect implements RpcDialect {
  private readonly hostAllowed: (host: string | undefined) => boolean

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly opts: EvmHttpDialectOptions,
    private readonly log: Logger,
  ) {
    this.hostAllowed = createHostCheck(opts.vhosts)
  }

  handleRequest(req: IncomingMessage, res: ServerResponse): void {
    // geth wraps its CORS handler in the virtual-host one: a refused name gets no CORS header either.
    if (!this.hostAllowed(req.headers.host)) return sendText(res, undefined, 403, 'invalid host specified')
    const cors = this.opts.cors
    if (cors.isPreflight(req)) return cors.answerPreflight(req, res)
    const origin = cors.allowedOrigin(req)
    if (!isRootPath(req.url ?? '')) return sendText(res, origin, 404, '404 page not found')
    if (req.method !== 'POST') return sendText(res, origin, 405, 'method not allowed', ['Allow', 'POST, OPTIONS'])
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
      (body) => {
        const answer = this.answer(body, req)
        if (!(answer instanceof Promise)) return writeReply(res, origin, answer)
        void answer.then((reply) => writeReply(res, origin, reply))
      },
      (err: unknown) => {
        if (err instanceof BodyTooLargeError && !res.headersSent) sendTooLarge(res, origin, err.size, limit)
      },
    )
  }

  answerPlain(req: PlainRequest): PlainReply | Promise<PlainReply> | undefined {
    const { headers, body } = req
    if (req.method !== 'POST' || !isRootPath(req.url) || headers.origin !== undefined || !this.hostAllowed(headers.host)) return undefined
    if (body.length > this.opts.bodyLimit || !isAcceptedContentType(headers['content-type'])) return undefined
    return this.answer(body, req)
  }

  /** The dispatcher's answer to a body, or a 500 when it fails. */
  private answer(body: Buffer, req: AuthRequest): PlainReply | Promise<PlainReply> {
    const reply = { status: 200 }
    let out: DispatchResult | Promise<DispatchResult>
    try {
      out = this.dispatcher.handle(body.toString('utf8'), this.contextOf(req, reply))
    } catch (err) {
      return this.failed(err)
    }
    if (!(out instanceof Promise)) return { status: reply.status, headers: JSON_HEADERS, body: out }
    return out.then(
      (text) => ({ status: reply.status, headers: JSON_HEADERS, body: text }),
      (err: unknown) => this.failed(err),
    )
  }

  private failed(err: unknown): PlainReply {
    this.log.error('rpc dispatch failed', { error: err instanceof Error ? err.stack : String(err) })
    return INTERNAL_ERROR
  }

  /**
   * The call context of a request. Only when private methods are served and the caller is not
   * authorised does it cost an object: its `onDenied` turns the reply's status into 401. `loopback`
   * is read from the socket (net caches the peer address after the first read).
   */
  private contextOf(req: AuthRequest, reply: { status: number }): CallContext {
    const loopback = isLoopbackAddress(req.socket.remoteAddress)
    if (!this.dispatcher.servesPrivateMethods) return loopback ? UNAUTHORIZED_LOOPBACK : UNAUTHORIZED_REMOTE
    if (this.opts.auth(req)) return loopback ? AUTHORIZED_LOOPBACK : AUTHORIZED_REMOTE
    return { transport: 'http', authorized: false, loopback, onDenied: () => (reply.status = 401) }
  }
}
