/**
 * secp256k1 for Ethereum accounts. Recovery uses the native libsecp256k1 binding when it loads
 * (about 21,000 recoveries/s against 900 in pure JS, measured on this project's 2-core machine), else
 * @noble/curves.
 */
import { createRequire } from 'node:module'
import { secp256k1 as noble } from '@noble/curves/secp256k1.js'
import { keccak256 } from './hash.js'

interface NativeSecp256k1 {
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed?: boolean): Uint8Array
  ecdsaSign(msg32: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number }
  publicKeyCreate(privateKey: Uint8Array, compressed?: boolean): Uint8Array
}

/** Read when this module loads, as the binding used to be. */
const pureJs = process.env.NODECTL_PURE_JS_CRYPTO === '1'

/** The binding once tried (null: unavailable). Loading it takes 15–20 ms, so not before a key is first used. */
let binding: NativeSecp256k1 | null | undefined

function nativeBinding(): NativeSecp256k1 | null {
  if (binding !== undefined) return binding
  binding = null
  if (!pureJs) {
    try {
      binding = createRequire(import.meta.url)('secp256k1') as NativeSecp256k1
    } catch {
      // not built for this platform: @noble/curves does the work
    }
  }
  return binding
}

/** Which implementation recovers signatures: 'native' or 'noble'. */
export function secp256k1Backend(): 'native' | 'noble' {
  return nativeBinding() ? 'native' : 'noble'
}

/** r ‖ s as 64 bytes (each left-padded to 32, or its last 32 bytes when longer), as recovery takes them. */
export function packSignature(r: Uint8Array, s: Uint8Array): Uint8Array {
  const sig = new Uint8Array(64)
  sig.set(r.length > 32 ? r.subarray(r.length - 32) : r, 32 - Math.min(32, r.length))
  sig.set(s.length > 32 ? s.subarray(s.length - 32) : s, 64 - Math.min(32, s.length))
  return sig
}

/** Recovers the 65-byte uncompressed public key (0x04 ‖ X ‖ Y) from a 32-byte hash and r‖s. */
export function recoverPublicKey(hash: Uint8Array, r: Uint8Array, s: Uint8Array, recovery: number): Uint8Array {
  if (recovery !== 0 && recovery !== 1) throw new Error('invalid signature recovery id')
  const sig = packSignature(r, s)
  const native = nativeBinding()
  if (native) return native.ecdsaRecover(sig, recovery, hash, false)
  const signature = noble.Signature.fromBytes(sig, 'compact').addRecoveryBit(recovery)
  return signature.recoverPublicKey(hash).toBytes(false)
}

/** The address (last 20 bytes of keccak of X ‖ Y) of a 65- or 64-byte public key. */
export function publicKeyToAddress(publicKey: Uint8Array): Uint8Array {
  const xy = publicKey.length === 65 ? publicKey.subarray(1) : publicKey
  return keccak256(xy).subarray(12)
}

export function privateKeyToPublicKey(privateKey: Uint8Array): Uint8Array {
  const native = nativeBinding()
  if (native) return native.publicKeyCreate(privateKey, false)
  return noble.getPublicKey(privateKey, false)
}

/** The 33-byte compressed public key (0x02/0x03 ‖ X) of a private key. */
export function privateKeyToCompressedPublicKey(privateKey: Uint8Array): Uint8Array {
  const native = nativeBinding()
  if (native) return native.publicKeyCreate(privateKey, true)
  return noble.getPublicKey(privateKey, true)
}

export function privateKeyToAddress(privateKey: Uint8Array): Uint8Array {
  return publicKeyToAddress(privateKeyToPublicKey(privateKey))
}

/** Signs a 32-byte hash; returns r, s (32 bytes each) and the recovery id (0/1), low-s normalised. */
export function signHash(hash: Uint8Array, privateKey: Uint8Array): { r: Uint8Array; s: Uint8Array; recovery: number } {
  const native = nativeBinding()
  if (native) {
    const { signature, recid } = native.ecdsaSign(hash, privateKey)
    return { r: signature.slice(0, 32), s: signature.slice(32, 64), recovery: recid }
  }
  const sig = noble.sign(hash, privateKey, { prehash: false, format: 'recovered' })
  return { r: sig.slice(1, 33), s: sig.slice(33, 65), recovery: sig[0]! }
}

export function isValidPrivateKey(key: Uint8Array): boolean {
  return key.length === 32 && noble.utils.isValidSecretKey(key)
}
