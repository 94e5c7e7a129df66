/** `nodectl filter new-blocks`: install a new-block filter (eth_newBlockFilter). */
import { keyValueTable } from '../../cli/render.js'
import { RpcCommand } from '../../cli/rpc-command.js'
import type { NewFilterResult } from './new-logs.js'

export default class FilterNewBlocks extends RpcCommand {
  static override summary = 'Install a new-block filter.'
  static override description =
    'Installs a polled filter of new block hashes with eth_newBlockFilter and prints its id; read it with "filter changes <id>".'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<NewFilterResult> {
    const { flags } = await this.parse(FilterNewBlocks)
    const id = await (await this.httpClient(flags)).call<string>('eth_newBlockFilter')
    if (!this.jsonEnabled())
      this.log(
        keyValueTable([
          ['filter id', id],
          ['kind', 'blocks'],
        ]),
      )
    return { id, kind: 'blocks' }
  }
}
