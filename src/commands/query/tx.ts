/** `nodectl query tx <hash>`: a transaction by its EVM hash (eth_getTransactionByHash). */
import { Args } from '@oclif/core'
import type { RpcTransaction } from '../../cli/eth-types.js'
import { parseHash } from '../../cli/params.js'
import { decimalOf, keyValueTable } from '../../cli/render.js'
import { RpcCommand } from '../../cli/rpc-command.js'

export default class QueryTx extends RpcCommand {
  static override summary = 'Show a transaction.'
  static override description =
    'Fetches a transaction by its EVM (Keccak-256) hash with eth_getTransactionByHash; pending transactions show no block.'
  static override examples = ['<%= config.bin %> <%= command.id %> 0x9f...c2', '<%= config.bin %> <%= command.id %> 0x9f...c2 --json']
  static override args = { hash: Args.string({ description: 'Transaction hash (0x + 64 hex)', required: true }) }

  async run(): Promise<RpcTransaction> {
    const { args, flags } = await this.parse(QueryTx)
    const hash = parseHash(args.hash, 'transaction hash')
    const tx = await (await this.httpClient(flags)).call<RpcTransaction | null>('eth_getTransactionByHash', [hash])
    if (tx === null) this.error(`transaction ${hash} not found`, { exit: 1 })
    if (!this.jsonEnabled()) {
      this.log(
        keyValueTable([
          ['hash', tx.hash],
          ['type', decimalOf(tx.type)],
          ['from', tx.from],
          ['to', tx.to ?? '(contract creation)'],
          ['value (wei)', decimalOf(tx.value)],
          ['nonce', decimalOf(tx.nonce)],
          ['gas', decimalOf(tx.gas)],
          ['gasPrice', decimalOf(tx.gasPrice)],
          ['block', tx.blockNumber === null ? '(pending)' : decimalOf(tx.blockNumber)],
          ['index', decimalOf(tx.transactionIndex)],
          ['input', tx.input.length > 74 ? `${tx.input.slice(0, 74)}… (${(tx.input.length - 2) / 2} bytes)` : tx.input],
        ]),
      )
    }
    return tx
  }
}
