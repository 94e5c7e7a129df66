/**
 * eth methods about fees: gas price suggestion, priority fee, fee history, and the blob base fee —
 * geth's is the fee of the head header's excess blob gas; every header here has excess 0 (blob
 * transactions are refused), so it is EIP-4844's minimum, 1 wei, what BLOBBASEFEE returns too.
 */
import { blobBaseFee } from '../../evm/blob-fee.js'
import { UnknownBlockError } from '../../evm/errors.js'
import { EXCESS_BLOB_GAS } from '../../evm/store/block-header.js'
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
    defineMethod('eth_blobBaseFee', [], () => toQuantity(blobBaseFee(EXCESS_BLOB_GAS))),
    // rewardPercentiles is required (geth: a non-pointer `[]float64`; execution-apis: required), null = none.
    defineMethod(
      'eth_feeHistory',
      [required(blockCount), required(blockNumberOrTag), required(rewardPercentiles)],
      ([count, newest, percentiles]) => getFeeHistory(backend, count, newest, percentiles, options.feeHistoryCap),
    ),
  ]
}
