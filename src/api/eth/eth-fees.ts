/** eth methods about fees: gas price suggestion, priority fee, fee history. */
import { NodeError } from '../../utils/errors.js'
import { toQuantity } from '../../primitives/quantity.js'
import { arrayOf, float } from '../../rpc/codecs.js'
import { defineMethod, optional, required, type MethodTable } from '../../rpc/method-table.js'
import type { EthBackend } from './backend.js'
import { blockNumberOrTag } from './block-params.js'
import { blockCount, getFeeHistory } from './fee-history.js'
import type { EthApiOptions } from './options.js'

export function createEthFeeMethods(backend: EthBackend, options: EthApiOptions): MethodTable {
  return [
    // geth: suggested tip + the latest block's base fee.
    defineMethod('eth_gasPrice', [], async () => {
      const [tip, head] = await Promise.all([backend.suggestGasTipCap(), backend.getBlockByNumber(backend.latestHeight())])
      if (head === undefined) throw new NodeError('header not found')
      return toQuantity(tip + head.baseFeePerGas)
    }),
    defineMethod('eth_maxPriorityFeePerGas', [], async () => toQuantity(await backend.suggestGasTipCap())),
    defineMethod(
      'eth_feeHistory',
      [required(blockCount), required(blockNumberOrTag), optional(arrayOf(float, '[]float64'))],
      ([count, newest, percentiles]) => getFeeHistory(backend, count, newest, percentiles, options.feeHistoryCap),
    ),
  ]
}
