/** `nodectl filter new-logs [--from] [--to] [--address] [--topic ...]`: install a logs filter (eth_newFilter). */
import { Flags } from '@oclif/core'
import { logFilterFlags } from '../../cli/log-flags.js'
import { buildLogFilter } from '../../cli/params.js'
import { renderNewFilter, type NewFilterResult } from '../../cli/filter-render.js'
import { RpcCommand } from '../../cli/rpc-command.js'

export type { NewFilterResult }

export default class FilterNewLogs extends RpcCommand {
  static override summary = 'Install a logs filter.'
  static override description =
    'Installs a polled logs filter with eth_newFilter and prints its id (alone on one line when stdout is not a terminal, so $(...) captures it); read it with "filter changes <id>". The node removes filters ' +
    'not polled for 5 minutes.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --address 0x5FbDB2315678afecb367f032d93F642f64180aa3',
    '<%= config.bin %> <%= command.id %> --from 0 --topic 0xddf2...b3ef --json',
  ]
  static override flags = {
    from: Flags.string({ summary: 'First block (number or tag) [default: latest].' }),
    to: Flags.string({ summary: 'Last block (number or tag) [default: latest].' }),
    ...logFilterFlags,
  }

  async run(): Promise<NewFilterResult> {
    const { flags } = await this.parse(FilterNewLogs)
    const id = await (await this.httpClient(flags)).call<string>('eth_newFilter', [buildLogFilter(flags)])
    const result: NewFilterResult = { id, kind: 'logs' }
    if (!this.jsonEnabled()) this.log(renderNewFilter(result))
    return result
  }
}
