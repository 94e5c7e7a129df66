/**
 * ed25519 for validator and node keys (RFC 8032; verification with ZIP-215 rules, as CometBFT).
 *
 * Keys, signatures and the verification of valid signatures run in OpenSSL (node:crypto): no start-up
 * table precomputation and several times faster per vote than pure JS. OpenSSL verifies by RFC 8032's
 * strict rules, under which every valid signature is also valid by ZIP-215's more permissive ones; a
 * signature OpenSSL rejects is checked again with ZIP-215 (noble), so the verdict is always ZIP-215's.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto'
import { ed25519 } from '@noble/curves/ed25519.js'
import { sha256 } from './hash.js'
import { latin1 } from '../primitives/hex.js'

/** A 32-byte seed and its 32-byte public key; CometBFT stores `seed ‖ pubkey` as the 64-byte private key. */
export interface Ed25519KeyPair {
  seed: Uint8Array
  publicKey: Uint8Array
}

/** DER of a PKCS#8 ed25519 private key before its 32-byte seed (RFC 8410). */
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')
/** DER of an SPKI ed25519 public key before its 32 bytes (RFC 8410). */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')

/** KeyObjects of the keys in use (a node signs with one key and verifies a validator set's): bounded. */
const KEY_CACHE_SIZE = 1024
const privateKeys = new Map<string, KeyObject>()
const publicKeys = new Map<string, KeyObject>()

function cached(cache: Map<string, KeyObject>, bytes: Uint8Array, make: () => KeyObject): KeyObject {
  const id = latin1(bytes)
  let key = cache.get(id)
  if (key === undefined) {
    key = make()
    if (cache.size >= KEY_CACHE_SIZE) cache.delete(cache.keys().next().value!)
    cache.set(id, key)
  }
  return key
}

function privateKeyOf(seed: Uint8Array): KeyObject {
  return cached(privateKeys, seed, () => createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' }))
}

function publicKeyOf(publicKey: Uint8Array): KeyObject {
  return cached(publicKeys, publicKey, () => createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' }))
}

/** The address of an ed25519 key as CometBFT derives it (validators, node ids): SHA-256(pubKey)[:20]. */
export function ed25519Address(publicKey: Uint8Array): Uint8Array {
  return sha256(publicKey).subarray(0, 20)
}

export function ed25519FromSeed(seed: Uint8Array): Ed25519KeyPair {
  if (seed.length !== 32) throw new Error('ed25519 seed must be 32 bytes')
  const spki = createPublicKey(privateKeyOf(seed)).export({ format: 'der', type: 'spki' })
  return { seed, publicKey: new Uint8Array(spki.subarray(SPKI_PREFIX.length)) }
}

/** A new key pair from OpenSSL, read back as JWK (no DER decoding: about a third of `ed25519FromSeed`'s cost on a first call). */
export function ed25519Generate(): Ed25519KeyPair {
  const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' })
  return { seed: new Uint8Array(Buffer.from(jwk.d!, 'base64url')), publicKey: new Uint8Array(Buffer.from(jwk.x!, 'base64url')) }
}

export function ed25519Sign(seed: Uint8Array, message: Uint8Array): Uint8Array {
  if (seed.length !== 32) throw new Error('ed25519 seed must be 32 bytes')
  return new Uint8Array(sign(null, message, privateKeyOf(seed)))
}

export function ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false
  try {
    if (verify(null, message, publicKeyOf(publicKey), signature)) return true
  } catch {
    // A public key OpenSSL cannot decode: ZIP-215 decides below.
  }
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: true })
  } catch {
    return false
  }
}
