/** `nodectl filter changes <id>`: what a filter collected since it was last polled (eth_getFilterChanges). */
import { Args } from '@oclif/core'
import type { RpcLog } from '../../cli/eth-types.js'
import { renderFilterItems } from '../../cli/filter-render.js'
import { RpcCommand } from '../../cli/rpc-command.js'

export default class FilterChanges extends RpcCommand {
  static override summary = 'Poll a filter.'
  static override description =
    'Returns what the filter collected since the last poll with eth_getFilterChanges: logs for a logs filter, block hashes or ' +
    'transaction hashes for the others.'
  static override examples = ['<%= config.bin %> <%= command.id %> 0x3b9f...', '<%= config.bin %> <%= command.id %> 0x3b9f... --json']
  static override args = { id: Args.string({ description: 'Filter id', required: true }) }

  async run(): Promise<(string | RpcLog)[]> {
    const { args, flags } = await this.parse(FilterChanges)
    const items = await (await this.httpClient(flags)).call<(string | RpcLog)[]>('eth_getFilterChanges', [args.id])
    if (!this.jsonEnabled()) this.log(renderFilterItems(items))
    return items
  }
}
