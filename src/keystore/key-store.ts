import type { Stats } from 'node:fs'
import { chmod, mkdir, open, readFile, readdir, rm, stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { isValidPrivateKey, privateKeyToAddress, randomBytes, wipe, type ScryptParams } from '../crypto/index.js'
import { toChecksumAddress } from '../primitives/address.js'
import { hexToBytes } from '../primitives/hex.js'
import { writeFileAtomic } from '../utils/files.js'
import { decryptKey, encryptKey, parseKeyFile, serializeKeyFile, STANDARD_SCRYPT, type DecryptedKey, type KeyFileV3 } from './key-file.js'

/** Key files: owner read/write only (geth writes 0600). */
const KEY_FILE_MODE = 0o600
/** The key-store folder: owner only (geth 0700). */
const KEY_DIR_MODE = 0o700
/** Where names live, beside the key files. */
export const NAMES_FILE = '.names.json'
const LOCK_FILE = '.lock'
/** How long a change waits for another process's lock before giving up (ms). */
const LOCK_WAIT_MS = 15_000
/** A lock file older than this is left over from a crashed process and is removed (ms). */
const STALE_LOCK_MS = 60_000
const LOCK_RETRY_MS = 25
/** A name: a label a shell user types; not something that looks like an address. */
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/

/** A key-store error whose message is shown to the user as is. */
export class KeyStoreError extends Error {
  constructor(message: string) {
    super(message)
    this.name = new.target.name
  }
}

/** The address already has a key file in this store. */
export class DuplicateAccountError extends KeyStoreError {}
/** No account has that name or address. */
export class AccountNotFoundError extends KeyStoreError {}

/** One account of the store. */
export interface KeyInfo {
  /** EIP-55 address. */
  address: string
  /** Absolute path of its key file. */
  file: string
  /** Its label, if it has one. */
  name: string | undefined
}

/** Options of a {@link KeyStore}. */
export interface KeyStoreOptions {
  /** The folder (`<home>/keystore`, or `--keystore-dir`). */
  dir: string
  /** scrypt strength of the files this store writes (default geth's standard; LIGHT_SCRYPT for `--light-kdf`). */
  scrypt?: ScryptParams
}

/** True for `0x` + 40 hex digits (any case). */
export function looksLikeAddress(s: string): boolean {
  return /^0x[0-9a-fA-F]{40}$/.test(s)
}

/** geth's key file name: `UTC--2006-01-02T15-04-05.000000000Z--<address, lower hex without 0x>`. */
export function keyFileName(address: string, at: Date = new Date()): string {
  const iso = at.toISOString() // 2026-11-25T09:37:01.902Z
  const stamp = `${iso.slice(0, 10)}T${iso.slice(11, 19).replaceAll(':', '-')}.${iso.slice(20, 23)}000000Z`
  return `UTC--${stamp}--${address.toLowerCase().replace(/^0x/, '')}`
}

export class KeyStore {
  readonly dir: string
  private readonly scrypt: ScryptParams
  /** Parsed files by path, valid while the file's mtime and size are unchanged. */
  private readonly cache = new Map<string, { mtimeMs: number; size: number; address: string | undefined }>()

  constructor(opts: KeyStoreOptions) {
    this.dir = resolve(opts.dir)
    this.scrypt = opts.scrypt ?? STANDARD_SCRYPT
  }

  /** Every account, oldest file first (geth orders by file name, which starts with the creation time). */
  async list(): Promise<KeyInfo[]> {
    let entries: string[]
    try {
      entries = await readdir(this.dir)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw err
    }
    const names = await this.loadNames()
    const byAddress = new Map<string, string>()
    for (const [name, address] of Object.entries(names)) byAddress.set(address.toLowerCase(), name)
    const out: KeyInfo[] = []
    const seen = new Set<string>()
    const present = new Set(entries.map((entry) => join(this.dir, entry)))
    for (const file of this.cache.keys()) if (!present.has(file)) this.cache.delete(file)
    for (const entry of entries.sort()) {
      if (entry.startsWith('.') || entry.startsWith('~') || entry.endsWith('.tmp')) continue
      const file = join(this.dir, entry)
      const address = await this.addressOf(file)
      if (address === undefined || seen.has(address.toLowerCase())) continue
      seen.add(address.toLowerCase())
      out.push({ address, file, name: byAddress.get(address.toLowerCase()) })
    }
    return out
  }

  /** The account named `nameOrAddress`, or with that address in any letter case. */
  async find(nameOrAddress: string): Promise<KeyInfo> {
    const found = await this.lookup(nameOrAddress)
    if (!found) throw new AccountNotFoundError(`no account named or with address "${nameOrAddress}" in the key store ${this.dir}`)
    return found
  }

  /** The account, or undefined. */
  async lookup(nameOrAddress: string): Promise<KeyInfo | undefined> {
    const accounts = await this.list()
    if (looksLikeAddress(nameOrAddress)) return accounts.find((a) => a.address.toLowerCase() === nameOrAddress.toLowerCase())
    return accounts.find((a) => a.name === nameOrAddress)
  }

  /** The key file's JSON. */
  async readKeyFile(account: KeyInfo): Promise<KeyFileV3> {
    return parseKeyFile(await readFile(account.file, 'utf8'))
  }

  /** Decrypts an account's key; wipe `privateKey` once done. Throws WrongPassphraseError on a wrong passphrase. */
  async decrypt(nameOrAddress: string, passphrase: string): Promise<DecryptedKey & { account: KeyInfo }> {
    const account = await this.find(nameOrAddress)
    return { ...(await decryptKey(await this.readKeyFile(account), passphrase)), account }
  }

  /** A new random key, encrypted under `passphrase`. */
  async create(passphrase: string, opts: { name?: string } = {}): Promise<KeyInfo> {
    const key = randomBytes(32)
    try {
      return await this.importKey(key, passphrase, opts)
    } finally {
      wipe(key)
    }
  }

  /**
   * Stores a raw private key encrypted under `passphrase`; refuses an address the store already holds.
   * `opts.address` is the key's address when the caller holds it already (the `--dev` accounts' table):
   * it is not derived again, which spares loading the secp256k1 binding while the node starts.
   */
  async importKey(privateKey: Uint8Array, passphrase: string, opts: { name?: string; address?: string } = {}): Promise<KeyInfo> {
    if (!isValidPrivateKey(privateKey)) throw new KeyStoreError('invalid private key: want 32 bytes, a valid secp256k1 scalar')
    const addressBytes = opts.address ? hexToBytes(opts.address) : privateKeyToAddress(privateKey)
    const address = toChecksumAddress(addressBytes)
    await this.checkNew(address, opts.name)
    const file = await encryptKey(privateKey, passphrase, this.scrypt, addressBytes)
    return this.add(address, serializeKeyFile(file), opts.name)
  }

  /**
   * Adds a v3 file from another tool (geth, ethers, MetaMask, Foundry) after checking that `passphrase`
   * opens it and that it holds the key of its address. The file is kept as it is, so it keeps its
   * passphrase and still opens wherever it came from; `changePassphrase` re-encrypts it with this store's strength.
   */
  async importKeyFile(text: string, passphrase: string, opts: { name?: string } = {}): Promise<KeyInfo> {
    const file = parseKeyFile(text)
    const { address, privateKey } = await decryptKey(file, passphrase)
    wipe(privateKey)
    await this.checkNew(address, opts.name)
    return this.add(address, serializeKeyFile({ ...file, address: address.slice(2).toLowerCase() }), opts.name)
  }

  /** Re-encrypts an account's key under a new passphrase (this store's scrypt strength), replacing its file atomically. */
  async changePassphrase(nameOrAddress: string, oldPassphrase: string, newPassphrase: string): Promise<KeyInfo> {
    const account = await this.find(nameOrAddress)
    const before = await stat(account.file)
    const { address, privateKey } = await decryptKey(await this.readKeyFile(account), oldPassphrase)
    try {
      // decryptKey derived and checked the address: encryptKey need not derive it again.
      const text = serializeKeyFile(await encryptKey(privateKey, newPassphrase, this.scrypt, hexToBytes(address)))
      await this.withLock(async () => {
        // Deleted (ENOENT) or rewritten by another process meanwhile: refuse rather than overwrite its change.
        const now = await stat(account.file)
        if (now.mtimeMs !== before.mtimeMs || now.size !== before.size)
          throw new KeyStoreError(
            `the key file ${account.file} changed while its passphrase was being changed; nothing was written, try again`,
          )
        await writeFileAtomic(account.file, text, KEY_FILE_MODE)
      })
      return account
    } finally {
      wipe(privateKey)
    }
  }

  /** Deletes an account's key file and its name. */
  async delete(nameOrAddress: string): Promise<KeyInfo> {
    const account = await this.find(nameOrAddress)
    await this.withLock(async () => {
      await rm(account.file, { force: true })
      this.cache.delete(account.file)
      if (account.name !== undefined) {
        const names = await this.loadNames()
        delete names[account.name]
        await this.saveNames(names)
      }
    })
    return account
  }

  /** Gives an account a name (replacing its old one); the name must be free. */
  async setName(nameOrAddress: string, name: string): Promise<KeyInfo> {
    checkName(name)
    const account = await this.find(nameOrAddress)
    await this.withLock(async () => {
      const names = await this.loadNames()
      const holder = names[name]
      if (holder !== undefined && holder.toLowerCase() !== account.address.toLowerCase())
        throw new KeyStoreError(`the name "${name}" is already used by ${holder}`)
      if (account.name !== undefined) delete names[account.name]
      names[name] = account.address
      await this.saveNames(names)
    })
    return { ...account, name }
  }

  /**
   * Throws as importKey/importKeyFile would for `address` and `name` (duplicate account, name taken,
   * invalid name), so a command can refuse before asking for a passphrase; the write re-checks under the lock.
   * An undefined `address` checks the name only (a key not generated yet).
   */
  async checkNew(address: string | undefined, name: string | undefined): Promise<void> {
    if (name !== undefined) checkName(name)
    const accounts = await this.list()
    const existing = address === undefined ? undefined : accounts.find((a) => a.address.toLowerCase() === address.toLowerCase())
    if (existing)
      throw new DuplicateAccountError(
        `account ${address} is already in the key store${existing.name ? ` as "${existing.name}"` : ''} (${existing.file})`,
      )
    const holder = name === undefined ? undefined : accounts.find((a) => a.name === name)
    if (holder) throw new KeyStoreError(`the name "${name}" is already used by ${holder.address}`)
  }

  /** Under the lock: re-checks, then writes the file and its name. */
  private async add(address: string, text: string, name: string | undefined): Promise<KeyInfo> {
    await this.ensureDir()
    return this.withLock(async () => {
      await this.checkNew(address, name)
      const file = join(this.dir, keyFileName(address))
      await writeFileAtomic(file, text, KEY_FILE_MODE)
      if (name !== undefined) {
        const names = await this.loadNames()
        names[name] = address
        await this.saveNames(names)
      }
      return { address, file, name }
    })
  }

  private async ensureDir(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: KEY_DIR_MODE })
    await chmod(this.dir, KEY_DIR_MODE)
  }

  /** The address a file holds (its `address` field), undefined for a file that is not a key file. */
  private async addressOf(file: string): Promise<string | undefined> {
    let info: Stats
    try {
      info = await stat(file)
    } catch {
      return undefined
    }
    if (!info.isFile()) return undefined
    const cached = this.cache.get(file)
    if (cached && cached.mtimeMs === info.mtimeMs && cached.size === info.size) return cached.address
    let address: string | undefined
    try {
      const parsed = parseKeyFile(await readFile(file, 'utf8'))
      address = parsed.address ? toChecksumAddress(parsed.address) : undefined
    } catch {
      address = undefined
    }
    this.cache.set(file, { mtimeMs: info.mtimeMs, size: info.size, address })
    return address
  }

  private async loadNames(): Promise<Record<string, string>> {
    try {
      const json = JSON.parse(await readFile(join(this.dir, NAMES_FILE), 'utf8')) as unknown
      if (typeof json !== 'object' || json === null || Array.isArray(json)) return {}
      return Object.fromEntries(
        Object.entries(json).filter(([k, v]) => NAME_PATTERN.test(k) && typeof v === 'string' && looksLikeAddress(v)),
      ) as Record<string, string>
    } catch {
      return {}
    }
  }

  private async saveNames(names: Record<string, string>): Promise<void> {
    const sorted = Object.fromEntries(Object.entries(names).sort(([a], [b]) => a.localeCompare(b)))
    await writeFileAtomic(join(this.dir, NAMES_FILE), JSON.stringify(sorted, null, 2) + '\n', KEY_FILE_MODE)
  }

  /** Runs `fn` holding `<dir>/.lock` (created exclusively; a lock older than a minute is stale). */
  private async withLock<T>(fn: () => Promise<T>): Promise<T> {
    await this.ensureDir()
    const lock = join(this.dir, LOCK_FILE)
    const deadline = Date.now() + LOCK_WAIT_MS
    for (;;) {
      try {
        const handle = await open(lock, 'wx', KEY_FILE_MODE)
        await handle.close()
        break
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
        const age = await stat(lock).then(
          (s) => Date.now() - s.mtimeMs,
          () => 0,
        )
        if (age > STALE_LOCK_MS) await rm(lock, { force: true })
        else if (Date.now() > deadline)
          throw new KeyStoreError(
            `the key store ${this.dir} is locked by another process (${lock}); try again, or remove that file if no nodectl is running`,
          )
        else await new Promise((r) => setTimeout(r, LOCK_RETRY_MS))
      }
    }
    try {
      return await fn()
    } finally {
      await rm(lock, { force: true })
    }
  }
}

function checkName(name: string): void {
  if (looksLikeAddress(name)) throw new KeyStoreError(`invalid name "${name}": a name cannot look like an address`)
  if (!NAME_PATTERN.test(name))
    throw new KeyStoreError(`invalid name "${name}": use 1 to 64 letters, digits, "_", ".", "@" or "-", starting with a letter or digit`)
}
