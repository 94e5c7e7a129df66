/**
 * CORS as the `rs/cors` middleware applies it, for every RPC listener (the EVM surface with geth's
 * policy of `--http.corsdomain` origins, or rs/cors `AllowAll()` with `enabled-unsafe-cors`; the
 * consensus surface with CometBFT's `[rpc]` `cors_allowed_*` keys):
 * - no allowed origin = CORS off: nothing is added and preflights reach the handler;
 * - a preflight is an OPTIONS request with a non-empty `Access-Control-Request-Method`; it is answered
 *   here with 204 (`OptionsSuccessStatus`), with the CORS headers only when its origin, method and
 *   request headers are allowed (OPTIONS itself and the `Origin` header always are), and
 *   `Access-Control-Max-Age` when the policy has one;
 * - an actual request with an allowed origin and method gets `Access-Control-Allow-Origin` (`*` when
 *   any origin is allowed, else the origin itself), and every actual request gets `Vary: Origin`.
 * Origins and header names match case-insensitively; an origin entry may hold one `*` wildcard
 * (`https://*.example.com`). Requested headers are echoed as the client listed them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

/** What a listener allows. */
export interface CorsPolicy {
  /** Allowed origins; [] = CORS off, `*` = any. */
  origins: readonly string[]
  /** Allowed methods (OPTIONS is always allowed in a preflight). */
  methods: readonly string[]
  /** Allowed request headers; `*` = any. */
  headers: readonly string[]
  /** Seconds a browser may cache an allowed preflight (rs/cors `MaxAge`); absent or 0 = no header. */
  maxAge?: number
}

/** rs/cors `AllowAll()`: any origin, method and header; what `[api] enabled-unsafe-cors = true` turns on. */
export const ALLOW_ALL_CORS: CorsPolicy = { origins: ['*'], methods: ['HEAD', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE'], headers: ['*'] }

/** geth `newCorsHandler`'s preflight cache time, in seconds. */
const GETH_CORS_MAX_AGE = 600

/**
 * geth's policy of the HTTP JSON-RPC (`node/rpcstack.go` newCorsHandler): no origin named = CORS off
 * (no header at all, so a browser keeps the answers from every page of another origin); else those
 * origins, methods POST and GET, any request header, preflights cached 600 s.
 */
export function gethCorsPolicy(origins: readonly string[]): CorsPolicy {
  return { origins, methods: ['POST', 'GET'], headers: ['*'], maxAge: GETH_CORS_MAX_AGE }
}

/** A policy prepared for per-request checks. */
export class Cors {
  /** False when no origin is allowed: the listener then adds no CORS header at all. */
  readonly enabled: boolean
  private readonly anyOrigin: boolean
  private readonly exactOrigins: ReadonlySet<string>
  /** Origin entries with a `*`: the text before and after it. */
  private readonly wildcards: readonly (readonly [string, string])[]
  private readonly methods: ReadonlySet<string>
  /** undefined = any header. Lower-case names. */
  private readonly headers: ReadonlySet<string> | undefined
  private readonly maxAge: number

  constructor(policy: CorsPolicy) {
    const origins = policy.origins.map((o) => o.toLowerCase())
    this.enabled = origins.length > 0
    this.anyOrigin = origins.includes('*')
    this.exactOrigins = new Set(origins.filter((o) => !o.includes('*')))
    this.wildcards = origins.filter((o) => o.includes('*')).map((o) => [o.slice(0, o.indexOf('*')), o.slice(o.indexOf('*') + 1)] as const)
    this.methods = new Set(policy.methods.map((m) => m.toUpperCase()))
    const headers = policy.headers.map((h) => h.toLowerCase())
    this.headers = headers.includes('*') ? undefined : new Set(['origin', ...headers])
    this.maxAge = policy.maxAge ?? 0
  }

  /** True when the request is a preflight, to be answered by `answerPreflight`. */
  isPreflight(req: IncomingMessage): boolean {
    return this.enabled && req.method === 'OPTIONS' && !!req.headers['access-control-request-method']
  }

  /** Answers a preflight: 204, with the CORS headers when origin, method and headers are allowed. */
  answerPreflight(req: IncomingMessage, res: ServerResponse): void {
    res.setHeader('Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers')
    const origin = req.headers.origin ?? ''
    const method = String(req.headers['access-control-request-method']).toUpperCase()
    const requested = String(req.headers['access-control-request-headers'] ?? '')
      .split(',')
      .map((h) => h.trim())
      .filter((h) => h !== '')
    const headers = this.headers
    const headersAllowed = headers === undefined || requested.every((h) => headers.has(h.toLowerCase()))
    if (origin !== '' && this.originAllowed(origin) && (method === 'OPTIONS' || this.methods.has(method)) && headersAllowed) {
      res.setHeader('Access-Control-Allow-Origin', this.anyOrigin ? '*' : origin)
      res.setHeader('Access-Control-Allow-Methods', method)
      if (requested.length > 0) res.setHeader('Access-Control-Allow-Headers', requested.join(', '))
      if (this.maxAge > 0) res.setHeader('Access-Control-Max-Age', String(this.maxAge))
    }
    res.writeHead(204)
    res.end()
  }

  /** The `Access-Control-Allow-Origin` of an actual request, or undefined when it gets none. */
  allowedOrigin(req: IncomingMessage): string | undefined {
    const origin = req.headers.origin
    if (!origin || req.method === 'OPTIONS' || !this.methods.has(req.method ?? 'GET') || !this.originAllowed(origin)) return undefined
    return this.anyOrigin ? '*' : origin
  }

  private originAllowed(origin: string): boolean {
    if (this.anyOrigin) return true
    const o = origin.toLowerCase()
    if (this.exactOrigins.has(o)) return true
    return this.wildcards.some(
      ([prefix, suffix]) => o.length >= prefix.length + suffix.length && o.startsWith(prefix) && o.endsWith(suffix),
    )
  }
}
