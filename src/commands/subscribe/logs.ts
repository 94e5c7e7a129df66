/** `nodectl subscribe logs [--address] [--topic ...]`: stream matching logs (eth_subscribe logs). */
import type { RpcLog } from '../../cli/eth-types.js'
import { logFilterFlags } from '../../cli/log-flags.js'
import { buildLogFilter } from '../../cli/params.js'
import { decimalOf } from '../../cli/render.js'
import { SubscriptionCommand, type SubscribeResult } from '../../cli/subscription-command.js'

export default class SubscribeLogs extends SubscriptionCommand {
  static override summary = 'Stream logs.'
  static override description =
    'Prints one line per log matching --address and --topic as blocks are committed (eth_subscribe logs over WebSocket), until ' +
    'Ctrl-C. Each --topic is one position: a hash, hashes separated by commas, or "any". Logs of a reorganisation would arrive with ' +
    'removed=true.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --address 0x5FbDB2315678afecb367f032d93F642f64180aa3',
    '<%= config.bin %> <%= command.id %> --topic 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef --json',
  ]
  static override flags = { ...logFilterFlags }

  async run(): Promise<SubscribeResult> {
    const { flags } = await this.parse(SubscribeLogs)
    return this.stream(flags, {
      params: ['logs', buildLogFilter(flags)],
      renderLine: (event) => {
        const log = event as RpcLog
        return `block ${decimalOf(log.blockNumber)} tx ${log.transactionHash} #${decimalOf(log.logIndex)} ${log.address} topics [${log.topics.join(', ')}] data ${log.data}${log.removed ? ' (removed)' : ''}`
      },
    })
  }
}
