/** `nodectl filter new-pending`: install a pending-transaction filter (eth_newPendingTransactionFilter). */
import { keyValueTable } from '../../cli/render.js'
import { RpcCommand } from '../../cli/rpc-command.js'
import type { NewFilterResult } from './new-logs.js'

export default class FilterNewPending extends RpcCommand {
  static override summary = 'Install a pending-transaction filter.'
  static override description =
    'Installs a polled filter of the hashes of transactions entering the pool with eth_newPendingTransactionFilter and prints its id.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<NewFilterResult> {
    const { flags } = await this.parse(FilterNewPending)
    const id = await (await this.httpClient(flags)).call<string>('eth_newPendingTransactionFilter')
    if (!this.jsonEnabled())
      this.log(
        keyValueTable([
          ['filter id', id],
          ['kind', 'pending'],
        ]),
      )
    return { id, kind: 'pending' }
  }
}
