/** The one CORS module of both RPC surfaces: rs/cors' rules for the EVM policies (geth's, AllowAll) and CometBFT's `[rpc]` policy. */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { describe, expect, it } from 'vitest'
import { ALLOW_ALL_CORS, Cors, gethCorsPolicy } from '../../../src/rpc/cors.js'

/** A preflight from `origin` asking for `method` and `headers`. */
const asking = (origin: string, method: string, headers?: string): Record<string, string> => ({
  origin,
  'access-control-request-method': method,
  ...(headers === undefined ? {} : { 'access-control-request-headers': headers }),
})

const request = (method: string, headers: Record<string, string>): IncomingMessage => ({ method, headers }) as unknown as IncomingMessage

/** Answers a preflight into a plain record: status and headers. */
function preflight(cors: Cors, headers: Record<string, string>): { status: number; headers: Record<string, string> } {
  const out = { status: 0, headers: {} as Record<string, string> }
  const res = {
    setHeader: (name: string, value: string) => (out.headers[name.toLowerCase()] = value),
    writeHead: (status: number) => (out.status = status),
    end: () => {},
  } as unknown as ServerResponse
  const req = request('OPTIONS', headers)
  expect(cors.isPreflight(req)).toBe(true)
  cors.answerPreflight(req, res)
  return out
}

describe('Cors', () => {
  it('is off without allowed origins: no preflight handling, no header', () => {
    const off = new Cors({ origins: [], methods: ['GET'], headers: [] })
    expect(off.enabled).toBe(false)
    expect(off.isPreflight(request('OPTIONS', asking('http://a', 'GET')))).toBe(false)
    expect(off.allowedOrigin(request('GET', { origin: 'http://a' }))).toBeUndefined()
  })

  it('an OPTIONS request without a requested method is an actual request, which gets no allow-origin', () => {
    const cors = new Cors(ALLOW_ALL_CORS)
    expect(cors.isPreflight(request('OPTIONS', asking('http://a', '')))).toBe(false)
    expect(cors.allowedOrigin(request('OPTIONS', { origin: 'http://a' }))).toBeUndefined()
  })

  it('configured origins: exact and one-wildcard entries, case-insensitive; the origin itself is echoed', () => {
    const cors = new Cors({ origins: ['http://A.example', 'https://*.b.example'], methods: ['GET', 'POST'], headers: ['Content-Type'] })
    expect(cors.allowedOrigin(request('GET', { origin: 'http://a.example' }))).toBe('http://a.example')
    expect(cors.allowedOrigin(request('POST', { origin: 'https://x.y.b.example' }))).toBe('https://x.y.b.example')
    expect(cors.allowedOrigin(request('GET', { origin: 'https://b.example' }))).toBeUndefined()
    expect(cors.allowedOrigin(request('DELETE', { origin: 'http://a.example' }))).toBeUndefined()
    expect(cors.allowedOrigin(request('GET', { origin: '' }))).toBeUndefined()
  })

  it('preflight: requested headers matched case-insensitively (Origin always allowed) and echoed as sent', () => {
    const cors = new Cors({ origins: ['http://a.example'], methods: ['POST'], headers: ['Content-Type'] })
    const ok = preflight(cors, asking('http://a.example', 'post', 'Content-Type, origin'))
    expect(ok).toEqual({
      status: 204,
      headers: {
        vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
        'access-control-allow-origin': 'http://a.example',
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'Content-Type, origin',
      },
    })
    const denied = preflight(cors, asking('http://a.example', 'POST', 'x-custom'))
    expect(denied.status).toBe(204)
    expect(denied.headers['access-control-allow-origin']).toBeUndefined()
    expect(preflight(cors, { 'access-control-request-method': 'POST' }).headers['access-control-allow-origin']).toBeUndefined()
  })

  it('AllowAll (enabled-unsafe-cors): any origin as `*`, any method of its list and any header', () => {
    const open = new Cors(ALLOW_ALL_CORS)
    expect(open.allowedOrigin(request('PUT', { origin: 'https://dapp.example' }))).toBe('*')
    expect(preflight(open, asking('https://x', 'PATCH', 'authorization')).headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-headers': 'authorization',
    })
  })

  it("geth's policy: off without origins; else the named origins, POST and GET, any header, preflights cached 600 s", () => {
    expect(new Cors(gethCorsPolicy([])).enabled).toBe(false)
    const named = new Cors(gethCorsPolicy(['http://localhost:3000']))
    expect(named.allowedOrigin(request('POST', { origin: 'http://localhost:3000' }))).toBe('http://localhost:3000')
    expect(named.allowedOrigin(request('POST', { origin: 'https://evil.example' }))).toBeUndefined()
    expect(named.allowedOrigin(request('PUT', { origin: 'http://localhost:3000' }))).toBeUndefined()
    expect(preflight(named, asking('http://localhost:3000', 'POST', 'authorization, content-type')).headers).toEqual({
      vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      'access-control-allow-origin': 'http://localhost:3000',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'authorization, content-type',
      'access-control-max-age': '600',
    })
    expect(new Cors(gethCorsPolicy(['*'])).allowedOrigin(request('GET', { origin: 'https://any.example' }))).toBe('*')
  })
})
