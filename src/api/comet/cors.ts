/**
 * CORS as CometBFT applies it (the `rs/cors` middleware, only when `cors_allowed_origins` is not
 * empty): preflights are answered here with 204 and never reach the routes; actual requests get
 * `Access-Control-Allow-Origin` when origin and method are allowed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

/** The three CORS keys of `[rpc]`. */
export interface CorsPolicy {
  allowedOrigins: string[]
  allowedMethods: string[]
  allowedHeaders: string[]
}

/** rs/cors answers a successful preflight with 204 No Content (`OptionsSuccessStatus`). */
const PREFLIGHT_STATUS = 204

function originAllowed(policy: CorsPolicy, origin: string): boolean {
  const o = origin.toLowerCase()
  return policy.allowedOrigins.some((pattern) => {
    const p = pattern.toLowerCase()
    if (p === '*') return true
    const star = p.indexOf('*')
    if (star < 0) return p === o
    // rs/cors wildcards: one `*` standing for any run of characters ("https://*.example.com").
    return o.length >= p.length - 1 && o.startsWith(p.slice(0, star)) && o.endsWith(p.slice(star + 1))
  })
}

function methodAllowed(policy: CorsPolicy, method: string): boolean {
  const m = method.toUpperCase()
  return m === 'OPTIONS' || policy.allowedMethods.some((a) => a.toUpperCase() === m)
}

function headersAllowed(policy: CorsPolicy, requested: string[]): boolean {
  const allowed = new Set(['origin', ...policy.allowedHeaders.map((h) => h.toLowerCase())])
  if (allowed.has('*')) return true
  return requested.every((h) => allowed.has(h.toLowerCase()))
}

/**
 * Applies the policy. Returns true when the request was a preflight and has been answered; the
 * caller serves everything else.
 */
export function applyCors(policy: CorsPolicy, req: IncomingMessage, res: ServerResponse): boolean {
  if (policy.allowedOrigins.length === 0) return false
  const origin = req.headers.origin ?? ''
  const anyOrigin = policy.allowedOrigins.includes('*')
  const requestMethod = req.headers['access-control-request-method']
  if (req.method === 'OPTIONS' && typeof requestMethod === 'string' && requestMethod !== '') {
    res.setHeader('Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers')
    const requestHeaders = (req.headers['access-control-request-headers'] ?? '')
      .toString()
      .split(',')
      .map((h) => h.trim())
      .filter((h) => h !== '')
    if (origin !== '' && originAllowed(policy, origin) && methodAllowed(policy, requestMethod) && headersAllowed(policy, requestHeaders)) {
      res.setHeader('Access-Control-Allow-Origin', anyOrigin ? '*' : origin)
      res.setHeader('Access-Control-Allow-Methods', requestMethod.toUpperCase())
      if (requestHeaders.length > 0) res.setHeader('Access-Control-Allow-Headers', requestHeaders.join(', '))
    }
    res.writeHead(PREFLIGHT_STATUS)
    res.end()
    return true
  }
  res.setHeader('Vary', 'Origin')
  if (origin !== '' && req.method !== 'OPTIONS' && originAllowed(policy, origin) && methodAllowed(policy, req.method ?? 'GET')) {
    res.setHeader('Access-Control-Allow-Origin', anyOrigin ? '*' : origin)
  }
  return false
}
