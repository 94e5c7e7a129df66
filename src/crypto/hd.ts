/**
 * BIP-39 mnemonics and BIP-32 hierarchical deterministic keys, as wallets (MetaMask, Hardhat, Anvil,
 * ethers) derive Ethereum accounts: seed = PBKDF2(mnemonic), then the path m/44'/60'/0'/0/i (BIP-44,
 * coin type 60 = Ether, SLIP-44).
 */
import { createHmac, pbkdf2Sync } from 'node:crypto'
import { validateMnemonic } from 'ethereum-cryptography/bip39/index.js'
import { wordlist } from 'ethereum-cryptography/bip39/wordlists/english.js'
import { privateKeyToCompressedPublicKey } from './secp256k1.js'

/** The BIP-44 path prefix of Ethereum accounts; account i is `${ETH_DERIVATION_PREFIX}${i}`. */
export const ETH_DERIVATION_PREFIX = "m/44'/60'/0'/0/"

/** True when `mnemonic` is a valid English BIP-39 phrase (words in the list, checksum correct). */
export function isValidMnemonic(mnemonic: string): boolean {
  return validateMnemonic(mnemonic.trim(), wordlist)
}

/** BIP-39: PBKDF2-HMAC-SHA512 iterations. */
const BIP39_ROUNDS = 2048
/** BIP-32: child indexes from 2^31 are hardened. */
const HARDENED = 0x8000_0000
/** The order n of secp256k1's group. */
const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/**
 * The 64-byte BIP-39 seed of a mnemonic (PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic" + passphrase,
 * both NFKD-normalised), with OpenSSL's PBKDF2: the pure-JS one took ~80 ms of every `start --dev`.
 */
export function mnemonicToSeed(mnemonic: string, passphrase = ''): Uint8Array {
  if (!isValidMnemonic(mnemonic)) throw new Error('invalid BIP-39 mnemonic')
  const password = Buffer.from(mnemonic.trim().normalize('NFKD'), 'utf8')
  const salt = Buffer.from(('mnemonic' + passphrase).normalize('NFKD'), 'utf8')
  return new Uint8Array(pbkdf2Sync(password, salt, BIP39_ROUNDS, 64, 'sha512'))
}

function hmacSha512(key: Uint8Array, data: Uint8Array): Buffer {
  return createHmac('sha512', key).update(data).digest()
}

function toScalar(bytes: Uint8Array): bigint {
  return BigInt('0x' + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex'))
}

function fromScalar(k: bigint): Uint8Array {
  return Uint8Array.from(Buffer.from(k.toString(16).padStart(64, '0'), 'hex'))
}

/** Child indexes of a BIP-32 path (`m/44'/60'/0'/0/0`; `'` or `h` marks a hardened index). */
function parsePath(path: string): number[] {
  const parts = path.split('/')
  if (parts[0] !== 'm') throw new Error(`invalid BIP-32 path ${path}: it must start with "m"`)
  return parts.slice(1).map((part) => {
    const hardened = part.endsWith("'") || part.endsWith('h')
    const digits = hardened ? part.slice(0, -1) : part
    if (!/^\d+$/.test(digits) || Number(digits) >= HARDENED) throw new Error(`invalid BIP-32 path ${path}: bad index ${part}`)
    return Number(digits) + (hardened ? HARDENED : 0)
  })
}

/**
 * Derives the 32-byte secp256k1 private key at a BIP-32 `path` (e.g. m/44'/60'/0'/0/0) from a BIP-39
 * seed: master key from HMAC-SHA512("Bitcoin seed", seed), then CKDpriv per index. HMAC is OpenSSL's and
 * public keys come from the native secp256k1 binding (crypto/secp256k1.ts), instead of @scure/bip32's
 * pure-JS point multiplications (~150 ms for the ten dev accounts at every `start --dev`).
 */
export function derivePrivateKey(seed: Uint8Array, path: string): Uint8Array {
  const master = hmacSha512(Buffer.from('Bitcoin seed', 'latin1'), seed)
  let key: Uint8Array = master.subarray(0, 32)
  let chainCode: Uint8Array = master.subarray(32)
  if (toScalar(key) === 0n || toScalar(key) >= CURVE_ORDER) throw new Error('invalid BIP-32 master key')
  for (const index of parsePath(path)) {
    const data = Buffer.alloc(37)
    if (index >= HARDENED) data.set(key, 1)
    else data.set(privateKeyToCompressedPublicKey(key), 0)
    data.writeUInt32BE(index, 33)
    const i = hmacSha512(chainCode, data)
    const tweak = toScalar(i.subarray(0, 32))
    const child = (tweak + toScalar(key)) % CURVE_ORDER
    // BIP-32: such an index yields no key (probability below 2^-127); wallets move on to the next one.
    if (tweak >= CURVE_ORDER || child === 0n) throw new Error(`no private key at ${path}`)
    key = fromScalar(child)
    chainCode = i.subarray(32)
  }
  return Uint8Array.from(key)
}
