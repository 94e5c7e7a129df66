/**
 * The node's accounts (api/eth/accounts-backend.ts) over the key store folder (`<home>/keystore`,
 * shared with `nodectl keys`) and the unlock manager: the adapter geth calls its keystore backend.
 * Under `--dev`, as geth --dev, Anvil and Hardhat do, the 10 dev accounts are unlocked until the node
 * stops from their derivation at start (no key file to decrypt, so no start-up delay), and their key
 * files (passphrase "", light scrypt) are written in the background; `stop()` waits for those writes and
 * then locks (overwrites) every key.
 */
import type { AccountSigner, AccountsBackend, KeyStoreWallet, RecoverableSignature } from '../api/eth/accounts-backend.js'
import { accountErrors } from '../api/eth/account-errors.js'
import { signHash, wipe, type ScryptParams } from '../crypto/index.js'
import { WrongPassphraseError, KeyFileFormatError } from '../keystore/key-file.js'
import { AccountNotFoundError, DuplicateAccountError, KeyStore, KeyStoreError } from '../keystore/key-store.js'
import type { DevAccount } from '../keystore/dev-accounts.js'
import { UnlockManager, type UnlockClock } from '../keystore/unlock-manager.js'
import { bytesToHex, hexToBytes } from '../primitives/hex.js'
import { NodeError } from '../utils/errors.js'
import type { Logger } from '../utils/logger.js'

/** The passphrase of the dev accounts' key files: empty, as geth --dev's developer account. */
export const DEV_KEY_PASSPHRASE = ''

export interface NodeAccountsOptions {
  /** The key-store folder (`<home>/keystore`). */
  dir: string
  /** scrypt strength of the files the node writes (personal_newAccount, personal_importRawKey, dev keys). */
  scrypt: ScryptParams
  /** Time source of unlock expiry (default the system clock); tests inject a fake one. */
  clock?: UnlockClock
  logger: Logger
}

export class NodeAccounts implements AccountsBackend {
  readonly store: KeyStore
  readonly unlocks: UnlockManager
  private readonly log: Logger
  /** The `--dev` accounts' addresses (lower case), derivation order: listed first by eth_accounts. */
  private devAddresses: string[] = []
  /** The background writing of the dev key files (never rejects). */
  private devKeysSaved: Promise<void> = Promise.resolve()

  constructor(opts: NodeAccountsOptions) {
    this.store = new KeyStore({ dir: opts.dir, scrypt: opts.scrypt })
    this.unlocks = new UnlockManager(opts.clock)
    this.log = opts.logger
  }

  /** `--dev`: lists `accounts` first and unlocks them until the node stops, at once. */
  unlockDevAccounts(accounts: readonly DevAccount[]): void {
    this.devAddresses = accounts.map((a) => a.address.toLowerCase())
    for (const a of accounts) this.unlocks.unlock(a.address, hexToBytes(a.privateKey), 0)
  }

  /**
   * `--dev`: writes the key files of `accounts` that are missing, in the background (errors are logged:
   * the accounts stay usable for this run). The node calls it once it serves: encrypting them loads
   * the secp256k1 binding and keeps the thread pool busy, which start-up need not wait for.
   */
  writeDevKeyFiles(accounts: readonly DevAccount[]): void {
    this.devKeysSaved = this.saveDevKeys(accounts)
  }

  /** Resolves once the `--dev` key files are written (at once when there are none to write). */
  whenDevKeysSaved(): Promise<void> {
    return this.devKeysSaved
  }

  /** Waits for the dev key files, then locks every account (node stop). */
  async stop(): Promise<void> {
    await this.devKeysSaved
    this.unlocks.lockAll()
  }

  async accounts(): Promise<Uint8Array[]> {
    const ordered = [...this.devAddresses]
    const seen = new Set(ordered)
    for (const info of await this.store.list()) {
      const id = info.address.toLowerCase()
      if (!seen.has(id)) ordered.push(id)
      seen.add(id)
    }
    return ordered.map((id) => hexToBytes(id))
  }

  async wallets(): Promise<KeyStoreWallet[]> {
    return (await this.store.list()).map((info) => ({
      address: hexToBytes(info.address),
      file: info.file,
      unlocked: this.unlocks.isUnlocked(info.address),
    }))
  }

  async newAccount(passphrase: string): Promise<Uint8Array> {
    const info = await this.store.create(passphrase).catch(translate)
    this.log.info('new account in the key store', { address: info.address, file: info.file })
    return hexToBytes(info.address)
  }

  async importRawKey(privateKey: Uint8Array, passphrase: string): Promise<Uint8Array> {
    const info = await this.store.importKey(privateKey, passphrase).catch(translate)
    this.log.info('key imported into the key store', { address: info.address, file: info.file })
    return hexToBytes(info.address)
  }

  async unlock(address: Uint8Array, passphrase: string, seconds: number): Promise<void> {
    const id = bytesToHex(address)
    await this.devKeysSaved
    const { privateKey } = await this.store
      .decrypt(id, passphrase)
      .catch((err: unknown) => translate(err instanceof AccountNotFoundError ? accountErrors.noKey() : err))
    // geth TimedUnlock: an account unlocked until the node stops is not given a deadline by a later unlock.
    if (this.unlocks.isUnlockedUntilStop(id)) return wipe(privateKey)
    this.unlocks.unlock(id, privateKey, seconds)
    this.log.info('account unlocked', { address: id, seconds })
  }

  lock(address: Uint8Array): boolean {
    return this.unlocks.lock(bytesToHex(address))
  }

  async openSigner(address: Uint8Array, passphrase?: string): Promise<AccountSigner> {
    const id = bytesToHex(address)
    if (passphrase === undefined) {
      if (!this.unlocks.isUnlocked(id)) throw (await this.isKnown(id)) ? accountErrors.locked() : accountErrors.unknownAccount()
      return {
        signHash: (digest) => {
          const key = this.unlocks.keyOf(id)
          if (key === undefined) throw accountErrors.locked()
          return signHash(digest, key)
        },
        close: () => {},
      }
    }
    await this.devKeysSaved
    const { privateKey } = await this.store
      .decrypt(id, passphrase)
      .catch((err: unknown) => translate(err instanceof AccountNotFoundError ? accountErrors.unknownAccount() : err))
    return { signHash: (digest): RecoverableSignature => signHash(digest, privateKey), close: () => wipe(privateKey) }
  }

  /** The node has a key for `id`: a dev account, or a key file. */
  private async isKnown(id: string): Promise<boolean> {
    return this.devAddresses.includes(id) || (await this.store.lookup(id)) !== undefined
  }

  /** One file at a time in derivation order (each change takes the key store's lock anyway), named dev<i>. */
  private async saveDevKeys(accounts: readonly DevAccount[]): Promise<void> {
    let written = 0
    for (const a of accounts) {
      const key = hexToBytes(a.privateKey)
      try {
        if (await this.store.lookup(a.address)) continue
        // Named dev0…dev9, so commands take the name wherever an address goes; unnamed if the name is taken.
        const name = `dev${a.index}`
        const named = (await this.store.lookup(name)) === undefined
        await this.store.importKey(key, DEV_KEY_PASSPHRASE, { address: a.address, ...(named ? { name } : {}) })
        written++
      } catch (err) {
        if (!(err instanceof DuplicateAccountError))
          this.log.warn('could not save a dev account in the key store', {
            address: a.address,
            error: err instanceof Error ? err.message : String(err),
          })
      } finally {
        wipe(key)
      }
    }
    if (written > 0) this.log.info('dev accounts saved in the key store', { dir: this.store.dir, written })
  }
}

/** Key-store failures as the RPC reports them (geth's texts); anything else is rethrown as is. */
function translate(err: unknown): never {
  if (err instanceof NodeError) throw err
  if (err instanceof WrongPassphraseError) throw accountErrors.wrongPassphrase()
  if (err instanceof DuplicateAccountError) throw accountErrors.alreadyExists()
  if (err instanceof KeyStoreError || err instanceof KeyFileFormatError) throw new NodeError(err.message)
  throw err
}
