/** `nodectl subscribe new-pending-transactions [--full]`: stream transactions entering the pool. */
import { Flags } from '@oclif/core'
import type { RpcTransaction } from '../../cli/eth-types.js'
import { decimalOf } from '../../cli/render.js'
import { SubscriptionCommand, type SubscribeResult } from '../../cli/subscription-command.js'

export default class SubscribeNewPendingTransactions extends SubscriptionCommand {
  static override summary = 'Stream pending transactions.'
  /** The Ethereum subscription's name, as it was spelled before the commands were all kebab-case. */
  static override hiddenAliases = ['subscribe:newPendingTransactions']
  static override description =
    'Prints the hash of each transaction entering the pool (eth_subscribe newPendingTransactions over WebSocket) until Ctrl-C; --full ' +
    'prints sender, recipient, value and nonce.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --full --json']
  static override flags = { full: Flags.boolean({ summary: 'Receive full transaction objects instead of hashes.' }) }

  async run(): Promise<SubscribeResult> {
    const { flags } = await this.parse(SubscribeNewPendingTransactions)
    return this.stream(flags, {
      params: flags.full ? ['newPendingTransactions', true] : ['newPendingTransactions'],
      renderLine: (event) => {
        if (typeof event === 'string') return event
        const tx = event as RpcTransaction
        return `${tx.hash} from ${tx.from} to ${tx.to ?? '(create)'} value ${decimalOf(tx.value)} nonce ${decimalOf(tx.nonce)}`
      },
    })
  }
}
