/** Hash functions. `crypto/` is the only folder that imports curve and hash libraries. */
import { createHash } from 'node:crypto'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { ripemd160 as nobleRipemd160 } from '@noble/hashes/legacy.js'

/** Keccak-256 (Ethereum's "sha3"), not the standardised SHA3-256. */
export function keccak256(data: Uint8Array): Uint8Array {
  return keccak_256(data)
}

/** SHA-256 via OpenSSL (CometBFT's tmhash). */
export function sha256(data: Uint8Array): Uint8Array {
  const digest = createHash('sha256').update(data).digest()
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength)
}

export function ripemd160(data: Uint8Array): Uint8Array {
  return nobleRipemd160(data)
}
