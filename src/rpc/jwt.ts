/**
 * HS256 JSON Web Tokens for the private namespaces (personal, miner), as geth's authenticated RPC
 * (engine API): `Authorization: Bearer <JWT>`, header `{"alg":"HS256","typ":"JWT"}`, claim `iat` (seconds)
 * within ±60 s of the server's clock, signed with the 32-byte secret of `<home>/config/jwt.hex`
 * (`0x` + 64 hex). Anything else is HTTP 401 / -32001 `unauthorized` (docs/decisions.md).
 */
import { constantTimeEqual, hmacSha256 } from '../crypto/hmac.js'

/** Largest allowed difference between `iat` and the server's clock, in seconds (geth: 60). */
export const JWT_IAT_TOLERANCE_S = 60
/** Bytes of the shared secret (geth `jwtsecret`). */
export const JWT_SECRET_BYTES = 32

const encoder = new TextEncoder()
const HEADER = base64url(encoder.encode(JSON.stringify({ alg: 'HS256', typ: 'JWT' })))

function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url')
}

/** Parses the text of jwt.hex (`0x` + 64 hex, surrounding whitespace allowed; the `0x` is optional as in geth). */
export function parseJwtSecret(text: string): Uint8Array {
  const hex = text.trim().replace(/^0x/i, '')
  if (!/^[0-9a-fA-F]*$/.test(hex) || hex.length !== JWT_SECRET_BYTES * 2)
    throw new Error(`invalid JWT secret: want 0x followed by ${JWT_SECRET_BYTES * 2} hex digits`)
  return Uint8Array.from(Buffer.from(hex, 'hex'))
}

/** A token with `iat` = `nowS` (default: now), signed with `secret`. */
export function createJwt(secret: Uint8Array, nowS: number = Math.floor(Date.now() / 1000)): string {
  const payload = base64url(encoder.encode(JSON.stringify({ iat: nowS })))
  const signature = base64url(hmacSha256(secret, encoder.encode(`${HEADER}.${payload}`)))
  return `${HEADER}.${payload}.${signature}`
}

/** The outcome of {@link verifyJwt}; `reason` is for the node's debug log, never sent to the caller. */
export type JwtCheck = { ok: true } | { ok: false; reason: string }

/** Checks the signature, the algorithm and `iat` (±{@link JWT_IAT_TOLERANCE_S} s of `nowS`). */
export function verifyJwt(token: string, secret: Uint8Array, nowS: number = Math.floor(Date.now() / 1000)): JwtCheck {
  const parts = token.split('.')
  if (parts.length !== 3) return { ok: false, reason: 'malformed token' }
  const [header, payload, signature] = parts as [string, string, string]
  const expected = hmacSha256(secret, encoder.encode(`${header}.${payload}`))
  if (!constantTimeEqual(expected, Uint8Array.from(Buffer.from(signature, 'base64url')))) return { ok: false, reason: 'signature mismatch' }
  let alg: unknown
  let iat: unknown
  try {
    alg = (JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown }).alg
    iat = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { iat?: unknown }).iat
  } catch {
    return { ok: false, reason: 'malformed token' }
  }
  if (alg !== 'HS256') return { ok: false, reason: `unsupported algorithm ${String(alg)}` }
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return { ok: false, reason: 'missing iat claim' }
  if (Math.abs(iat - nowS) > JWT_IAT_TOLERANCE_S) return { ok: false, reason: 'stale token (iat)' }
  return { ok: true }
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerTokenOf(header: string | undefined): string | undefined {
  const m = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
  return m ? m[1] : undefined
}
