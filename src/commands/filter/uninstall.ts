/** `nodectl filter uninstall <id>`: remove a filter (eth_uninstallFilter). */
import { Args } from '@oclif/core'
import { RpcCommand } from '../../cli/rpc-command.js'

/** Result of `filter uninstall`. */
export interface UninstallResult {
  id: string
  /** False when the node did not know the filter (already removed or expired). */
  uninstalled: boolean
}

export default class FilterUninstall extends RpcCommand {
  static override summary = 'Remove a filter.'
  static override description =
    'Removes a filter with eth_uninstallFilter; reports whether the node knew it (filters expire after 5 minutes without polling).'
  static override examples = ['<%= config.bin %> <%= command.id %> 0x3b9f...', '<%= config.bin %> <%= command.id %> 0x3b9f... --json']
  static override args = { id: Args.string({ description: 'Filter id', required: true }) }

  async run(): Promise<UninstallResult> {
    const { args, flags } = await this.parse(FilterUninstall)
    const uninstalled = await (await this.httpClient(flags)).call<boolean>('eth_uninstallFilter', [args.id])
    if (!this.jsonEnabled())
      this.log(uninstalled ? `filter ${args.id} uninstalled` : `filter ${args.id} not found (already removed or expired)`)
    return { id: args.id, uninstalled }
  }
}
