/** `nodectl query fee-history [--blocks N] [--newest] [--percentiles]`: base fees and tips of recent blocks (eth_feeHistory). */
import { Flags } from '@oclif/core'
import type { RpcFeeHistory } from '../../cli/eth-types.js'
import { parseBlockNumber } from '../../cli/params.js'
import { decimalOf, listTable } from '../../cli/render.js'
import { RpcCommand } from '../../cli/rpc-command.js'

export default class QueryFeeHistory extends RpcCommand {
  static override summary = 'Show the fee history of recent blocks.'
  static override description =
    'Lists, per block, the base fee, the share of the gas limit used and (with --percentiles) the priority fees paid at those ' +
    "percentiles of gas, with eth_feeHistory. The base fee list has one more entry: the next block's."
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --blocks 20 --percentiles 25,50,75 --json',
  ]
  static override flags = {
    blocks: Flags.integer({ summary: 'Number of blocks.', default: 10, min: 1 }),
    newest: Flags.string({ summary: 'Newest block (number or tag).', default: 'latest' }),
    percentiles: Flags.string({ summary: 'Reward percentiles, comma separated, increasing (e.g. 25,50,75).' }),
  }

  async run(): Promise<RpcFeeHistory> {
    const { flags } = await this.parse(QueryFeeHistory)
    const percentiles = flags.percentiles ? flags.percentiles.split(',').map((p) => Number(p.trim())) : []
    if (percentiles.some((p) => !Number.isFinite(p) || p < 0 || p > 100))
      this.error(`invalid --percentiles "${flags.percentiles}": want numbers from 0 to 100`, { exit: 2 })
    const history = await (await this.httpClient(flags)).call<RpcFeeHistory>('eth_feeHistory', [
      `0x${flags.blocks.toString(16)}`,
      parseBlockNumber(flags.newest),
      percentiles,
    ])
    if (!this.jsonEnabled()) {
      const oldest = BigInt(history.oldestBlock)
      const rows = history.gasUsedRatio.map((ratio, i) => [
        (oldest + BigInt(i)).toString(),
        decimalOf(history.baseFeePerGas[i]),
        `${(ratio * 100).toFixed(1)}%`,
        ...(history.reward?.[i]?.map(decimalOf) ?? percentiles.map(() => '')),
      ])
      this.log(listTable(['block', 'base fee (wei)', 'gas used', ...percentiles.map((p) => `tip p${p}`)], rows))
      this.log(`next base fee: ${decimalOf(history.baseFeePerGas.at(-1))} wei`)
    }
    return history
  }
}
