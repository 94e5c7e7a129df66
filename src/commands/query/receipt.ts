/** `nodectl query receipt <hash>`: a transaction's receipt (eth_getTransactionReceipt). */
import { Args } from '@oclif/core'
import type { RpcReceipt } from '../../cli/eth-types.js'
import { parseHash } from '../../cli/params.js'
import { decimalOf, keyValueTable, listTable } from '../../cli/render.js'
import { RpcCommand } from '../../cli/rpc-command.js'

export default class QueryReceipt extends RpcCommand {
  static override summary = 'Show a transaction receipt.'
  static override description =
    'Fetches the receipt of a mined transaction with eth_getTransactionReceipt: status, gas used, created contract and logs.'
  static override examples = ['<%= config.bin %> <%= command.id %> 0x9f...c2', '<%= config.bin %> <%= command.id %> 0x9f...c2 --json']
  static override args = { hash: Args.string({ description: 'Transaction hash (0x + 64 hex)', required: true }) }

  async run(): Promise<RpcReceipt> {
    const { args, flags } = await this.parse(QueryReceipt)
    const hash = parseHash(args.hash, 'transaction hash')
    const receipt = await (await this.httpClient(flags)).call<RpcReceipt | null>('eth_getTransactionReceipt', [hash])
    if (receipt === null) this.error(`no receipt for ${hash} (unknown or not mined yet)`, { exit: 1 })
    if (!this.jsonEnabled()) {
      this.log(
        keyValueTable([
          ['transactionHash', receipt.transactionHash],
          ['status', receipt.status === '0x1' ? 'success (1)' : 'failed (0)'],
          ['block', decimalOf(receipt.blockNumber)],
          ['from', receipt.from],
          ['to', receipt.to ?? ''],
          ['contractAddress', receipt.contractAddress ?? ''],
          ['gasUsed', decimalOf(receipt.gasUsed)],
          ['cumulativeGasUsed', decimalOf(receipt.cumulativeGasUsed)],
          ['effectiveGasPrice', decimalOf(receipt.effectiveGasPrice)],
          ['logs', receipt.logs.length],
        ]),
      )
      if (receipt.logs.length > 0)
        this.log(
          listTable(
            ['#', 'address', 'topics', 'data'],
            receipt.logs.map((l) => [decimalOf(l.logIndex), l.address, l.topics.join('\n'), l.data]),
          ),
        )
    }
    return receipt
  }
}
