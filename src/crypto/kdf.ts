/**
 * Key derivation and symmetric encryption for Web3 Secret Storage files (keystore/key-file.ts).
 * scrypt and PBKDF2 run in OpenSSL on libuv's thread pool where OpenSSL accepts the parameters: a
 * standard-strength scrypt (n = 2^18, about 2 s) must not stall the event loop of a node producing
 * blocks. OpenSSL enforces RFC 7914's n < 2^(16·r), which some files break (the published test vector
 * has r = 1, n = 2^18); those go to ethereum-cryptography's scrypt, which yields to the event loop
 * as it works. AES-128-CTR is OpenSSL's too (a JavaScript AES builds its tables when loaded, which
 * every `nodectl start` paid).
 */
import { createCipheriv, pbkdf2 as nodePbkdf2, scrypt as nodeScrypt } from 'node:crypto'
import { scrypt as nobleScrypt } from 'ethereum-cryptography/scrypt.js'

/** scrypt cost parameters (RFC 7914): CPU/memory cost `n`, block size `r`, parallelism `p`, output length. */
export interface ScryptParams {
  n: number
  r: number
  p: number
  dklen: number
}

/** Memory scrypt needs: 128 · n · r bytes, plus slack for OpenSSL's own buffers. */
function scryptMaxMem(params: ScryptParams): number {
  return 128 * params.n * params.r + 1024 * 1024 * params.p + 32 * 1024 * 1024
}

/** RFC 7914 §2 asks n < 2^(128·r/8); OpenSSL refuses parameters outside it. */
function openSslAccepts(params: ScryptParams): boolean {
  return 16 * params.r >= 53 || params.n < 2 ** (16 * params.r)
}

/** scrypt(password, salt) with `params`; rejects parameters OpenSSL refuses (n not a power of two...). */
export function scrypt(password: Uint8Array, salt: Uint8Array, params: ScryptParams): Promise<Uint8Array> {
  if (!openSslAccepts(params)) return nobleScrypt(password, salt, params.n, params.p, params.r, params.dklen)
  return new Promise((resolve, reject) => {
    nodeScrypt(password, salt, params.dklen, { N: params.n, r: params.r, p: params.p, maxmem: scryptMaxMem(params) }, (err, key) => {
      if (err) reject(new Error(`scrypt: ${err.message}`))
      else resolve(new Uint8Array(key.buffer, key.byteOffset, key.byteLength))
    })
  })
}

/** PBKDF2-HMAC-SHA256 (the `pbkdf2` KDF of Web3 Secret Storage, prf `hmac-sha256`). */
export function pbkdf2Sha256(password: Uint8Array, salt: Uint8Array, iterations: number, dklen: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    nodePbkdf2(password, salt, iterations, dklen, 'sha256', (err, key) => {
      if (err) reject(new Error(`pbkdf2: ${err.message}`))
      else resolve(new Uint8Array(key.buffer, key.byteOffset, key.byteLength))
    })
  })
}

/** AES-128-CTR with a 16-byte key and IV; CTR is its own inverse, so this both encrypts and decrypts. */
export function aes128Ctr(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Uint8Array {
  const cipher = createCipheriv('aes-128-ctr', key, iv)
  return new Uint8Array(Buffer.concat([cipher.update(data), cipher.final()]))
}

/** Overwrites secret bytes (a decrypted key, a derived key) once they are no longer needed. */
export function wipe(...secrets: (Uint8Array | undefined)[]): void {
  for (const s of secrets) s?.fill(0)
}
