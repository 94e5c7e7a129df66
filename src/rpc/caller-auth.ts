/**
 * Who may call the private namespaces (personal, miner; docs/decisions.md). A caller is authorised by
 * a valid `Authorization: Bearer <JWT>` (jwt.ts) signed with the node's `config/jwt.hex` secret, or,
 * on a `--dev` node only, by connecting from loopback.
 * HTTP decides per request, WebSocket once at the upgrade (the token's `iat` must be fresh then).
 */
import { readFile } from 'node:fs/promises'
import type { Logger } from '../utils/logger.js'
import { bearerTokenOf, parseJwtSecret, verifyJwt } from './jwt.js'

/** The namespaces that need an authorised caller. */
export const PRIVATE_NAMESPACES: readonly string[] = ['personal', 'miner']

export interface CallerAuthOptions {
  /** The 32-byte HS256 secret; undefined when the home has none (then only loopback under `--dev` passes). */
  secret: Uint8Array | undefined
  /** `--dev`: callers from 127.0.0.0/8 and ::1 need no token. */
  trustLoopback: boolean
}

/** What the check reads of a request (node:http's or plain-http.ts's): the peer and the Authorization header. */
export interface AuthRequest {
  readonly socket: { readonly remoteAddress?: string | undefined }
  readonly headers: { readonly authorization?: string | undefined }
}

/** Decides whether a request's caller is authorised. */
export type CallerAuth = (req: AuthRequest) => boolean

/** True for an IPv4 or IPv6 loopback address (also IPv4-mapped `::ffff:127.x.y.z`). */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (address === undefined) return false
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.')
}

/**
 * Reads `config/jwt.hex`. A missing or malformed file is not fatal: the node logs why and then serves
 * the private namespaces to nobody (or only to loopback under `--dev`).
 */
export async function readJwtSecret(path: string, log: Logger): Promise<Uint8Array | undefined> {
  try {
    return parseJwtSecret(await readFile(path, 'utf8'))
  } catch (err) {
    log.warn('private namespaces need a JWT secret; none usable', { path, error: err instanceof Error ? err.message : String(err) })
    return undefined
  }
}

/** Builds the check from the node's secret and mode; refusals are logged at debug level with their reason. */
export function createCallerAuth(opts: CallerAuthOptions, log: Logger): CallerAuth {
  const { secret, trustLoopback } = opts
  return (req) => {
    if (trustLoopback && isLoopbackAddress(req.socket.remoteAddress)) return true
    const header = req.headers.authorization
    if (header === undefined) return false
    const token = bearerTokenOf(header)
    if (token === undefined || secret === undefined) {
      log.debug('private namespace refused', { reason: token === undefined ? 'not a bearer token' : 'node has no JWT secret' })
      return false
    }
    const check = verifyJwt(token, secret)
    if (!check.ok) log.debug('private namespace refused', { reason: check.reason })
    return check.ok
  }
}

/** Denies every caller: the default of listeners built without a check (tests of the transport). */
export const denyAll: CallerAuth = () => false
