/**
 * The state-independent admission checks, in the order of geth's `txpool.ValidateTransaction`
 * (size, init code, block gas limit, fee cap vs tip, intrinsic gas, minimum tip). The envelope,
 * signature, type and chain id were already checked by `decodeRawTx`.
 */
import type { DecodedTx } from '../evm/txs/tx.js'
import { computeIntrinsicGas, getTxData } from './intrinsic-gas.js'
import { txPoolErrors, type TxPoolError } from './tx-pool-error.js'

/** The limits the basic checks need; a slice of `TxPoolOptions` plus the run-time values. */
export interface TxBasicLimits {
  maxTxSize: number
  maxInitCodeSize: number
  blockGasLimit: bigint
  minGasPrice: bigint
}

/** True for a legacy transaction signed without a chain id (pre-EIP-155). */
export function isUnprotected(tx: DecodedTx): boolean {
  return tx.type === 0 && tx.chainId === undefined
}

/**
 * geth's first check (`ErrOversizedData`): `size` encoded bytes above `maxTxSize` are refused. The one
 * size check of the pool's admission and of the consensus RPC's broadcast_tx_* (through `TxPool.checkSize`).
 */
export function checkTxSize(size: number, maxTxSize: number): void {
  if (size > maxTxSize) throw txPoolErrors.oversized(size, maxTxSize)
}

/** Throws the `TxPoolError` of the first failed check. */
export function validateTxBasics(tx: DecodedTx, limits: TxBasicLimits): void {
  checkTxSize(tx.size, limits.maxTxSize)
  if (tx.to === undefined) {
    const codeSize = getTxData(tx).length
    if (codeSize > limits.maxInitCodeSize) throw txPoolErrors.initCodeSize(codeSize, limits.maxInitCodeSize)
  }
  if (tx.gasLimit > limits.blockGasLimit) throw txPoolErrors.gasLimit()
  if (tx.maxFeePerGas < tx.maxPriorityFeePerGas) throw txPoolErrors.tipAboveFeeCap()
  const intrinsic = computeIntrinsicGas(tx)
  if (tx.gasLimit < intrinsic) throw txPoolErrors.intrinsicGas(tx.gasLimit, intrinsic)
  if (tx.maxPriorityFeePerGas < limits.minGasPrice) throw txPoolErrors.underpriced(tx.maxPriorityFeePerGas, limits.minGasPrice)
}

/** Total wei a transaction can take from its sender: gasLimit × maxFeePerGas + value (geth `tx.Cost()`). */
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

export function computeTxCost(tx: DecodedTx): bigint {
  return tx.gasLimit * tx.maxFeePerGas + tx.value
}

/**
 * The rejection for a raw transaction `decode` refused. ethereumjs refuses a few transactions while
 * constructing them that geth refuses in its pool (fee cap below tip, EIP-3860 init code size); they
 * get geth's text, after geth's earlier size check. Any other decode failure keeps its message.
 */
export function translateDecodeError(
  raw: Uint8Array,
  message: string,
  limits: Pick<TxBasicLimits, 'maxTxSize' | 'maxInitCodeSize'>,
): TxPoolError {
  if (
    message.includes('maxFeePerGas cannot be less than maxPriorityFeePerGas') ||
    message.includes('initcode size of this transaction is too large')
  ) {
    if (raw.length > limits.maxTxSize) return txPoolErrors.oversized(raw.length, limits.maxTxSize)
  }
  if (message.includes('maxFeePerGas cannot be less than maxPriorityFeePerGas')) return txPoolErrors.tipAboveFeeCap()
  const initCode = /initcode size of this transaction is too large: it is (\d+)/.exec(message)
  if (initCode) return txPoolErrors.initCodeSize(Number(initCode[1]), limits.maxInitCodeSize)
  return txPoolErrors.invalid(message)
}
