/**
 * CORS for the EVM JSON-RPC HTTP listener, as Evmos wires `rs/cors` (reference/evmos-jsonrpc.md §2):
 * - `enabled-unsafe-cors = true` → `cors.AllowAll()`: any origin, methods HEAD GET POST PUT PATCH
 *   DELETE, any request header;
 * - otherwise `cors.Default()`: any origin, methods GET POST HEAD, request headers limited to
 *   Origin, Accept, Content-Type, X-Requested-With (a browser cannot send e.g. `Authorization`).
 * Both answer `Access-Control-Allow-Origin: *` (no credentials) and always add `Vary: Origin`.
 * A preflight is an OPTIONS request carrying `Access-Control-Request-Method`; it is answered here with
 * 204 (rs/cors `OptionsSuccessStatus`), with the CORS headers only when method and headers are allowed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

/** Which rs/cors preset applies. */
export type CorsMode = 'allow-all' | 'default'

interface CorsPolicy {
  methods: ReadonlySet<string>
  /** undefined = any header. Lower-case names. */
  headers: ReadonlySet<string> | undefined
}

const POLICIES: Record<CorsMode, CorsPolicy> = {
  'allow-all': { methods: new Set(['HEAD', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE']), headers: undefined },
  default: { methods: new Set(['GET', 'POST', 'HEAD']), headers: new Set(['origin', 'accept', 'content-type', 'x-requested-with']) },
}

/** True when the request is a CORS preflight (to be answered by `answerPreflight`). */
export function isPreflight(req: IncomingMessage): boolean {
  return req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined
}

/**
 * True when an actual (non-preflight) request gets `Access-Control-Allow-Origin: *`: it carries an
 * Origin and its method is allowed (rs/cors checks the method of simple requests too).
 */
export function allowsActualRequest(mode: CorsMode, req: IncomingMessage): boolean {
  return req.headers.origin !== undefined && POLICIES[mode].methods.has(req.method ?? '')
}

/** Answers a preflight request (204, CORS headers when allowed). */
export function answerPreflight(mode: CorsMode, req: IncomingMessage, res: ServerResponse): void {
  const policy = POLICIES[mode]
  res.setHeader('Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers')
  const origin = req.headers.origin
  const method = String(req.headers['access-control-request-method'] ?? '').toUpperCase()
  const requested = String(req.headers['access-control-request-headers'] ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '')
  const methodAllowed = method === 'OPTIONS' || policy.methods.has(method)
  const headersAllowed = policy.headers === undefined || requested.every((h) => policy.headers!.has(h))
  if (origin !== undefined && methodAllowed && headersAllowed) {
    res.setHeader('Access-Control-Allow-Origin', '*')
    res.setHeader('Access-Control-Allow-Methods', method)
    if (requested.length > 0) res.setHeader('Access-Control-Allow-Headers', requested.join(', '))
  }
  res.writeHead(204)
  res.end()
}
