/**
 * The personal namespace (private: served only when `personal` is in `--json-rpc.api`, and then only to
 * an authorised caller, see rpc/caller-auth.ts), as geth's `PersonalAccountAPI` over the key store:
 * - personal_listAccounts = eth_accounts; personal_listWallets: geth's wallet objects, one per key file;
 * - personal_newAccount / personal_importRawKey: a key stored encrypted under the given passphrase
 *   (`0x` accepted before the hex key, which geth's `HexToECDSA` refuses);
 * - personal_unlockAccount(address, passphrase, duration): the duration is seconds as a JSON number (Go
 *   `*uint64`), null or absent = 300, 0 = until the node stops; refused from non-loopback callers unless
 *   `allow-insecure-unlock` (unlock-policy.ts);
 * - personal_lockAccount: true for any address;
 * - personal_sendTransaction / personal_sign: the passphrase opens the key file for that one call and
 *   unlocks nothing; personal_sign without one signs with the unlocked key (wallet libraries send two arguments);
 * - personal_ecRecover: the EIP-191 signer of a 65-byte signature with V 27/28;
 * - personal_initializeWallet / personal_unpair: smart-card wallets, which a node has none of (docs/decisions.md).
 */
import { isValidPrivateKey, wipe } from '../../crypto/index.js'
import { DEFAULT_UNLOCK_SECONDS } from '../../keystore/unlock-manager.js'
import { DecodeError, address, data, jsonKind, string, type Codec } from '../../rpc/codecs.js'
import { defineMethod, optional, required, type MethodTable } from '../../rpc/method-table.js'
import { NodeError } from '../../utils/errors.js'
import { accountErrors } from './account-errors.js'
import { signDigest, type AccountsBackend, type KeyStoreWallet } from './accounts-backend.js'
import { encodeData } from './format.js'
import { sendArgs } from './send-args.js'
import { encodeRpcSignature, recoverTextSigner, textHash } from './text-signature.js'
import type { TransactionSender } from './transaction-signer.js'
import { checkUnlockAllowed } from './unlock-policy.js'

/** geth: the longest unlock is Go's largest time.Duration (MaxInt64 ns) in whole seconds. */
export const MAX_UNLOCK_SECONDS = 9_223_372_036

/** personal_unlockAccount's duration: a JSON integer ≥ 0 (Go `*uint64`; a hex string is refused as Go refuses it). */
export const unlockDuration: Codec<number> = (value) => {
  if (typeof value !== 'number') throw new DecodeError(jsonKind(value), 'uint64')
  if (!Number.isInteger(value) || value < 0 || value >= 2 ** 64) throw new DecodeError(`number ${value}`, 'uint64')
  return value
}

/** geth `rawWallet` of personal_listWallets: `{url: "keystore://<path>", status, accounts: [{address, url}]}`. */
export interface WalletJson {
  url: string
  status: 'Locked' | 'Unlocked'
  accounts: { address: string; url: string }[]
}

export function formatWallet(wallet: KeyStoreWallet): WalletJson {
  const url = `keystore://${wallet.file}`
  return { url, status: wallet.unlocked ? 'Unlocked' : 'Locked', accounts: [{ address: encodeData(wallet.address), url }] }
}

/** geth `crypto.HexToECDSA` (with an optional `0x`): 32 bytes of hex forming a valid secp256k1 key. */
export function parseRawPrivateKey(text: string): Uint8Array {
  const hex = text.startsWith('0x') || text.startsWith('0X') ? text.slice(2) : text
  const bad = /[^0-9a-fA-F]/.exec(hex)
  if (bad) throw new NodeError(`invalid hex character ${JSON.stringify(bad[0])} in private key`)
  if (hex.length % 2 !== 0) throw new NodeError('invalid hex data for private key')
  if (hex.length !== 64) throw new NodeError('invalid length, need 256 bits')
  const key = new Uint8Array(Buffer.from(hex, 'hex'))
  if (!isValidPrivateKey(key)) {
    wipe(key)
    throw new NodeError('invalid private key')
  }
  return key
}

export interface PersonalOptions {
  /** `[json-rpc] allow-insecure-unlock` (default false). */
  allowInsecureUnlock: boolean
}

export function createPersonalMethods(accounts: AccountsBackend, sender: TransactionSender, options: PersonalOptions): MethodTable {
  return [
    defineMethod('personal_listAccounts', [], async () => (await accounts.accounts()).map(encodeData)),
    defineMethod('personal_listWallets', [], async () => (await accounts.wallets()).map(formatWallet)),
    defineMethod('personal_newAccount', [required(string)], async ([passphrase]) => encodeData(await accounts.newAccount(passphrase))),
    defineMethod('personal_importRawKey', [required(string), required(string)], async ([hexKey, passphrase]) => {
      const key = parseRawPrivateKey(hexKey)
      try {
        return encodeData(await accounts.importRawKey(key, passphrase))
      } finally {
        wipe(key)
      }
    }),
    defineMethod(
      'personal_unlockAccount',
      [required(address), required(string), optional(unlockDuration, DEFAULT_UNLOCK_SECONDS)],
      async ([account, passphrase, seconds], ctx) => {
        checkUnlockAllowed(ctx, options.allowInsecureUnlock)
        if (seconds > MAX_UNLOCK_SECONDS) throw accountErrors.durationTooLarge()
        await accounts.unlock(account, passphrase, seconds)
        return true
      },
    ),
    defineMethod('personal_lockAccount', [required(address)], ([account]) => accounts.lock(account)),
    defineMethod('personal_sendTransaction', [required(sendArgs), required(string)], async ([args, passphrase]) =>
      encodeData(await sender.send(args, passphrase)),
    ),
    // The passphrase may be omitted: then the unlocked key signs, as MetaMask, Anvil and Hardhat answer the
    // two-argument personal_sign that ethers' JsonRpcSigner.signMessage and viem's signMessage send.
    defineMethod('personal_sign', [required(data), required(address), optional(string)], async ([message, account, passphrase]) =>
      encodeData(encodeRpcSignature(await signDigest(accounts, account, textHash(message), passphrase))),
    ),
    defineMethod('personal_ecRecover', [required(data), required(data)], ([message, signature]) =>
      encodeData(recoverTextSigner(message, signature)),
    ),
    defineMethod('personal_initializeWallet', [required(string)], () => {
      throw accountErrors.smartCard()
    }),
    defineMethod('personal_unpair', [required(string), required(string)], () => {
      throw accountErrors.smartCard()
    }),
  ]
}
