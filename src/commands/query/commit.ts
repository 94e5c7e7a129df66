/** `nodectl query commit [<height>]`: a block's signed header and its commit signatures (CometBFT commit). */
import { Args } from '@oclif/core'
import { CometCommand, encodeCometInt } from '../../cli/comet-command.js'
import { blockIdFlagName } from '../../cli/comet-render.js'
import type { CometSignedHeader } from '../../cli/comet-types.js'
import { keyValueTable, listTable } from '../../cli/render.js'

export default class QueryCommit extends CometCommand {
  static override summary = "Show a block's commit."
  static override description =
    "Shows the signed header of a height and the validators' precommit signatures that committed it (commit on the consensus RPC); " +
    'without a height, the latest block, whose commit is the one this node saw (canonical: false) until the next block records it. ' +
    "--json prints the node's result."
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> 12 --json']
  static override args = { height: Args.integer({ description: 'Block height [default: latest]', min: 1 }) }

  async run(): Promise<CometSignedHeader> {
    const { args, flags } = await this.parse(QueryCommit)
    const result = await (await this.cometClient(flags)).call<CometSignedHeader>('commit', { height: encodeCometInt(args.height) })
    if (!this.jsonEnabled()) {
      const { header, commit } = result.signed_header
      this.log(
        keyValueTable([
          ['height', header.height],
          ['round', commit.round],
          ['block hash', commit.block_id.hash],
          ['canonical', result.canonical],
          ['chain id', header.chain_id],
          ['time', header.time],
          ['app hash', header.app_hash],
          ['proposer', header.proposer_address],
        ]),
      )
      const sigs = commit.signatures ?? []
      if (sigs.length > 0)
        this.log(
          listTable(
            ['validator', 'vote', 'timestamp', 'signature'],
            sigs.map((s) => [s.validator_address, blockIdFlagName(s.block_id_flag), s.timestamp, s.signature ?? '']),
          ),
        )
    }
    return result
  }
}
