/** `nodectl query tx-search "<query>" [--page] [--per-page] [--order-by] [--prove]`: indexed txs matching an event query (CometBFT tx_search). */
import { Args, Flags } from '@oclif/core'
import { CometCommand, encodeCometInt, pageFlags } from '../../cli/comet-command.js'
import { TX_COLUMNS, txRow } from '../../cli/comet-render.js'
import type { CometTxSearch } from '../../cli/comet-types.js'
import { listTable } from '../../cli/render.js'

export default class QueryTxSearch extends CometCommand {
  static override summary = 'Search transactions by event query.'
  static override description =
    'Lists the indexed transactions matching a CometBFT event query (tx_search on the consensus RPC): conditions joined by AND on ' +
    'composite keys such as tx.height, tx.hash or ethereum_tx.ethereumTxHash, ethereum.sender, ethereum.recipient. The table shows ' +
    "each tx's height, index, consensus (SHA-256) hash, EVM hash, result code and gas used; --json prints the node's result."
  static override examples = [
    `<%= config.bin %> <%= command.id %> "ethereum_tx.ethereumTxHash='0x972c530e35ae4b83ede75e9420db7bf2f54ec9e605e9f1a8a90747f4a5745b45'"`,
    `<%= config.bin %> <%= command.id %> "ethereum.sender='0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266' AND tx.height>=10" --order-by ` +
      `desc --per-page 10`,
    '<%= config.bin %> <%= command.id %> "tx.height=5" --prove --json',
  ]
  static override args = { query: Args.string({ description: 'Event query, e.g. "tx.height=5"', required: true }) }
  static override flags = {
    ...pageFlags,
    'order-by': Flags.string({ summary: 'Order by height and index [default: asc].', options: ['asc', 'desc'] }),
    prove: Flags.boolean({ summary: "Include each tx's Merkle inclusion proof (shown with --json)." }),
  }

  async run(): Promise<CometTxSearch> {
    const { args, flags } = await this.parse(QueryTxSearch)
    const client = await this.cometClient(flags)
    const result = await client.call<CometTxSearch>('tx_search', {
      query: args.query,
      prove: flags.prove,
      page: encodeCometInt(flags.page),
      per_page: encodeCometInt(flags['per-page']),
      order_by: flags['order-by'] ?? '',
    })
    if (!this.jsonEnabled()) {
      this.log(
        `${result.total_count} matching transaction(s)${result.txs.length < Number(result.total_count) ? `, ${result.txs.length} on page ${flags.page ?? 1}` : ''}`,
      )
      if (result.txs.length > 0) this.log(listTable(TX_COLUMNS, result.txs.map(txRow)))
    }
    return result
  }
}
