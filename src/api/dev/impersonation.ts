/**
 * Impersonation: transactions from an address whose key the node does not hold.
 * - anvil_impersonateAccount / hardhat_impersonateAccount(address): eth_sendTransaction from it works
 *   without its key (null / true);
 * - anvil_stopImpersonatingAccount / hardhat_stopImpersonatingAccount(address) (null / true);
 * - anvil_autoImpersonateAccount(bool): every address (null);
 * - eth_sendUnsignedTransaction(args): from any address, impersonated or not; the EVM hash.
 * The transaction is filled as eth_sendTransaction fills one (tx-defaults.ts), then queued as a dev
 * operation naming its sender; it has a hash, fields and receipt like any other.
 */
import { address, bool } from '../../rpc/codecs.js'
import { defineMethod, required, type MethodTable } from '../../rpc/method-table.js'
import type { EthBackend, ExecutionOptions } from '../eth/backend.js'
import { encodeData } from '../eth/format.js'
import { AddressLocks } from '../eth/address-locks.js'
import { sendArgs, type SendArgs } from '../eth/send-args.js'
import { fillTransaction } from '../eth/tx-defaults.js'
import type { ImpersonationBackend } from './impersonation-backend.js'

/** Sends transactions as impersonated senders: the eth_sendTransaction path of an address without a key. */
export class ImpersonatedSender {
  private readonly nonceLocks = new AddressLocks()

  constructor(
    private readonly eth: EthBackend,
    readonly backend: ImpersonationBackend,
    private readonly execution: ExecutionOptions,
  ) {}

  isImpersonated(from: Uint8Array): boolean {
    return this.backend.isImpersonated(from)
  }

  impersonated(): Uint8Array[] {
    return this.backend.impersonated()
  }

  /** Fills and queues; without a nonce the sender's calls are serialised, each taking the next nonce. */
  send(args: SendArgs): Promise<Uint8Array> {
    const submit = async (): Promise<Uint8Array> => {
      const nonce = args.nonce ?? (await this.nextNonce(args.from))
      const fields = await fillTransaction(this.eth, { ...args, nonce }, this.execution)
      return this.backend.submit(args.from, fields)
    }
    return args.nonce === undefined ? this.nonceLocks.run(args.from, submit) : submit()
  }

  private async nextNonce(from: Uint8Array): Promise<bigint> {
    const pending = await this.eth.getPendingNonce(from)
    const queued = this.backend.queuedNonce(from)
    return queued !== undefined && queued > pending ? queued : pending
  }
}

/** The impersonation methods; the backend is read when a method runs (the refusal tables are built without one). */
export function createDevImpersonationMethods(sender: ImpersonatedSender): MethodTable {
  const answer = (name: string): true | null => (name.startsWith('hardhat_') ? true : null)
  return [
    ...['anvil_impersonateAccount', 'hardhat_impersonateAccount'].map((name) =>
      defineMethod(name, [required(address)], ([a]) => {
        sender.backend.impersonate(a)
        return answer(name)
      }),
    ),
    ...['anvil_stopImpersonatingAccount', 'hardhat_stopImpersonatingAccount'].map((name) =>
      defineMethod(name, [required(address)], ([a]) => {
        sender.backend.stopImpersonating(a)
        return answer(name)
      }),
    ),
    defineMethod('anvil_autoImpersonateAccount', [required(bool)], ([on]) => {
      sender.backend.setAutoImpersonate(on)
      return null
    }),
    defineMethod('eth_sendUnsignedTransaction', [required(sendArgs)], async ([args]) => encodeData(await sender.send(args))),
  ]
}
