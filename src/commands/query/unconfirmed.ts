/** `nodectl query unconfirmed [--limit]`: transactions waiting in the mempool (CometBFT unconfirmed_txs). */
import { Flags } from '@oclif/core'
import { CometCommand, encodeCometInt } from '../../cli/comet-command.js'
import { hashesOfRawTx } from '../../cli/comet-render.js'
import type { CometUnconfirmedTxs } from '../../cli/comet-types.js'
import { listTable } from '../../cli/render.js'

export default class QueryUnconfirmed extends CometCommand {
  static override summary = "Show the mempool's unconfirmed transactions."
  static override description =
    "Lists up to --limit of the mempool's transactions with their consensus (SHA-256) and EVM hashes and sizes, and the mempool's " +
    'totals (unconfirmed_txs on the consensus RPC). Unconfirmed means every transaction the pool holds: pending ones first, in the ' +
    "order a proposer would take them, then queued ones (waiting behind a nonce gap). --json prints the node's result (raw txs in base64)."
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --limit 100 --json']
  static override flags = { limit: Flags.integer({ summary: 'Most transactions to list; the node caps it at 100 [default: 30].', min: 1 }) }

  async run(): Promise<CometUnconfirmedTxs> {
    const { flags } = await this.parse(QueryUnconfirmed)
    const result = await (await this.cometClient(flags)).call<CometUnconfirmedTxs>('unconfirmed_txs', {
      limit: encodeCometInt(flags.limit),
    })
    if (!this.jsonEnabled()) {
      this.log(`${result.total} unconfirmed transaction(s), ${result.total_bytes} bytes; showing ${result.n_txs}`)
      const rows = (result.txs ?? []).map((tx) => hashesOfRawTx(tx)).map((h) => [h.consensusHash, h.evmHash, h.bytes])
      if (rows.length > 0) this.log(listTable(['consensus hash', 'EVM hash', 'bytes'], rows))
    }
    return result
  }
}
