/** `nodectl query gas-price`: the suggested gas price and priority fee (eth_gasPrice, eth_maxPriorityFeePerGas). */
import { answerOr, decimalOf, keyValueTable } from '../../cli/render.js'
import { RpcCommand } from '../../cli/rpc-command.js'

/** Result of `query gas-price`, in wei (decimal strings). */
export interface GasPriceResult {
  gasPrice: string
  /** Suggested EIP-1559 tip; absent when the node does not serve eth_maxPriorityFeePerGas. */
  maxPriorityFeePerGas?: string
}

export default class QueryGasPrice extends RpcCommand {
  static override summary = 'Show the suggested gas price.'
  static override description =
    'Asks the node for its suggested legacy gas price (eth_gasPrice) and EIP-1559 priority fee (eth_maxPriorityFeePerGas), in wei.'
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<GasPriceResult> {
    const { flags } = await this.parse(QueryGasPrice)
    const client = await this.httpClient(flags)
    const result: GasPriceResult = { gasPrice: decimalOf(await client.call<string>('eth_gasPrice')) }
    const tip = await client.call<string>('eth_maxPriorityFeePerGas').catch(() => undefined)
    if (tip !== undefined) result.maxPriorityFeePerGas = decimalOf(tip)
    if (!this.jsonEnabled())
      this.log(
        answerOr(result.gasPrice, () =>
          keyValueTable([
            ['gas price (wei)', result.gasPrice],
            ['max priority fee (wei)', result.maxPriorityFeePerGas ?? 'n/a'],
          ]),
        ),
      )
    return result
  }
}
