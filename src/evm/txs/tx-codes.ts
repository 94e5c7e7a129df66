/**
 * Consensus result codes of EVM transactions (ExecTxResult / CheckTx `code`). 0 and 1 follow the
 * spec's table (success ↔ receipt status 1, failure ↔ status 0); a transaction refused before
 * execution carries the Cosmos SDK root code of the reason, so tools that know Evmos read it the same.
 */
export const TxCode = {
  /** Executed, receipt status 1. */
  OK: 0,
  /** Executed but failed (revert, out of gas, invalid opcode…): receipt status 0, fees charged. */
  ExecutionFailed: 1,
  /** The bytes are not a valid signed transaction. */
  TxDecode: 2,
  /** Wrong nonce (SDK `invalid sequence`). */
  InvalidSequence: 3,
  /** Sender is not an EOA (EIP-3607). */
  Unauthorized: 4,
  /** Balance below gas * price + value. */
  InsufficientFunds: 5,
  /** Gas limit below intrinsic gas, above the block gas limit, or no block gas left. */
  OutOfGas: 11,
  /** Fee cap below the base fee or the node's minimum gas price. */
  InsufficientFee: 13,
  /** Any other refusal. */
  InvalidRequest: 18,
  /** Encoded transaction larger than `[mempool] max_tx_bytes` (SDK `tx too large`). */
  TxTooLarge: 21,
  /** Unprotected (pre-EIP-155) transaction where not allowed. */
  NotSupported: 37,
} as const
export type TxCode = (typeof TxCode)[keyof typeof TxCode]

/** Codespace reported with non-zero codes. */
export const TX_CODESPACE = 'evm'
