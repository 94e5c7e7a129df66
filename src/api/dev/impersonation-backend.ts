/**
 * What impersonation needs from the node (src/node/dev-impersonation.ts): which senders need no key,
 * their next nonce counting transactions queued but not yet in a block, and the submission of a
 * transaction as sent by an address without its signature.
 */
import type { UnsignedTxFields } from '../../evm/txs/unsigned-tx.js'

export interface ImpersonationBackend {
  impersonate(address: Uint8Array): void
  stopImpersonating(address: Uint8Array): void
  /** Every address is impersonated while on (anvil_autoImpersonateAccount). */
  setAutoImpersonate(on: boolean): void
  isImpersonated(address: Uint8Array): boolean
  /** The addresses impersonated one by one and not stopped, oldest first (eth_accounts lists them). */
  impersonated(): Uint8Array[]
  /** The nonce after the sender's transactions queued for a block, or undefined when none is queued. */
  queuedNonce(address: Uint8Array): bigint | undefined
  /**
   * Queues complete `fields` as sent by `from` (checked first: nonce, funds); returns the EVM hash. The
   * transaction joins the next block as a pool transaction does.
   */
  submit(from: Uint8Array, fields: UnsignedTxFields): Promise<Uint8Array>
}
