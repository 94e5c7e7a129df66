/**
 * Errors of the key-using methods, with geth's texts (`accounts/errors.go`, `accounts/keystore`,
 * `internal/ethapi/api.go`), all -32000 as geth returns them. Scripts and wallets match on these strings
 * (ethers and viem surface `authentication needed: password or unlock` to the user as is).
 */
import { NodeError } from '../../utils/errors.js'

/** A refusal of a key-using method; the message is geth's. */
export class AccountError extends NodeError {}

export const accountErrors = {
  /** geth `keystore.ErrLocked`: signing without a passphrase with an account that is not unlocked. */
  locked: () => new AccountError('authentication needed: password or unlock'),
  /** geth `accounts.ErrUnknownAccount`: signing with an address the node has no key for. */
  unknownAccount: () => new AccountError('unknown account'),
  /** geth `keystore.ErrNoMatch`: personal_unlockAccount of an address without a key file. */
  noKey: () => new AccountError('no key for given address or file'),
  /** geth `keystore.ErrDecrypt`: a wrong passphrase. */
  wrongPassphrase: () => new AccountError('could not decrypt key with given password'),
  /** geth `keystore.ErrAccountAlreadyExists`: personal_importRawKey of a key already in the store. */
  alreadyExists: () => new AccountError('account already exists'),
  /** geth: personal_unlockAccount over HTTP/WebSocket without `--allow-insecure-unlock`; here: from a non-loopback caller. */
  insecureUnlock: () => new AccountError('account unlock with HTTP access is forbidden'),
  /** geth: a duration past Go's time.Duration range. */
  durationTooLarge: () => new AccountError('unlock duration too large'),
  /** personal_initializeWallet / personal_unpair: a node has no hardware smart-card wallet (docs/decisions.md). */
  smartCard: () => new AccountError('smart-card wallets are not supported'),
  /** A node built without a key store (API tests over a double). */
  noKeyStore: () => new AccountError('this node has no key store'),
} as const
