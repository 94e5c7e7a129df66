/**
 * Rejections of the transaction pool. The messages are go-ethereum's, word for word, because ethers and
 * viem classify errors by them (`nonce too low`, `insufficient funds`, `replacement transaction
 * underpriced`, ...); `reason` names the case for code that should not parse text.
 */
import { formatOversizedTx } from '../evm/txs/tx-admission.js'
import { NodeError } from '../utils/errors.js'
import { toChecksumAddress } from '../primitives/address.js'

/** Why a transaction was refused; one value per geth error variable. */
export const TxPoolRejection = {
  /** The raw bytes do not decode (`TxDecodeError`'s message). */
  Invalid: 'invalid',
  /** geth ethapi: pre-EIP-155 transaction while unprotected transactions are not allowed. */
  Unprotected: 'unprotected',
  /** geth ethapi `checkTxFee`: gas × fee cap above the RPC's `txfee-cap`. */
  FeeCapExceeded: 'fee-cap-exceeded',
  /** ErrOversizedData. */
  Oversized: 'oversized',
  /** ErrGasLimit. */
  GasLimit: 'gas-limit',
  /** ErrMaxInitCodeSizeExceeded. */
  InitCodeSize: 'init-code-size',
  /** ErrTipAboveFeeCap. */
  TipAboveFeeCap: 'tip-above-fee-cap',
  /** ErrIntrinsicGas. */
  IntrinsicGas: 'intrinsic-gas',
  /** ErrUnderpriced against the minimum gas price. */
  Underpriced: 'underpriced',
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
  constructor(
    readonly reason: TxPoolRejection,
    message: string,
  ) {
    super(message)
  }
}

/**
 * ErrOversizedData, in the words of the application's CheckTx (one text for every path), with the
 * sizes CometBFT's mempool reports (`Tx too large. Max size is …`).
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
  invalid: (message: string) => new TxPoolError(TxPoolRejection.Invalid, message),
  unprotected: () => new TxPoolError(TxPoolRejection.Unprotected, 'only replay-protected (EIP-155) transactions allowed over RPC'),
  feeCapExceeded: (feeEther: number, capEther: number) =>
    new TxPoolError(
      TxPoolRejection.FeeCapExceeded,
      `tx fee (${feeEther.toFixed(2)} ether) exceeds the configured cap (${capEther.toFixed(2)} ether)`,
    ),
  oversized: (size: number, limit: number) => new TxTooLargeError(size, limit),
  gasLimit: () => new TxPoolError(TxPoolRejection.GasLimit, 'exceeds block gas limit'),
  initCodeSize: (size: number, limit: number) =>
    new TxPoolError(TxPoolRejection.InitCodeSize, `max initcode size exceeded: code size ${size}, limit ${limit}`),
  tipAboveFeeCap: () => new TxPoolError(TxPoolRejection.TipAboveFeeCap, 'max priority fee per gas higher than max fee per gas'),
  intrinsicGas: (gas: bigint, needed: bigint) =>
    new TxPoolError(TxPoolRejection.IntrinsicGas, `intrinsic gas too low: gas ${gas}, minimum needed ${needed}`),
  underpriced: (tip: bigint, min: bigint) =>
    new TxPoolError(TxPoolRejection.Underpriced, `transaction underpriced: gas tip cap ${tip}, minimum needed ${min}`),
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
