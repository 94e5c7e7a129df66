/** HS256 JWTs of the private namespaces (docs/decisions.md), and the CLI side that sends them. */
import { createHmac } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadAuthHeaders, mayAuthenticate } from '../../../src/cli/jwt-auth.js'
import { bearerTokenOf, createJwt, parseJwtSecret, verifyJwt } from '../../../src/rpc/jwt.js'

const SECRET_HEX = `0x${'5a'.repeat(32)}`
const SECRET = parseJwtSecret(SECRET_HEX)
const NOW = 1_700_000_000

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url')
/** An independent signer (node:crypto) to check ours against. */
const sign = (header: unknown, payload: unknown, secret = SECRET): string => {
  const input = `${b64(header)}.${b64(payload)}`
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`
}

describe('jwt', () => {
  it('creates tokens an independent HS256 implementation agrees with', () => {
    expect(createJwt(SECRET, NOW)).toBe(sign({ alg: 'HS256', typ: 'JWT' }, { iat: NOW }))
    expect(verifyJwt(createJwt(SECRET, NOW), SECRET, NOW + 60)).toEqual({ ok: true })
  })

  it('rejects stale or future iat, wrong secrets, other algorithms and garbage', () => {
    expect(verifyJwt(createJwt(SECRET, NOW - 61), SECRET, NOW)).toMatchObject({ ok: false, reason: 'stale token (iat)' })
    expect(verifyJwt(createJwt(SECRET, NOW + 61), SECRET, NOW)).toMatchObject({ ok: false })
    expect(verifyJwt(createJwt(parseJwtSecret(`0x${'00'.repeat(32)}`), NOW), SECRET, NOW)).toMatchObject({
      ok: false,
      reason: 'signature mismatch',
    })
    expect(verifyJwt(sign({ alg: 'HS512' }, { iat: NOW }), SECRET, NOW)).toMatchObject({ ok: false })
    expect(verifyJwt(sign({ alg: 'HS256' }, {}), SECRET, NOW)).toMatchObject({ ok: false, reason: 'missing iat claim' })
    expect(verifyJwt('a.b', SECRET, NOW)).toMatchObject({ ok: false, reason: 'malformed token' })
  })

  it('parses jwt.hex and bearer headers', () => {
    expect(parseJwtSecret(`${SECRET_HEX}\n`)).toHaveLength(32)
    expect(() => parseJwtSecret('0x1234')).toThrow(/invalid JWT secret/)
    expect(bearerTokenOf('Bearer abc.def.ghi')).toBe('abc.def.ghi')
    expect(bearerTokenOf('Basic xyz')).toBeUndefined()
    expect(bearerTokenOf(undefined)).toBeUndefined()
  })
})

describe('CLI token headers', () => {
  it('read <home>/config/jwt.hex and carry a fresh valid token; nothing without the file', async () => {
    const home = await mkdtemp(join(tmpdir(), 'nodectl-jwt-'))
    try {
      expect(await loadAuthHeaders(home)).toBeUndefined()
      await mkdir(join(home, 'config'))
      await writeFile(join(home, 'config/jwt.hex'), SECRET_HEX)
      const headers = (await loadAuthHeaders(home))!()
      expect(verifyJwt(bearerTokenOf(headers.authorization)!, SECRET)).toEqual({ ok: true })
    } finally {
      await rm(home, { recursive: true, force: true })
    }
  })

  it('go to loopback, or anywhere when --home was given', () => {
    expect(mayAuthenticate('http://127.0.0.1:8545', false)).toBe(true)
    expect(mayAuthenticate('ws://[::1]:8546', false)).toBe(true)
    expect(mayAuthenticate('http://10.0.0.5:8545', false)).toBe(false)
    expect(mayAuthenticate('http://10.0.0.5:8545', true)).toBe(true)
  })
})
