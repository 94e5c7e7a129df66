/** Hash functions. `crypto/` is the only folder that imports curve and hash libraries. */
import nodeCrypto, { createHash } from 'node:crypto'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { createWasmKeccak256 } from './keccak-wasm.js'

const wasmKeccak256 = process.env.NODECTL_PURE_JS_CRYPTO === '1' ? undefined : createWasmKeccak256()

/** Which implementation computes Keccak-256: 'wasm' (crypto/keccak-wasm.ts) or 'noble'. */
export const keccakBackend: 'wasm' | 'noble' = wasmKeccak256 ? 'wasm' : 'noble'

/** Keccak-256 (Ethereum's "sha3"), not the standardised SHA3-256. */
export const keccak256: (data: Uint8Array) => Uint8Array = wasmKeccak256 ?? ((data) => keccak_256(data))

/** node:crypto's one-shot digest (Node ≥ 20.12): no Hash object per call, ~20% cheaper on short inputs. */
const oneShot = (nodeCrypto as { hash?: (algorithm: string, data: Uint8Array, encoding: 'buffer') => Buffer }).hash

/** SHA-256 via OpenSSL (CometBFT's tmhash). */
export function sha256(data: Uint8Array): Uint8Array {
  const digest = oneShot ? oneShot('sha256', data, 'buffer') : createHash('sha256').update(data).digest()
  return new Uint8Array(digest.buffer, digest.byteOffset, digest.byteLength)
}
