/** `nodectl query validators [--height] [--page] [--per-page]`: the validator set of a height (CometBFT validators). */
import { Flags } from '@oclif/core'
import { CometCommand, encodeCometInt, pageFlags } from '../../cli/comet-command.js'
import type { CometValidators } from '../../cli/comet-types.js'
import { listTable } from '../../cli/render.js'

export default class QueryValidators extends CometCommand {
  static override summary = 'Show the validator set.'
  static override description =
    'Lists the validators of a height, by voting power (validators on the consensus RPC). Without --height: the set that signs the ' +
    "next block. --json prints the node's result."
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --height 100 --per-page 50 --json',
  ]
  static override flags = {
    height: Flags.integer({ summary: 'Block height [default: the next height].', min: 1 }),
    ...pageFlags,
  }

  async run(): Promise<CometValidators> {
    const { flags } = await this.parse(QueryValidators)
    const client = await this.cometClient(flags)
    const result = await client.call<CometValidators>('validators', {
      height: encodeCometInt(flags.height),
      page: encodeCometInt(flags.page),
      per_page: encodeCometInt(flags['per-page']),
    })
    if (!this.jsonEnabled()) {
      this.log(`validators at height ${result.block_height}: ${result.count} of ${result.total}`)
      this.log(
        listTable(
          ['address', 'pub key', 'voting power', 'proposer priority'],
          result.validators.map((v) => [v.address, `${v.pub_key.type} ${v.pub_key.value}`, v.voting_power, v.proposer_priority]),
        ),
      )
    }
    return result
  }
}
