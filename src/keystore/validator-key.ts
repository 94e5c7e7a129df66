/**
 * CometBFT key files: `config/priv_validator_key.json` and `config/node_key.json` (ed25519; the
 * private key is stored as the 64-byte `seed ‖ pubkey`, base64, Amino-JSON typed).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { ed25519Address, ed25519FromSeed, ed25519Generate, type Ed25519KeyPair } from '../crypto/index.js'
import { base64ToBytes, bytesToBase64, bytesToHex, bytesToUpperHex, equalBytes } from '../primitives/hex.js'

export const PUBKEY_ED25519 = 'tendermint/PubKeyEd25519'
export const PRIVKEY_ED25519 = 'tendermint/PrivKeyEd25519'

export interface ValidatorKey extends Ed25519KeyPair {
  /** SHA-256(pubkey)[:20]. */
  address: Uint8Array
}

export function keyFromSeed(seed: Uint8Array): ValidatorKey {
  const pair = ed25519FromSeed(seed)
  return { ...pair, address: ed25519Address(pair.publicKey) }
}

export function generateKey(): ValidatorKey {
  return keyFromSeed(ed25519Generate().seed)
}

/** Node ID: lower-case hex of the node key's address. */
export function nodeIdOf(key: ValidatorKey): string {
  return bytesToHex(key.address).slice(2)
}

/** The node ID of an ed25519 public key (a peer's, from its connection). */
export function nodeIdOfPublicKey(publicKey: Uint8Array): string {
  return bytesToHex(ed25519Address(publicKey)).slice(2)
}

function privKeyJson(key: ValidatorKey): { type: string; value: string } {
  const priv = new Uint8Array(64)
  priv.set(key.seed, 0)
  priv.set(key.publicKey, 32)
  return { type: PRIVKEY_ED25519, value: bytesToBase64(priv) }
}

function parsePrivKey(json: unknown, file: string): ValidatorKey {
  const obj = json as { type?: string; value?: string } | undefined
  if (!obj || obj.type !== PRIVKEY_ED25519 || typeof obj.value !== 'string')
    throw new Error(`${file}: priv_key must be {"type":"${PRIVKEY_ED25519}","value":"<base64>"}`)
  const bytes = base64ToBytes(obj.value)
  if (bytes.length !== 64) throw new Error(`${file}: priv_key must be 64 bytes (seed ‖ pubkey)`)
  const key = keyFromSeed(bytes.slice(0, 32))
  if (!equalBytes(key.publicKey, bytes.subarray(32))) throw new Error(`${file}: priv_key public half does not match its seed`)
  return key
}

async function writeSecretJson(path: string, value: unknown): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, JSON.stringify(value, null, 2) + '\n', { mode: 0o600 })
}

export async function saveValidatorKey(path: string, key: ValidatorKey): Promise<void> {
  await writeSecretJson(path, {
    address: bytesToUpperHex(key.address),
    pub_key: { type: PUBKEY_ED25519, value: bytesToBase64(key.publicKey) },
    priv_key: privKeyJson(key),
  })
}

export async function loadValidatorKey(path: string): Promise<ValidatorKey> {
  const json = JSON.parse(await readFile(path, 'utf8')) as { priv_key?: unknown; address?: string }
  const key = parsePrivKey(json.priv_key, path)
  if (json.address !== undefined && json.address.toUpperCase() !== bytesToUpperHex(key.address))
    throw new Error(`${path}: address does not match the key`)
  return key
}

export async function saveNodeKey(path: string, key: ValidatorKey): Promise<void> {
  await writeSecretJson(path, { priv_key: privKeyJson(key) })
}

export async function loadNodeKey(path: string): Promise<ValidatorKey> {
  const json = JSON.parse(await readFile(path, 'utf8')) as { priv_key?: unknown }
  return parsePrivKey(json.priv_key, path)
}
