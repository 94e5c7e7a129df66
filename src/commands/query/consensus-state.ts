/** `nodectl query consensus-state`: the consensus round in progress (CometBFT consensus_state). */
import { CometCommand } from '../../cli/comet-command.js'
import { parseHeightRoundStep } from '../../cli/comet-render.js'
import type { CometConsensusState } from '../../cli/comet-types.js'
import { keyValueTable, listTable } from '../../cli/render.js'

/** Shown for a block hash the round does not have yet (the node sends ""). */
const NONE = '(none)'

export default class QueryConsensusState extends CometCommand {
  static override summary = 'Show the consensus round in progress.'
  static override description =
    "Shows the height, round and step the node's consensus is at, the proposal, locked and valid block hashes, the proposer, and per " +
    'round which validators prevoted and precommitted with their share of the voting power (consensus_state on the consensus RPC). ' +
    "--json prints the node's result."
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<CometConsensusState> {
    const { flags } = await this.parse(QueryConsensusState)
    const result = await (await this.cometClient(flags)).call<CometConsensusState>('consensus_state', {})
    if (!this.jsonEnabled()) {
      const rs = result.round_state
      const hrs = parseHeightRoundStep(rs['height/round/step'])
      this.log(
        keyValueTable([
          ['height', hrs?.height ?? rs['height/round/step']],
          ['round', hrs?.round],
          ['step', hrs?.step],
          ['start time', rs.start_time],
          ['proposer', `${rs.proposer.address} (index ${rs.proposer.index})`],
          ['proposal block', rs.proposal_block_hash || NONE],
          ['locked block', rs.locked_block_hash || NONE],
          ['valid block', rs.valid_block_hash || NONE],
        ]),
      )
      if (rs.height_vote_set.length > 0)
        this.log(
          listTable(
            ['round', 'prevotes', 'precommits'],
            rs.height_vote_set.map((r) => [r.round, r.prevotes_bit_array, r.precommits_bit_array]),
          ),
        )
    }
    return result
  }
}
