/**
 * What the key-using methods (personal_*, eth_accounts, eth_sign, eth_signTransaction,
 * eth_signTypedData_v4, eth_sendTransaction) need from the node: the key store and its unlocked
 * accounts, and nothing else (geth's `accounts.Manager` as `ethapi` sees it). Private
 * keys never cross this interface: the node signs digests and hands back signatures, so the handlers
 * (and their tests, with a double) cannot leak or keep a key.
 *
 * Errors: throw the `accountErrors` of account-errors.ts (geth's texts); a key file that cannot be read
 * is a NodeError with its reason.
 */
import { accountErrors } from './account-errors.js'

/** An ECDSA signature over a 32-byte digest with its recovery id (0 or 1), r and s 32 bytes each. */
export interface RecoverableSignature {
  r: Uint8Array
  s: Uint8Array
  recovery: number
}

/** One key file of the key store as personal_listWallets shows it (geth: one keystore wallet per file). */
export interface KeyStoreWallet {
  address: Uint8Array
  /** Absolute path of the key file. */
  file: string
  /** The account is unlocked now (its key held in memory). */
  unlocked: boolean
}

/**
 * An account opened for signing: either its unlocked key (read again at each signature, so an unlock
 * that expires in between is honoured) or its key file decrypted with the caller's passphrase for
 * this one use. `close()` overwrites a decrypted key; call it in a `finally`.
 */
export interface AccountSigner {
  signHash(digest: Uint8Array): RecoverableSignature
  close(): void
}

/** The node's accounts as the key-using handlers see them. */
export interface AccountsBackend {
  /**
   * eth_accounts and personal_listAccounts: every address the node can sign for, in a stable order:
   * the `--dev` accounts in derivation order, then the key store's files oldest first. The key store is
   * read again on every call, so a key added by `nodectl keys` while the node runs is listed at once.
   */
  accounts(): Promise<Uint8Array[]>
  /** personal_listWallets: one entry per key file, key-store order. */
  wallets(): Promise<KeyStoreWallet[]>
  /** personal_newAccount: a new random key stored encrypted under `passphrase`; its address. */
  newAccount(passphrase: string): Promise<Uint8Array>
  /** personal_importRawKey: stores `privateKey` (the caller wipes it) encrypted under `passphrase`; its address. */
  importRawKey(privateKey: Uint8Array, passphrase: string): Promise<Uint8Array>
  /**
   * personal_unlockAccount: decrypts the key file and holds the key for `seconds` (0 = until the node
   * stops). An account already unlocked until the node stops stays so (geth `TimedUnlock`).
   */
  unlock(address: Uint8Array, passphrase: string, seconds: number): Promise<void>
  /** personal_lockAccount: forgets and overwrites the key; true whether or not it was unlocked (geth). */
  lock(address: Uint8Array): boolean
  /**
   * Opens `address` for signing: with `passphrase` undefined it must be unlocked (else
   * `authentication needed: password or unlock`); with a passphrase its key file is decrypted once.
   * An address the node has no key for: `unknown account`.
   */
  openSigner(address: Uint8Array, passphrase?: string): Promise<AccountSigner>
}

/** Signs one digest with `address`, closing the signer whatever happens. */
export async function signDigest(
  accounts: AccountsBackend,
  address: Uint8Array,
  digest: Uint8Array,
  passphrase?: string,
): Promise<RecoverableSignature> {
  const signer = await accounts.openSigner(address, passphrase)
  try {
    return signer.signHash(digest)
  } finally {
    signer.close()
  }
}

/** A node without a key store (API tests over a chain double): no accounts, nothing to sign with. */
export const noAccounts: AccountsBackend = {
  accounts: async () => [],
  wallets: async () => [],
  newAccount: async () => {
    throw accountErrors.noKeyStore()
  },
  importRawKey: async () => {
    throw accountErrors.noKeyStore()
  },
  unlock: async () => {
    throw accountErrors.noKey()
  },
  lock: () => true,
  openSigner: async () => {
    throw accountErrors.unknownAccount()
  },
}
