/** `nodectl query block-search "<query>" [--page] [--per-page] [--order-by]`: blocks matching an event query (CometBFT block_search). */
import { Args, Flags } from '@oclif/core'
import { CometCommand, encodeCometInt, pageFlags } from '../../cli/comet-command.js'
import type { CometBlockSearch } from '../../cli/comet-types.js'
import { listTable } from '../../cli/render.js'

export default class QueryBlockSearch extends CometCommand {
  static override summary = 'Search blocks by event query.'
  static override description =
    'Lists the blocks matching a CometBFT event query on block.height and the FinalizeBlock events (block_search on the consensus ' +
    'RPC), e.g. "block.height>10 AND block.height<=20" or "fee_market.base_fee EXISTS". Newest first by default. --json prints the ' +
    "node's result, with the full blocks."
  static override examples = [
    '<%= config.bin %> <%= command.id %> "block.height>10 AND block.height<=20" --order-by asc',
    `<%= config.bin %> <%= command.id %> "fee_market.base_fee>1000000000" --per-page 5`,
    '<%= config.bin %> <%= command.id %> "block.height=5" --json',
  ]
  static override args = { query: Args.string({ description: 'Event query, e.g. "block.height>10"', required: true }) }
  static override flags = {
    ...pageFlags,
    'order-by': Flags.string({ summary: 'Order by height [default: desc].', options: ['asc', 'desc'] }),
  }

  async run(): Promise<CometBlockSearch> {
    const { args, flags } = await this.parse(QueryBlockSearch)
    const client = await this.cometClient(flags)
    const result = await client.call<CometBlockSearch>('block_search', {
      query: args.query,
      page: encodeCometInt(flags.page),
      per_page: encodeCometInt(flags['per-page']),
      order_by: flags['order-by'] ?? '',
    })
    if (!this.jsonEnabled()) {
      this.log(
        `${result.total_count} matching block(s)${result.blocks.length < Number(result.total_count) ? `, ${result.blocks.length} on page ${flags.page ?? 1}` : ''}`,
      )
      const rows = result.blocks.map(({ block_id, block }) => [
        block.header.height,
        block_id.hash,
        block.header.time,
        block.data.txs?.length ?? 0,
        block.header.proposer_address,
      ])
      if (rows.length > 0) this.log(listTable(['height', 'block hash', 'time', 'txs', 'proposer'], rows))
    }
    return result
  }
}
