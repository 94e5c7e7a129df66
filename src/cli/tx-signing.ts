/**
 * What the transaction commands (`tx send`, `tx set-validator`) share: the sender's key from `--from`
 * (a key-store name or address, decrypted with the passphrase of `--password-file`, $NODECTL_PASSWORD
 * or a prompt; or a raw hex key, or a file holding one), the values they parse, and one signing path:
 * fill what the user left out as geth's `eth_sendTransaction` does (pending nonce, gas estimate, fees),
 * sign locally, wipe the key, submit with eth_sendRawTransaction, and wait for the receipt.
 */
import { readFile, stat } from 'node:fs/promises'
import { Flags } from '@oclif/core'
import { createFeeMarket1559Tx, createLegacyTx } from '@ethereumjs/tx'
import { getCommon } from '../chain/evm/common.js'
import { homePaths, resolveHome } from '../config/home.js'
import { isValidPrivateKey, privateKeyToAddress, wipe } from '../crypto/index.js'
import { KeyFileFormatError, WrongPassphraseError } from '../keystore/key-file.js'
import { KeyStore, KeyStoreError, looksLikeAddress, type KeyInfo } from '../keystore/key-store.js'
import { toChecksumAddress } from '../primitives/address.js'
import { base64ToBytes, bytesToHex, hexToBytes } from '../primitives/hex.js'
import { JsonRpcClientError, type HttpRpcClient } from '../rpc/client/index.js'
import { readPassphrase } from './passphrase.js'
import { withSpinner } from './spinner.js'

/** How often a command polls for its receipt (ms). */
export const RECEIPT_POLL_MS = 200
/** geth's fee cap when it fills a tx (`transaction_args.go`): tip + 2 × base fee, room for six full blocks of +12.5 %. */
const BASE_FEE_HEADROOM = 2n

type Hex = `0x${string}`
const RAW_KEY = /^(0x)?[0-9a-fA-F]{64}$/

/** A failure to get the sender's key (unknown account, wrong passphrase, no passphrase source): shown as one line. */
export class SenderKeyError extends Error {}

/** The one line shown for a {@link SenderKeyError}; undefined for other errors. */
export function describeSenderError(err: unknown): string | undefined {
  return err instanceof SenderKeyError ? err.message : undefined
}

/** The key-store flags of the signing commands (`--from` is each command's own: its summary differs). */
export const signerFlags = {
  'password-file': Flags.string({ summary: 'File whose first line is the passphrase of a key-store --from [default: $NODECTL_PASSWORD, else a hidden prompt].', helpGroup: 'KEY STORE' }),
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
export function senderOf(flags: { from: string; 'password-file'?: string | undefined; 'keystore-dir'?: string | undefined; home?: string | undefined }): SenderOptions {
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
  throw new SenderKeyError(`invalid --from "${from}": ${what} in the key store ${store.dir} (see nodectl keys list), nor a private key (64 hex digits) or a file holding one`)
}

async function decryptAccount(store: KeyStore, account: KeyInfo, passwordFile: string | undefined): Promise<SenderKey> {
  const label = account.name === undefined ? account.address : `${account.name} (${account.address})`
  let passphrase: string
  try {
    passphrase = await readPassphrase({ file: passwordFile, message: `Passphrase of ${label}` })
  } catch (err) {
    // every failure here is the user's to fix: no source without a terminal, an unreadable file, a closed prompt
    throw new SenderKeyError((err as Error).message)
  }
  try {
    const { privateKey } = await withSpinner(`Decrypting the key of ${label}`, () => store.decrypt(account.address, passphrase))
    return { address: account.address as Hex, privateKey }
  } catch (err) {
    if (err instanceof WrongPassphraseError || err instanceof KeyFileFormatError || err instanceof KeyStoreError) throw new SenderKeyError(err.message)
    throw err
  }
}

function senderKeyOf(privateKey: Uint8Array): SenderKey {
  return { address: toChecksumAddress(privateKeyToAddress(privateKey)) as Hex, privateKey }
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then((s) => s.isFile(), () => false)
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

/** A 32-byte ed25519 public key given as hex (0x optional) or base64. */
export function parseEd25519PubKey(input: string): Uint8Array {
  const s = input.trim()
  let key: Uint8Array | undefined
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(s)) key = hexToBytes(s.startsWith('0x') ? s : `0x${s}`)
  else if (/^[A-Za-z0-9+/]{43}=?$/.test(s)) key = base64ToBytes(s)
  if (!key || key.length !== 32) throw new Error(`invalid --pubkey "${input}": want a 32-byte ed25519 public key in base64 or hex`)
  return key
}

/** Decimals of each unit `--value` accepts (wei has none). */
const UNIT_DECIMALS = { ether: 18, gwei: 9, wei: 0 } as const
const MAX_UINT256 = (1n << 256n) - 1n

/** `--value`: `1.5ether`, `1000gwei`, `21000wei` or a plain integer (wei); decimals up to the unit's precision. */
export function parseValue(input: string): bigint {
  const m = /^(\d+)(?:\.(\d+))?\s*([a-zA-Z]*)$/.exec(input.trim())
  const unit = m?.[3]?.toLowerCase() || 'wei'
  const want = 'want an amount such as 1.5ether, 1000gwei or 21000 (wei)'
  if (!m || !(unit in UNIT_DECIMALS)) throw new Error(`invalid --value "${input}": ${want}`)
  const decimals = UNIT_DECIMALS[unit as keyof typeof UNIT_DECIMALS]
  const fraction = m[2] ?? ''
  if (fraction.length > decimals) throw new Error(`invalid --value "${input}": ${decimals === 0 ? 'wei is indivisible' : `${unit} has at most ${decimals} decimals`}`)
  const wei = BigInt(m[1]!) * 10n ** BigInt(decimals) + (fraction ? BigInt(fraction.padEnd(decimals, '0')) : 0n)
  if (wei > MAX_UINT256) throw new Error(`invalid --value "${input}": more than 2^256-1 wei`)
  return wei
}

/** `--to`: a 20-byte address. */
export function parseTo(input: string): Uint8Array {
  if (!looksLikeAddress(input)) throw new Error(`invalid --to "${input}": want an address (0x followed by 40 hex digits)`)
  return hexToBytes(input)
}

/** `--data`: hex bytes, 0x optional. */
export function parseData(input: string): Uint8Array {
  if (!/^(0x)?([0-9a-fA-F]{2})*$/.test(input)) throw new Error(`invalid --data: want hex bytes (0x followed by an even number of hex digits)`)
  return hexToBytes(input.startsWith('0x') ? input : `0x${input}`)
}

/** What the user chose; the rest is filled from the node. */
export interface TxRequest {
  /** Recipient; absent to create a contract from `data`. */
  to?: Uint8Array | undefined
  /** Wei (default 0). */
  value?: bigint | undefined
  data?: Uint8Array | undefined
  /** Gas limit (default eth_estimateGas). */
  gas?: bigint | undefined
  /** Nonce (default eth_getTransactionCount pending). */
  nonce?: bigint | undefined
}

/** A transaction the node's pool accepted. */
export interface SubmittedTx {
  hash: Hex
  /** EIP-55 sender. */
  from: Hex
  /** EIP-55 recipient; undefined for a creation. */
  to: Hex | undefined
  value: bigint
  data: Hex
  nonce: bigint
  gas: bigint
  /** EIP-1559 when the latest block has a base fee, legacy otherwise (geth's choice). */
  type: 'eip1559' | 'legacy'
}

/** The call object of eth_estimateGas / eth_call for a request. */
function callOf(from: Hex, req: TxRequest, gas?: bigint): Record<string, string> {
  return {
    from,
    ...(req.to ? { to: bytesToHex(req.to) } : {}),
    value: `0x${(req.value ?? 0n).toString(16)}`,
    data: bytesToHex(req.data ?? new Uint8Array()),
    ...(gas !== undefined ? { gas: `0x${gas.toString(16)}` } : {}),
  }
}

/**
 * Resolves the sender's key, fills nonce, gas and fees (a call that would revert fails at the estimate
 * with the node's reason), signs, wipes the key and submits with eth_sendRawTransaction.
 */
export async function submitTx(client: HttpRpcClient, sender: SenderOptions, req: TxRequest): Promise<SubmittedTx> {
  const key = await resolveSenderKey(sender)
  let raw: Uint8Array
  let filled: { nonce: bigint; gas: bigint; type: SubmittedTx['type'] }
  try {
    const [chainId, nonce, gas, head] = await Promise.all([
      client.call<string>('eth_chainId').then(BigInt),
      req.nonce ?? client.call<string>('eth_getTransactionCount', [key.address, 'pending']).then(BigInt),
      req.gas ?? client.call<string>('eth_estimateGas', [callOf(key.address, req)]).then(BigInt),
      client.call<{ baseFeePerGas?: string } | null>('eth_getBlockByNumber', ['latest', false]),
    ])
    const opts = { common: getCommon(chainId) }
    const fields = { nonce, gasLimit: gas, to: req.to, value: req.value ?? 0n, data: req.data ?? new Uint8Array() }
    if (head?.baseFeePerGas !== undefined) {
      const tip = BigInt(await client.call<string>('eth_maxPriorityFeePerGas'))
      const maxFeePerGas = tip + BASE_FEE_HEADROOM * BigInt(head.baseFeePerGas)
      raw = createFeeMarket1559Tx({ ...fields, chainId, maxFeePerGas, maxPriorityFeePerGas: tip }, opts).sign(key.privateKey).serialize()
      filled = { nonce, gas, type: 'eip1559' }
    } else {
      const gasPrice = BigInt(await client.call<string>('eth_gasPrice'))
      raw = createLegacyTx({ ...fields, gasPrice }, opts).sign(key.privateKey).serialize()
      filled = { nonce, gas, type: 'legacy' }
    }
  } finally {
    wipe(key.privateKey)
  }
  const hash = await client.call<Hex>('eth_sendRawTransaction', [bytesToHex(raw)])
  return { hash, from: key.address, to: req.to ? (toChecksumAddress(req.to) as Hex) : undefined, value: req.value ?? 0n, data: bytesToHex(req.data ?? new Uint8Array()) as Hex, ...filled }
}

/** A mined transaction's receipt. */
export interface MinedTx {
  blockNumber: number
  status: 0 | 1
  gasUsed: bigint
  /** The created contract (EIP-55), for a creation. */
  contractAddress: Hex | undefined
}

/** Polls eth_getTransactionReceipt every {@link RECEIPT_POLL_MS} until the tx is mined or `timeoutMs` passes. */
export async function waitForReceipt(client: HttpRpcClient, hash: Hex, timeoutMs: number): Promise<MinedTx> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const r = await client.call<{ blockNumber: string; status: string; gasUsed: string; contractAddress?: string | null } | null>('eth_getTransactionReceipt', [hash])
    if (r) return { blockNumber: Number(r.blockNumber), status: r.status === '0x1' ? 1 : 0, gasUsed: BigInt(r.gasUsed), contractAddress: r.contractAddress ? (toChecksumAddress(r.contractAddress) as Hex) : undefined }
    if (Date.now() > deadline) throw new Error(`transaction ${hash} not mined within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS))
  }
}

/**
 * Why a failed tx failed, as geth's clients find out: replay the same call with eth_call on the state
 * before its block (`blockNumber - 1`; earlier txs of the same block are not replayed) and read the
 * node's error: `execution reverted: <reason>` gives the reason, other errors (out of gas...) their
 * message. Undefined when the replay succeeds.
 */
export async function getRevertReason(client: HttpRpcClient, tx: SubmittedTx, blockNumber: number): Promise<string | undefined> {
  const call = callOf(tx.from, { to: tx.to ? hexToBytes(tx.to) : undefined, value: tx.value, data: hexToBytes(tx.data) }, tx.gas)
  try {
    await client.call('eth_call', [call, `0x${Math.max(blockNumber - 1, 0).toString(16)}`])
    return undefined
  } catch (err) {
    if (!(err instanceof JsonRpcClientError)) throw err
    const reason = /^execution reverted: (.*)$/s.exec(err.rpcMessage)?.[1]
    if (reason !== undefined) return reason
    if (typeof err.data === 'string' && err.data.length > 2) return `${err.rpcMessage} (custom error ${err.data})`
    return err.rpcMessage
  }
}
