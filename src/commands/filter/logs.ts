/** `nodectl filter logs <id>`: every log matching a logs filter (eth_getFilterLogs). */
import { Args } from '@oclif/core'
import type { RpcLog } from '../../cli/eth-types.js'
import { renderFilterItems } from '../../cli/filter-render.js'
import { RpcCommand } from '../../cli/rpc-command.js'

export default class FilterLogs extends RpcCommand {
  static override summary = 'List all logs of a logs filter.'
  static override description =
    "Returns every log matching a logs filter's criteria with eth_getFilterLogs, whether or not it was polled before."
  static override examples = ['<%= config.bin %> <%= command.id %> 0x3b9f...', '<%= config.bin %> <%= command.id %> 0x3b9f... --json']
  static override args = { id: Args.string({ description: 'Filter id (of a logs filter)', required: true }) }

  async run(): Promise<RpcLog[]> {
    const { args, flags } = await this.parse(FilterLogs)
    const logs = await (await this.httpClient(flags)).call<RpcLog[]>('eth_getFilterLogs', [args.id])
    if (!this.jsonEnabled()) this.log(renderFilterItems(logs))
    return logs
  }
}
