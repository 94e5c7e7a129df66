/** `nodectl query net-info`: the node's p2p listeners and peers (CometBFT net_info). */
import { CometCommand } from '../../cli/comet-command.js'
import type { CometNetInfo } from '../../cli/comet-types.js'
import { keyValueTable, listTable } from '../../cli/render.js'

export default class QueryNetInfo extends CometCommand {
  static override summary = "Show the node's peers."
  static override description =
    'Shows whether the node listens for peers, on which addresses, and its connected peers with their node id, moniker, address and ' +
    "direction (net_info on the consensus RPC). --json prints the node's result."
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<CometNetInfo> {
    const { flags } = await this.parse(QueryNetInfo)
    const result = await (await this.cometClient(flags)).call<CometNetInfo>('net_info', {})
    if (!this.jsonEnabled()) {
      this.log(
        keyValueTable([
          ['listening', result.listening],
          ['listeners', result.listeners.join(', ')],
          ['peers', result.n_peers],
        ]),
      )
      const rows = result.peers.map((p) => [
        p.node_info.id,
        p.node_info.moniker,
        p.remote_ip,
        p.node_info.listen_addr,
        p.is_outbound ? 'outbound' : 'inbound',
        p.node_info.network,
      ])
      if (rows.length > 0) this.log(listTable(['node id', 'moniker', 'remote ip', 'listen address', 'direction', 'chain id'], rows))
    }
    return result
  }
}
