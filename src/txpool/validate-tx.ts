/**
 * The pool's checks of a transaction before the application's CheckTx: the mempool's size limit
 * (CometBFT checks `max_tx_bytes` before CheckTx) and the RPC's fee cap (geth ethapi `checkTxFee`, on
 * eth_sendRawTransaction and eth_sendTransaction only); and the cost the funds check compares.
 */
import type { DecodedTx } from '../evm/txs/tx.js'
import { txPoolErrors } from './tx-pool-error.js'

/**
 * geth's `ErrOversizedData`, CometBFT's `ErrTxTooLarge`: `size` encoded bytes above `maxTxSize` are
 * refused. The consensus RPC's broadcast_tx_* check it first (through `TxPool.checkSize`).
 */
export function checkTxSize(size: number, maxTxSize: number): void {
  if (size > maxTxSize) throw txPoolErrors.oversized(size, maxTxSize)
}

const WEI_PER_ETHER = 10n ** 18n

/**
 * geth ethapi `checkTxFee`: gas limit × fee cap (the gas price of legacy transactions), in ether, may
 * not exceed `capEther` (`[json-rpc] txfee-cap`); 0 disables the check. Compared as floats, as geth does.
 * Also eth_signTransaction's check, before it signs (only the two fee fields are read).
 */
export function checkTxFee(tx: Pick<DecodedTx, 'gasLimit' | 'maxFeePerGas'>, capEther: number): void {
  if (capEther === 0) return
  const feeWei = tx.gasLimit * tx.maxFeePerGas
  const feeEther = Number(feeWei / WEI_PER_ETHER) + Number(feeWei % WEI_PER_ETHER) / 1e18
  if (feeEther > capEther) throw txPoolErrors.feeCapExceeded(feeEther, capEther)
}

/** Total wei a transaction can take from its sender: gasLimit × maxFeePerGas + value (geth `tx.Cost()`). */
export function computeTxCost(tx: DecodedTx): bigint {
  return tx.gasLimit * tx.maxFeePerGas + tx.value
}
