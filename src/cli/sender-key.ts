/**
 * The sender's key of the transaction commands (`tx send`, `tx set-validator`) from `--from`: a
 * key-store name or address (any letter case), decrypted with the passphrase of `--password-file`,
 * $NODECTL_PASSWORD or a prompt; or a raw hex key, or a file holding one (set-validator's older forms).
 */
import { readFile, stat } from 'node:fs/promises'
import { Flags } from '@oclif/core'
import { homePaths, resolveHome } from '../config/home.js'
import { isValidPrivateKey, privateKeyToAddress } from '../crypto/index.js'
import { KeyStore, looksLikeAddress, type KeyInfo } from '../keystore/key-store.js'
import { toChecksumAddress } from '../primitives/address.js'
import { hexToBytes } from '../primitives/hex.js'
import { describeKeystoreError } from './keystore-command.js'
import { readPassphrase } from './passphrase.js'
import { withSpinner } from './spinner.js'

type Hex = `0x${string}`
const RAW_KEY = /^(0x)?[0-9a-fA-F]{64}$/

/** `--from` names no usable key: shown as one line. */
export class SenderKeyError extends Error {}

/** The one line shown for a failure to get the sender's key (this file's, the key store's, the passphrase's); undefined for others. */
export function describeSenderError(err: unknown): string | undefined {
  return err instanceof SenderKeyError ? err.message : describeKeystoreError(err)
}

/** The key-store flags of the signing commands (`--from` is each command's own: its summary differs). */
export const signerFlags = {
  'password-file': Flags.string({
    summary: 'File whose first line is the passphrase of a key-store --from [default: $NODECTL_PASSWORD, else a hidden prompt].',
    helpGroup: 'KEY STORE',
  }),
  'keystore-dir': Flags.string({ summary: 'Key-store folder for --from [default: <home>/keystore of --home].', helpGroup: 'KEY STORE' }),
}

/** Where the sender's key comes from: the parsed `--from`, `--password-file`, `--keystore-dir` and `--home`. */
export interface SenderOptions {
  from: string
  passwordFile?: string | undefined
  keystoreDir?: string | undefined
  home?: string | undefined
}

/** The sender options of parsed flags. */
export function senderOf(flags: {
  from: string
  'password-file'?: string | undefined
  'keystore-dir'?: string | undefined
  home?: string | undefined
}): SenderOptions {
  return { from: flags.from, passwordFile: flags['password-file'], keystoreDir: flags['keystore-dir'], home: flags.home }
}

/** A sender's key: wipe `privateKey` once signed. */
export interface SenderKey {
  /** EIP-55 address. */
  address: Hex
  privateKey: Uint8Array
}

/**
 * The key `--from` names: 64 hex digits are a raw key; else a key-store account by name or address (any
 * letter case), decrypted under a spinner; else a file holding a raw key (set-validator's older form).
 */
export async function resolveSenderKey(opts: SenderOptions): Promise<SenderKey> {
  const from = opts.from.trim()
  if (RAW_KEY.test(from)) return senderKeyOf(await loadSenderKey(from))
  const store = new KeyStore({ dir: opts.keystoreDir ?? homePaths(resolveHome(opts.home)).keystoreDir })
  const account = await store.lookup(from)
  if (account) return decryptAccount(store, account, opts.passwordFile)
  if (!looksLikeAddress(from) && (await isFile(from))) return senderKeyOf(await loadSenderKey(from))
  const what = looksLikeAddress(from) ? 'no key for this address' : 'not a name or address'
  throw new SenderKeyError(
    `invalid --from "${from}": ${what} in the key store ${store.dir} (see nodectl keys list), nor a private key (64 hex digits) or a file holding one`,
  )
}

async function decryptAccount(store: KeyStore, account: KeyInfo, passwordFile: string | undefined): Promise<SenderKey> {
  const label = account.name === undefined ? account.address : `${account.name} (${account.address})`
  const passphrase = await readPassphrase({ file: passwordFile, message: `Passphrase of ${label}` })
  const { privateKey } = await withSpinner(`Decrypting the key of ${label}`, () => store.decrypt(account.address, passphrase))
  return { address: account.address as Hex, privateKey }
}

function senderKeyOf(privateKey: Uint8Array): SenderKey {
  return { address: toChecksumAddress(privateKeyToAddress(privateKey)) as Hex, privateKey }
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  )
}

/** A 32-byte secp256k1 private key: 64 hex digits (0x optional), or a file containing them. */
export async function loadSenderKey(input: string): Promise<Uint8Array> {
  const hex = RAW_KEY.test(input.trim()) ? input.trim() : await readKeyFile(input)
  const key = hexToBytes(hex.startsWith('0x') ? hex : `0x${hex}`)
  if (!isValidPrivateKey(key)) throw new SenderKeyError('invalid --from: not a valid secp256k1 private key')
  return key
}

async function readKeyFile(path: string): Promise<string> {
  let text: string
  try {
    text = (await readFile(path, 'utf8')).trim()
  } catch {
    throw new SenderKeyError(`invalid --from "${path}": want a private key (64 hex digits) or a file holding one`)
  }
  if (!RAW_KEY.test(text)) throw new SenderKeyError(`invalid --from "${path}": the file does not hold a private key (64 hex digits)`)
  return text
}
