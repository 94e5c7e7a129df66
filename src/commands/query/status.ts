/** `nodectl query status`: the node's identity, latest block and validator (CometBFT status). */
import { CometCommand } from '../../cli/comet-command.js'
import type { CometStatus } from '../../cli/comet-types.js'
import { keyValueTable } from '../../cli/render.js'

export default class QueryStatus extends CometCommand {
  static override summary = "Show the node's status."
  static override description =
    'Shows the chain id, node id, moniker and version, the latest and earliest blocks, whether the node is catching up, and its ' +
    "validator key and voting power (status on the consensus RPC). --json prints the node's result."
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --rpc tcp://10.0.0.5:26657 --json',
  ]

  async run(): Promise<CometStatus> {
    const { flags } = await this.parse(QueryStatus)
    const status = await (await this.cometClient(flags)).call<CometStatus>('status', {})
    if (!this.jsonEnabled()) {
      const { node_info: n, sync_info: s, validator_info: v } = status
      this.log(
        keyValueTable([
          ['chain id', n.network],
          ['node id', n.id],
          ['moniker', n.moniker],
          ['version', n.version],
          ['rpc address', n.other.rpc_address],
          ['tx index', n.other.tx_index],
          ['latest height', s.latest_block_height],
          ['latest block hash', s.latest_block_hash],
          ['latest app hash', s.latest_app_hash],
          ['latest block time', s.latest_block_time],
          ['earliest height', s.earliest_block_height],
          ['catching up', s.catching_up],
          ['validator address', v.address],
          ['validator pub key', `${v.pub_key.type} ${v.pub_key.value}`],
          ['voting power', v.voting_power],
        ]),
      )
    }
    return status
  }
}
