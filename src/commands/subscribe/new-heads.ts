/** `nodectl subscribe new-heads [--include-transactions]`: stream new block headers (eth_subscribe newHeads). */
import { Flags } from '@oclif/core'
import type { RpcBlock } from '../../cli/eth-types.js'
import { decimalOf } from '../../cli/render.js'
import { SubscriptionCommand, type SubscribeResult } from '../../cli/subscription-command.js'

export default class SubscribeNewHeads extends SubscriptionCommand {
  static override summary = 'Stream new blocks.'
  /** The Ethereum subscription's name, as it was spelled before the commands were all kebab-case. */
  static override hiddenAliases = ['subscribe:newHeads']
  static override description =
    'Prints one line per new block (eth_subscribe newHeads over WebSocket) until Ctrl-C. --include-transactions asks for the ' +
    'transactions too. Reconnects with back-off if the node restarts.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --include-transactions --json',
    '<%= config.bin %> <%= command.id %> --ws ws://10.0.0.5:8546 --count 5',
  ]
  static override flags = { 'include-transactions': Flags.boolean({ summary: 'Include the full transactions of each block.' }) }

  async run(): Promise<SubscribeResult> {
    const { flags } = await this.parse(SubscribeNewHeads)
    const params = flags['include-transactions'] ? ['newHeads', { includeTransactions: true }] : ['newHeads']
    return this.stream(flags, {
      params,
      renderLine: (event) => {
        const head = event as RpcBlock
        const txs = head.transactions ? ` txs ${head.transactions.length}` : ''
        return `block ${decimalOf(head.number)} ${head.hash} time ${new Date(Number(head.timestamp) * 1000).toISOString()} gasUsed ${decimalOf(head.gasUsed)} baseFee ${decimalOf(head.baseFeePerGas)}${txs}`
      },
    })
  }
}
