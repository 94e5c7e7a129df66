/**
 * Web3 Secret Storage v3 key files, as geth (`accounts/keystore/passphrase.go`), ethers and Foundry
 * write them: the private key encrypted with AES-128-CTR under the first 16 bytes of a key derived from
 * the passphrase (scrypt, or PBKDF2-HMAC-SHA256 on import), and MAC = Keccak-256(derivedKey[16..32] ‖
 * ciphertext), which tells a wrong passphrase from a right one before anything is decrypted.
 */
import { randomUUID } from 'node:crypto'
import { aes128Ctr, keccak256, pbkdf2Sha256, privateKeyToAddress, randomBytes, scrypt, wipe, type ScryptParams } from '../crypto/index.js'
import { toChecksumAddress } from '../primitives/address.js'
import { bytesToHex, concatBytes, equalBytes, hexToBytes, utf8ToBytes } from '../primitives/hex.js'

/** geth `StandardScryptN/P`: about 2 s and 256 MiB per derivation. */
export const STANDARD_SCRYPT: ScryptParams = { n: 1 << 18, r: 8, p: 1, dklen: 32 }
/** geth `LightScryptN/P` (`--lightkdf`): for tests and throw-away dev homes, not for keys worth anything. */
export const LIGHT_SCRYPT: ScryptParams = { n: 1 << 12, r: 8, p: 6, dklen: 32 }

/** Bounds on the KDF parameters of a file we are asked to open, so a hostile file cannot exhaust memory or time. */
const MAX_SCRYPT_N = 1 << 20
const MAX_SCRYPT_RP = 1 << 10
const MAX_PBKDF2_ROUNDS = 10_000_000

/** geth's message for a MAC mismatch, which ethers and scripts match on. */
export const WRONG_PASSPHRASE = 'could not decrypt key with given password'

/** The passphrase does not open the file (MAC mismatch). */
export class WrongPassphraseError extends Error {
  constructor() {
    super(WRONG_PASSPHRASE)
    this.name = 'WrongPassphraseError'
  }
}

/** The text is not a v3 key file we can open. */
export class KeyFileFormatError extends Error {
  constructor(reason: string) {
    super(`not a Web3 Secret Storage v3 key file: ${reason}`)
    this.name = 'KeyFileFormatError'
  }
}

type ScryptKdfParams = { dklen: number; n: number; r: number; p: number; salt: string }
type Pbkdf2KdfParams = { dklen: number; c: number; prf: 'hmac-sha256'; salt: string }

/** The JSON of a v3 key file (hex without 0x, as geth writes it). */
export interface KeyFileV3 {
  address: string
  crypto: {
    cipher: 'aes-128-ctr'
    ciphertext: string
    cipherparams: { iv: string }
    kdf: 'scrypt' | 'pbkdf2'
    kdfparams: ScryptKdfParams | Pbkdf2KdfParams
    mac: string
  }
  id: string
  version: 3
}

/** A decrypted key: wipe `privateKey` with `crypto.wipe` once done. */
export interface DecryptedKey {
  /** EIP-55 address. */
  address: string
  privateKey: Uint8Array
}

/** Encrypts `privateKey` under `passphrase` (scrypt with `params`, default the standard strength). */
export async function encryptKey(
  privateKey: Uint8Array,
  passphrase: string,
  params: ScryptParams = STANDARD_SCRYPT,
  /** The key's address, when the caller has it (else derived here). */
  address: Uint8Array = privateKeyToAddress(privateKey),
): Promise<KeyFileV3> {
  const salt = randomBytes(32)
  const iv = randomBytes(16)
  const password = utf8ToBytes(passphrase)
  const derived = await scrypt(password, salt, params)
  try {
    const ciphertext = aes128Ctr(derived.subarray(0, 16), iv, privateKey)
    return {
      address: bytesToHex(address).slice(2),
      crypto: {
        cipher: 'aes-128-ctr',
        ciphertext: hex(ciphertext),
        cipherparams: { iv: hex(iv) },
        kdf: 'scrypt',
        kdfparams: { dklen: params.dklen, n: params.n, p: params.p, r: params.r, salt: hex(salt) },
        mac: hex(macOf(derived, ciphertext)),
      },
      id: randomUUID(),
      version: 3,
    }
  } finally {
    wipe(derived, password)
  }
}

/**
 * Decrypts a key file. Throws {@link WrongPassphraseError} when the MAC does not match and
 * {@link KeyFileFormatError} when the file is not one we can read, or its address is not its key's.
 */
export async function decryptKey(file: KeyFileV3, passphrase: string): Promise<DecryptedKey> {
  const { crypto: c } = file
  const password = utf8ToBytes(passphrase)
  const derived = await deriveKey(c.kdf, c.kdfparams, password)
  try {
    const ciphertext = unhex(c.ciphertext, 'crypto.ciphertext')
    if (!equalBytes(macOf(derived, ciphertext), unhex(c.mac, 'crypto.mac'))) throw new WrongPassphraseError()
    const privateKey = aes128Ctr(derived.subarray(0, 16), unhex(c.cipherparams.iv, 'crypto.cipherparams.iv'), ciphertext)
    const address = toChecksumAddress(privateKeyToAddress(privateKey))
    if (file.address !== '' && address.slice(2).toLowerCase() !== file.address.toLowerCase().replace(/^0x/, '')) {
      wipe(privateKey)
      // geth: "key content mismatch: have account %x, want %x"
      throw new KeyFileFormatError(`key content mismatch: have account ${address}, want 0x${file.address.replace(/^0x/, '')}`)
    }
    return { address, privateKey }
  } finally {
    wipe(derived, password)
  }
}

/** Parses and checks the shape of a v3 key file (`Crypto` is accepted for `crypto`, as geth does). */
export function parseKeyFile(text: string): KeyFileV3 {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new KeyFileFormatError('not JSON')
  }
  if (!isObject(json)) throw new KeyFileFormatError('not a JSON object')
  if (json.version !== 3) throw new KeyFileFormatError(`version ${JSON.stringify(json.version)}, want 3`)
  const c = json.crypto ?? json.Crypto
  if (!isObject(c)) throw new KeyFileFormatError('no crypto object')
  if (c.cipher !== 'aes-128-ctr') throw new KeyFileFormatError(`cipher ${JSON.stringify(c.cipher)} is not supported (want aes-128-ctr)`)
  if (!isObject(c.cipherparams) || !isHex(c.cipherparams.iv, 16))
    throw new KeyFileFormatError('crypto.cipherparams.iv must be 16 bytes of hex')
  if (!isHex(c.ciphertext)) throw new KeyFileFormatError('crypto.ciphertext must be hex')
  if (!isHex(c.mac, 32)) throw new KeyFileFormatError('crypto.mac must be 32 bytes of hex')
  const kdfparams = checkKdfParams(c.kdf, c.kdfparams)
  const address = json.address === undefined ? '' : json.address
  if (typeof address !== 'string' || (address !== '' && !/^(0x)?[0-9a-fA-F]{40}$/.test(address)))
    throw new KeyFileFormatError('address must be 20 bytes of hex')
  return {
    address: address.replace(/^0x/, '').toLowerCase(),
    crypto: {
      cipher: 'aes-128-ctr',
      ciphertext: strip(c.ciphertext),
      cipherparams: { iv: strip(c.cipherparams.iv) },
      kdf: c.kdf as 'scrypt' | 'pbkdf2',
      kdfparams,
      mac: strip(c.mac),
    },
    id: typeof json.id === 'string' ? json.id : randomUUID(),
    version: 3,
  }
}

/** The JSON text of a key file as written to disk (geth's field order, no 0x). */
export function serializeKeyFile(file: KeyFileV3): string {
  return JSON.stringify(file)
}

function checkKdfParams(kdf: unknown, params: unknown): ScryptKdfParams | Pbkdf2KdfParams {
  if (!isObject(params)) throw new KeyFileFormatError('no crypto.kdfparams object')
  if (!isHex(params.salt)) throw new KeyFileFormatError('crypto.kdfparams.salt must be hex')
  if (params.dklen !== 32) throw new KeyFileFormatError(`crypto.kdfparams.dklen ${JSON.stringify(params.dklen)}, want 32`)
  const salt = strip(params.salt)
  if (kdf === 'scrypt') {
    const { n, r, p } = params
    if (!isPositiveInt(n) || (n & (n - 1)) !== 0 || n < 2 || n > MAX_SCRYPT_N)
      throw new KeyFileFormatError(`scrypt n ${JSON.stringify(n)} must be a power of two from 2 to ${MAX_SCRYPT_N}`)
    if (!isPositiveInt(r) || !isPositiveInt(p) || r * p > MAX_SCRYPT_RP)
      throw new KeyFileFormatError(`scrypt r and p must be positive integers with r·p ≤ ${MAX_SCRYPT_RP}`)
    return { dklen: 32, n, r, p, salt }
  }
  if (kdf === 'pbkdf2') {
    if (params.prf !== 'hmac-sha256')
      throw new KeyFileFormatError(`pbkdf2 prf ${JSON.stringify(params.prf)} is not supported (want hmac-sha256)`)
    if (!isPositiveInt(params.c) || params.c > MAX_PBKDF2_ROUNDS)
      throw new KeyFileFormatError(`pbkdf2 c must be a positive integer up to ${MAX_PBKDF2_ROUNDS}`)
    return { dklen: 32, c: params.c, prf: 'hmac-sha256', salt }
  }
  throw new KeyFileFormatError(`kdf ${JSON.stringify(kdf)} is not supported (want scrypt or pbkdf2)`)
}

function deriveKey(kdf: 'scrypt' | 'pbkdf2', params: ScryptKdfParams | Pbkdf2KdfParams, password: Uint8Array): Promise<Uint8Array> {
  const salt = unhex(params.salt, 'crypto.kdfparams.salt')
  if (kdf === 'scrypt') {
    const p = params as ScryptKdfParams
    return scrypt(password, salt, { n: p.n, r: p.r, p: p.p, dklen: p.dklen })
  }
  const p = params as Pbkdf2KdfParams
  return pbkdf2Sha256(password, salt, p.c, p.dklen)
}

function macOf(derived: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  return keccak256(concatBytes(derived.subarray(16, 32), ciphertext))
}

function hex(bytes: Uint8Array): string {
  return bytesToHex(bytes).slice(2)
}

function unhex(s: string, field: string): Uint8Array {
  if (!isHex(s)) throw new KeyFileFormatError(`${field} must be hex`)
  return hexToBytes('0x' + strip(s))
}

function strip(s: string): string {
  return s.replace(/^0x/, '').toLowerCase()
}

function isHex(value: unknown, bytes?: number): value is string {
  if (typeof value !== 'string') return false
  const digits = value.replace(/^0x/, '')
  return /^([0-9a-fA-F]{2})*$/.test(digits) && (bytes === undefined || digits.length === bytes * 2)
}

function isPositiveInt(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
