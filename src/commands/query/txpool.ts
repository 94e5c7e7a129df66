/** `nodectl query txpool [--inspect]`: the transaction pool (txpool_status + txpool_content / txpool_inspect). */
import { Flags } from '@oclif/core'
import type { RpcTransaction } from '../../cli/eth-types.js'
import { decimalOf, listTable } from '../../cli/render.js'
import { RpcCommand } from '../../cli/rpc-command.js'

/** Pool content by state, sender and nonce (geth's txpool_content / txpool_inspect shape). */
type PoolContent<T> = { pending: Record<string, Record<string, T>>; queued: Record<string, Record<string, T>> }

/** Result of `query txpool`. */
export interface TxpoolResult {
  /** Executable transactions. */
  pending: number
  /** Transactions waiting for a nonce gap to close. */
  queued: number
  /** txpool_content (without --inspect). */
  content?: PoolContent<RpcTransaction>
  /** txpool_inspect summaries (with --inspect). */
  inspect?: PoolContent<string>
}

export default class QueryTxpool extends RpcCommand {
  static override summary = 'Show the transaction pool.'
  static override description =
    'Lists the pending (executable) and queued (nonce gap) transactions of the node with txpool_status and txpool_content; --inspect ' +
    "shows geth's one-line summaries (txpool_inspect) instead. Needs the txpool namespace enabled."
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --inspect',
    '<%= config.bin %> <%= command.id %> --json',
  ]
  static override flags = { inspect: Flags.boolean({ summary: 'Show txpool_inspect summaries instead of full transactions.' }) }

  async run(): Promise<TxpoolResult> {
    const { flags } = await this.parse(QueryTxpool)
    const client = await this.httpClient(flags)
    const status = await client.call<{ pending: string; queued: string }>('txpool_status')
    const result: TxpoolResult = { pending: Number(status.pending), queued: Number(status.queued) }
    const rows: unknown[][] = []
    if (flags.inspect) {
      result.inspect = await client.call<PoolContent<string>>('txpool_inspect')
      for (const state of ['pending', 'queued'] as const)
        for (const [sender, byNonce] of Object.entries(result.inspect[state]))
          for (const [nonce, summary] of Object.entries(byNonce)) rows.push([state, sender, nonce, summary])
    } else {
      result.content = await client.call<PoolContent<RpcTransaction>>('txpool_content')
      for (const state of ['pending', 'queued'] as const)
        for (const [sender, byNonce] of Object.entries(result.content[state]))
          for (const [nonce, tx] of Object.entries(byNonce))
            rows.push([state, sender, nonce, tx.hash, decimalOf(tx.gasPrice ?? tx.maxFeePerGas)])
    }
    if (!this.jsonEnabled()) {
      this.log(`pending: ${result.pending}, queued: ${result.queued}`)
      if (rows.length > 0)
        this.log(
          listTable(
            flags.inspect ? ['state', 'sender', 'nonce', 'summary'] : ['state', 'sender', 'nonce', 'hash', 'gas price (wei)'],
            rows,
          ),
        )
    }
    return result
  }
}
