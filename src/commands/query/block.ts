/** `nodectl query block <n|hash|latest> [--full]`: a block by number, tag or hash (eth_getBlockBy*). */
import { Args, Flags } from '@oclif/core'
import type { RpcBlock, RpcTransaction } from '../../cli/eth-types.js'
import { parseBlockSelector } from '../../cli/params.js'
import { decimalOf, keyValueTable, listTable } from '../../cli/render.js'
import { RpcCommand } from '../../cli/rpc-command.js'

export default class QueryBlock extends RpcCommand {
  static override summary = 'Show a block.'
  static override description =
    'Fetches a block by number (decimal or hex), tag (latest, earliest, pending, safe, finalized) or hash with eth_getBlockByNumber / ' +
    'eth_getBlockByHash. With --full the transactions are listed in full.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> latest',
    '<%= config.bin %> <%= command.id %> 12 --full',
    '<%= config.bin %> <%= command.id %> 0x5c...e1 --json',
  ]
  static override args = { block: Args.string({ description: 'Block number, tag or hash', default: 'latest' }) }
  static override flags = { full: Flags.boolean({ summary: 'Include full transaction objects, not only hashes.' }) }

  async run(): Promise<RpcBlock> {
    const { args, flags } = await this.parse(QueryBlock)
    const selector = parseBlockSelector(args.block)
    const client = await this.httpClient(flags)
    const method = selector.kind === 'hash' ? 'eth_getBlockByHash' : 'eth_getBlockByNumber'
    const block = await client.call<RpcBlock | null>(method, [selector.value, flags.full === true])
    if (block === null) this.error(`block ${args.block} not found`, { exit: 1 })
    if (!this.jsonEnabled()) {
      const txs = block.transactions ?? []
      this.log(
        keyValueTable([
          ['number', decimalOf(block.number)],
          ['hash', block.hash],
          ['parentHash', block.parentHash],
          ['timestamp', `${decimalOf(block.timestamp)} (${new Date(Number(block.timestamp) * 1000).toISOString()})`],
          ['miner', block.miner],
          ['stateRoot', block.stateRoot],
          ['gasUsed', decimalOf(block.gasUsed)],
          ['gasLimit', decimalOf(block.gasLimit)],
          ['baseFeePerGas', decimalOf(block.baseFeePerGas)],
          ['transactions', txs.length],
        ]),
      )
      if (txs.length > 0) {
        const full = txs.filter((t): t is RpcTransaction => typeof t === 'object')
        this.log(
          full.length > 0
            ? listTable(
                ['hash', 'from', 'to', 'value (wei)', 'nonce'],
                full.map((t) => [t.hash, t.from, t.to ?? '(create)', decimalOf(t.value), decimalOf(t.nonce)]),
              )
            : listTable(
                ['transaction hash'],
                txs.map((t) => [t]),
              ),
        )
      }
    }
    return block
  }
}
