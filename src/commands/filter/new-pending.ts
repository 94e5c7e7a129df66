/** `nodectl filter new-pending`: install a pending-transaction filter (eth_newPendingTransactionFilter). */
import { renderNewFilter, type NewFilterResult } from '../../cli/filter-render.js'
import { RpcCommand } from '../../cli/rpc-command.js'

export default class FilterNewPending extends RpcCommand {
  static override summary = 'Install a pending-transaction filter.'
  static override description =
    'Installs a polled filter of the hashes of transactions entering the pool with eth_newPendingTransactionFilter and prints its id (alone on one line when stdout is not a terminal, so $(...) captures it).'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<NewFilterResult> {
    const { flags } = await this.parse(FilterNewPending)
    const id = await (await this.httpClient(flags)).call<string>('eth_newPendingTransactionFilter')
    const result: NewFilterResult = { id, kind: 'pending' }
    if (!this.jsonEnabled()) this.log(renderNewFilter(result))
    return result
  }
}
