/** `nodectl query block-results <height>`: the execution results of a block (CometBFT block_results). */
import { Args } from '@oclif/core'
import { CometCommand, encodeCometInt } from '../../cli/comet-command.js'
import { evmHashOf, formatAttributes } from '../../cli/comet-render.js'
import type { CometBlockResults } from '../../cli/comet-types.js'
import { keyValueTable, listTable } from '../../cli/render.js'

export default class QueryBlockResults extends CometCommand {
  static override summary = 'Show the execution results of a block.'
  static override description =
    "Shows, for a committed block, each transaction's result (code, gas, EVM hash, log), the block's FinalizeBlock events (bloom, " +
    "base fee) and any validator updates (block_results on the consensus RPC). --json prints the node's result, with every event of " +
    'every tx.'
  static override examples = ['<%= config.bin %> <%= command.id %> 12', '<%= config.bin %> <%= command.id %> 12 --json']
  static override args = { height: Args.integer({ description: 'Block height', required: true, min: 1 }) }

  async run(): Promise<CometBlockResults> {
    const { args, flags } = await this.parse(QueryBlockResults)
    const result = await (await this.cometClient(flags)).call<CometBlockResults>('block_results', { height: encodeCometInt(args.height) })
    if (!this.jsonEnabled()) {
      const txs = result.txs_results ?? []
      const updates = result.validator_updates ?? []
      this.log(
        keyValueTable([
          ['height', result.height],
          ['app hash (base64)', result.app_hash],
          ['transactions', txs.length],
          ['validator updates', updates.length],
        ]),
      )
      if (txs.length > 0) {
        const rows = txs.map((r, i) => [i, r.code ?? 0, r.gas_wanted ?? '0', r.gas_used ?? '0', evmHashOf(r), r.log ?? ''])
        this.log(listTable(['index', 'code', 'gas wanted', 'gas used', 'EVM hash', 'log'], rows))
      }
      const events = result.finalize_block_events ?? []
      if (events.length > 0)
        this.log(
          listTable(
            ['block event', 'attributes'],
            events.map((e) => [e.type, formatAttributes(e)]),
          ),
        )
      if (updates.length > 0)
        this.log(
          listTable(
            ['validator update', 'power'],
            updates.map((u) => [u.pub_key, u.power ?? '0']),
          ),
        )
    }
    return result
  }
}
