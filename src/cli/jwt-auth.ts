/**
 * The client side of private-namespace authentication: when `<home>/config/jwt.hex` can be read, every
 * request carries `Authorization: Bearer <JWT>` with a fresh `iat` (tokens live ±60 s, so one is made
 * per request or connection). Without the file, no header is sent (a `--dev` node lets loopback in).
 * Tokens go only to loopback URLs, or anywhere when `--home` was given explicitly (the user named the
 * node whose secret it is), so a stray `--node` does not receive replayable tokens.
 */
import { readFile } from 'node:fs/promises'
import { homePaths } from '../config/home.js'
import { createJwt, parseJwtSecret } from '../rpc/jwt.js'

/** Whether a token may be sent to `url` (see the file comment). */
export function mayAuthenticate(url: string, homeGiven: boolean): boolean {
  if (homeGiven) return true
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '')
    return host === 'localhost' || host === '::1' || /^127\./.test(host)
  } catch {
    return false
  }
}

/** Headers carrying a fresh token, or undefined when the home has no readable, valid jwt.hex. */
export async function loadAuthHeaders(home: string): Promise<(() => Record<string, string>) | undefined> {
  let secret: Uint8Array
  try {
    secret = parseJwtSecret(await readFile(homePaths(home).jwtSecret, 'utf8'))
  } catch {
    return undefined
  }
  return () => ({ authorization: `Bearer ${createJwt(secret)}` })
}
