/** eth methods about fees: gas price suggestion, priority fee, fee history. */
import { UnknownBlockError } from '../../evm/errors.js'
import { toQuantity } from '../../primitives/quantity.js'
import { arrayOf, float } from '../../rpc/codecs.js'
import { defineMethod, required, type MethodTable } from '../../rpc/method-table.js'
import type { EthBackend } from './backend.js'
import { blockNumberOrTag } from './block-params.js'
import { blockCount, getFeeHistory } from './fee-history.js'
import type { EthApiOptions } from './options.js'

/** The percentiles of eth_feeHistory (geth `[]float64`). */
export const rewardPercentiles = arrayOf(float, '[]float64')

export function createEthFeeMethods(backend: EthBackend, options: EthApiOptions): MethodTable {
  return [
    // geth: suggested tip + the latest block's base fee.
    defineMethod('eth_gasPrice', [], async () => {
      const [tip, head] = await Promise.all([backend.suggestGasTipCap(), backend.getBlockByNumber(backend.latestHeight())])
      if (head === undefined) throw new UnknownBlockError()
      return toQuantity(tip + head.baseFeePerGas)
    }),
    defineMethod('eth_maxPriorityFeePerGas', [], async () => toQuantity(await backend.suggestGasTipCap())),
    // rewardPercentiles is required (geth: a non-pointer `[]float64`; execution-apis: required), null = none.
    defineMethod(
      'eth_feeHistory',
      [required(blockCount), required(blockNumberOrTag), required(rewardPercentiles)],
      ([count, newest, percentiles]) => getFeeHistory(backend, count, newest, percentiles, options.feeHistoryCap),
    ),
  ]
}
