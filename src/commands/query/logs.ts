/** `nodectl query logs [--from] [--to] [--address] [--topic ...]`: matching logs (eth_getLogs). */
import { Flags } from '@oclif/core'
import type { RpcLog } from '../../cli/eth-types.js'
import { buildLogFilter } from '../../cli/params.js'
import { logFilterFlags, logsTable } from '../../cli/log-flags.js'
import { RpcCommand } from '../../cli/rpc-command.js'

export default class QueryLogs extends RpcCommand {
  static override summary = 'Search logs.'
  static override description =
    'Lists the logs matching a filter with eth_getLogs. Each --topic is one topic position: a hash, several hashes separated by ' +
    'commas (any of them), or "any". The node caps the block range and the number of results.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --from 0 --to latest',
    '<%= config.bin %> <%= command.id %> --address 0x5FbDB2315678afecb367f032d93F642f64180aa3 --topic ' +
      '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
    '<%= config.bin %> <%= command.id %> --from 10 --to 20 --topic any --topic ' +
      '0x000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266 --json',
  ]
  static override flags = {
    from: Flags.string({ summary: 'First block (number or tag) [default: latest].' }),
    to: Flags.string({ summary: 'Last block (number or tag) [default: latest].' }),
    ...logFilterFlags,
  }

  async run(): Promise<RpcLog[]> {
    const { flags } = await this.parse(QueryLogs)
    const filter = buildLogFilter(flags)
    const logs = await (await this.httpClient(flags)).call<RpcLog[]>('eth_getLogs', [filter])
    if (!this.jsonEnabled()) this.log(logs.length === 0 ? 'no logs' : logsTable(logs))
    return logs
  }
}
