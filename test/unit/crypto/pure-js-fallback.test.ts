/**
 * The pure-JS fallback of crypto/: where the native libsecp256k1 binding cannot load (or with
 * NODECTL_PURE_JS_CRYPTO=1), @noble/curves signs and recovers, and Keccak-256 is @noble/hashes'.
 * Both paths must give the same bytes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as native from '../../../src/crypto/index.js'
import { hexToBytes } from '../../../src/primitives/hex.js'

const KEY = hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')

describe('pure-JS crypto fallback', () => {
  afterEach(() => {
    vi.unstubAllEnvs()
    vi.resetModules()
  })

  it('signs, recovers and hashes exactly as the native path', async () => {
    vi.stubEnv('NODECTL_PURE_JS_CRYPTO', '1')
    vi.resetModules()
    const pure = await import('../../../src/crypto/index.js')
    expect(pure.secp256k1Backend()).toBe('noble')
    expect(pure.keccakBackend).toBe('noble')
    expect(native.secp256k1Backend()).toBe('native')

    const hash = native.keccak256(new TextEncoder().encode('nodectl'))
    expect(pure.keccak256(new TextEncoder().encode('nodectl'))).toEqual(hash)
    const a = pure.signHash(hash, KEY)
    const b = native.signHash(hash, KEY)
    expect(a).toEqual(b) // RFC 6979 deterministic nonces, low-s: identical signatures
    const address = native.privateKeyToAddress(KEY)
    expect(pure.privateKeyToAddress(KEY)).toEqual(address)
    expect(pure.publicKeyToAddress(pure.recoverPublicKey(hash, a.r, a.s, a.recovery))).toEqual(address)
    expect(native.publicKeyToAddress(native.recoverPublicKey(hash, a.r, a.s, a.recovery))).toEqual(address)
  })
})
