/** ed25519 for validator and node keys (RFC 8032; verification with ZIP-215 rules, as CometBFT). */
import { ed25519 } from '@noble/curves/ed25519.js'
import { randomBytes } from './random.js'

/** A 32-byte seed and its 32-byte public key; CometBFT stores `seed ‖ pubkey` as the 64-byte private key. */
export interface Ed25519KeyPair {
  seed: Uint8Array
  publicKey: Uint8Array
}

export function ed25519FromSeed(seed: Uint8Array): Ed25519KeyPair {
  if (seed.length !== 32) throw new Error('ed25519 seed must be 32 bytes')
  return { seed, publicKey: ed25519.getPublicKey(seed) }
}

export function ed25519Generate(): Ed25519KeyPair {
  return ed25519FromSeed(randomBytes(32))
}

export function ed25519Sign(seed: Uint8Array, message: Uint8Array): Uint8Array {
  return ed25519.sign(message, seed)
}

export function ed25519Verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    return ed25519.verify(signature, message, publicKey, { zip215: true })
  } catch {
    return false
  }
}
