/**
 * Signing and sending transactions for the node's accounts: eth_signTransaction,
 * eth_sendTransaction and personal_sendTransaction share it. The account is opened first, so a locked
 * account or a wrong passphrase answers at once rather than after the estimate (geth fills first);
 * the signed bytes then take the same pool path as eth_sendRawTransaction, txfee-cap included.
 */
import { createUnsignedTx, type UnsignedTxFields } from '../../evm/txs/unsigned-tx.js'
import type { AccountSigner, AccountsBackend } from './accounts-backend.js'
import { AddressLocks } from './address-locks.js'
import type { EthBackend, ExecutionOptions } from './backend.js'
import type { SendArgs } from './send-args.js'
import { fillTransaction } from './tx-defaults.js'

/** Signs complete fields with an opened account; returns the raw signed bytes (eth_sendRawTransaction's argument). */
export function signTransactionFields(signer: AccountSigner, fields: UnsignedTxFields): Uint8Array {
  const unsigned = createUnsignedTx(fields)
  return unsigned.serializeSigned(signer.signHash(unsigned.signingHash))
}

/** Sends for senders without a key (a dev chain's impersonated accounts, api/dev/impersonation.ts). */
export interface KeylessSender {
  isImpersonated(from: Uint8Array): boolean
  /** The addresses impersonated one by one (not every address under auto-impersonation), oldest first. */
  impersonated(): Uint8Array[]
  send(args: SendArgs): Promise<Uint8Array>
}

export class TransactionSender {
  private readonly nonceLocks = new AddressLocks()

  constructor(
    private readonly backend: EthBackend,
    private readonly accounts: AccountsBackend,
    private readonly execution: ExecutionOptions,
    private readonly keyless?: KeylessSender,
  ) {}

  /** The senders eth_sendTransaction serves without a key: a dev chain's impersonated addresses (none elsewhere). */
  keylessAccounts(): Uint8Array[] {
    return this.keyless?.impersonated() ?? []
  }

  /**
   * Fills, signs (with the unlocked key, or with `passphrase` for this call only) and submits; returns
   * the EVM hash. Without a nonce the sender's calls are serialised, so each gets the next nonce. An
   * impersonated sender (dev chain) goes the keyless way.
   */
  async send(args: SendArgs, passphrase?: string): Promise<Uint8Array> {
    if (this.keyless?.isImpersonated(args.from)) return this.keyless.send(args)
    const signer = await this.accounts.openSigner(args.from, passphrase)
    try {
      const submit = async (): Promise<Uint8Array> => {
        const fields = await fillTransaction(this.backend, args, this.execution)
        return this.backend.sendRawTransaction(signTransactionFields(signer, fields))
      }
      return await (args.nonce === undefined ? this.nonceLocks.run(args.from, submit) : submit())
    } finally {
      signer.close()
    }
  }
}
