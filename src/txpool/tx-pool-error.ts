/**
 * Rejections of the transaction pool: the application's CheckTx refusals, passed on, and the pool's
 * own. The messages are go-ethereum's, word for word, because ethers and viem classify errors by them
 * (`nonce too low`, `insufficient funds`, `replacement transaction underpriced`, ...); `reason` names
 * the case for code that should not parse text.
 */
import type { CheckTxResponse } from '../abci/application.js'
import { formatOversizedTx } from '../evm/txs/tx-admission.js'
import { NodeError } from '../utils/errors.js'
import { toChecksumAddress } from '../primitives/address.js'

/** Why a transaction was refused; one value per geth error variable. */
export const TxPoolRejection = {
  /** The application's CheckTx refused the transaction itself (decoding, size, gas, fees...: evm/txs/tx-admission.ts). */
  CheckTx: 'check-tx',
  /** geth ethapi `checkTxFee`: gas × fee cap above the RPC's `txfee-cap`. */
  FeeCapExceeded: 'fee-cap-exceeded',
  /** ErrOversizedData, the mempool's `max_tx_bytes` checked before CheckTx (CometBFT `ErrTxTooLarge`). */
  Oversized: 'oversized',
  /** ErrAlreadyKnown. */
  AlreadyKnown: 'already-known',
  /** ErrNonceTooLow. */
  NonceTooLow: 'nonce-too-low',
  /** ErrInsufficientFunds. */
  InsufficientFunds: 'insufficient-funds',
  /** ErrReplaceUnderpriced. */
  ReplaceUnderpriced: 'replace-underpriced',
  /** ErrTxPoolOverflow. */
  PoolFull: 'pool-full',
  /** ErrFutureReplacePending. */
  FutureReplacePending: 'future-replace-pending',
  /** ErrAccountLimitExceeded: the sender's queue of gapped-nonce transactions is full. */
  AccountLimit: 'account-limit',
} as const
export type TxPoolRejection = (typeof TxPoolRejection)[keyof typeof TxPoolRejection]

/** A transaction the pool refused, with geth's text; each RPC surface decides how `reason` looks on its wire. */
export class TxPoolError extends NodeError {
  /**
   * The application's CheckTx answer when the transaction got that far: the refusal itself for
   * `CheckTx`, the accepting answer (its gas wanted) for a refusal by the pool's own rules. Set by the pool.
   */
  checkTx: CheckTxResponse | undefined

  constructor(
    readonly reason: TxPoolRejection,
    message: string,
  ) {
    super(message)
  }
}

/**
 * ErrOversizedData of the mempool's own size check, in the words of the application's CheckTx (one
 * text for every path), with the sizes CometBFT's mempool reports (`Tx too large. Max size is …`).
 */
export class TxTooLargeError extends TxPoolError {
  constructor(
    readonly size: number,
    readonly limit: number,
  ) {
    super(TxPoolRejection.Oversized, formatOversizedTx(size, limit))
  }
}

/** geth `Address.Hex()`: the EIP-55 form used in state-transition errors. */
const hexAddress = (address: string): string => toChecksumAddress(address)

/** Builders of each rejection with geth's exact text. */
export const txPoolErrors = {
  checkTx: (response: CheckTxResponse) => {
    const err = new TxPoolError(TxPoolRejection.CheckTx, response.log)
    err.checkTx = response
    return err
  },
  feeCapExceeded: (feeEther: number, capEther: number) =>
    new TxPoolError(
      TxPoolRejection.FeeCapExceeded,
      `tx fee (${feeEther.toFixed(2)} ether) exceeds the configured cap (${capEther.toFixed(2)} ether)`,
    ),
  oversized: (size: number, limit: number) => new TxTooLargeError(size, limit),
  alreadyKnown: () => new TxPoolError(TxPoolRejection.AlreadyKnown, 'already known'),
  nonceTooLow: (address: string, nonce: bigint, state: bigint) =>
    new TxPoolError(TxPoolRejection.NonceTooLow, `nonce too low: address ${hexAddress(address)}, tx: ${nonce} state: ${state}`),
  insufficientFunds: (address: string, have: bigint, want: bigint) =>
    new TxPoolError(
      TxPoolRejection.InsufficientFunds,
      `insufficient funds for gas * price + value: address ${hexAddress(address)} have ${have} want ${want}`,
    ),
  replaceUnderpriced: () => new TxPoolError(TxPoolRejection.ReplaceUnderpriced, 'replacement transaction underpriced'),
  poolFull: () => new TxPoolError(TxPoolRejection.PoolFull, 'txpool is full'),
  futureReplacePending: () => new TxPoolError(TxPoolRejection.FutureReplacePending, 'future transaction tries to replace pending'),
  accountLimit: (pooled: number) => new TxPoolError(TxPoolRejection.AccountLimit, `account limit exceeded: pooled ${pooled} txs`),
}
