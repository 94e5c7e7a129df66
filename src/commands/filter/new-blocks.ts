/** `nodectl filter new-blocks`: install a new-block filter (eth_newBlockFilter). */
import { renderNewFilter, type NewFilterResult } from '../../cli/filter-render.js'
import { RpcCommand } from '../../cli/rpc-command.js'

export default class FilterNewBlocks extends RpcCommand {
  static override summary = 'Install a new-block filter.'
  static override description =
    'Installs a polled filter of new block hashes with eth_newBlockFilter and prints its id (alone on one line when stdout is not a terminal, so $(...) captures it); read it with "filter changes <id>".'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<NewFilterResult> {
    const { flags } = await this.parse(FilterNewBlocks)
    const id = await (await this.httpClient(flags)).call<string>('eth_newBlockFilter')
    const result: NewFilterResult = { id, kind: 'blocks' }
    if (!this.jsonEnabled()) this.log(renderNewFilter(result))
    return result
  }
}
