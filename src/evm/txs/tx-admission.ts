/**
 * The application's stateless checks of transactions: CheckTx (size, envelope, chain id, EIP-155
 * protection, intrinsic gas, block gas limit, node minimum gas price) and the proposal rules
 * (PrepareProposal keeps txs in order while their gas limits fit; ProcessProposal rejects undecodable
 * txs or a gas total above the block gas limit). Nonce, balance and pricing against the pool are the
 * transaction pool's geth admission.
 */
import type { CheckTxResponse } from '../../abci/application.js'
import { TX_CODESPACE, TxCode } from './tx-codes.js'
import type { DecodedTx } from './tx.js'

export interface AdmissionRules {
  /** Largest encoded transaction in bytes (`[mempool] max_tx_bytes`, default 131072, config/defaults.ts `DEFAULT_MAX_TX_BYTES`). */
  maxTxBytes: number
  /** Block gas limit. */
  gasLimit: bigint
  /** Node-local minimum gas price (wei). */
  minGasPrice: bigint
  allowUnprotectedTxs: boolean
}

const EMPTY = new Uint8Array(0)

/**
 * geth's `ErrOversizedData` text (`txpool.ValidateTransaction`) for `size` encoded bytes above `limit`:
 * the one wording of every way a transaction comes in (eth_sendRawTransaction, gossip, CheckTx).
 */
export function formatOversizedTx(size: number, limit: number): string {
  return `oversized data: transaction size ${size}, limit ${limit}`
}

/**
 * CheckTx result of a transaction of `size` encoded bytes, given its decoding (or the decoding error).
 * The size is checked first, as geth's pool does.
 */
export function checkTransaction(size: number, tx: DecodedTx | Error, rules: AdmissionRules): CheckTxResponse {
  if (size > rules.maxTxBytes) return checkResult(TxCode.TxTooLarge, formatOversizedTx(size, rules.maxTxBytes), 0n)
  if (tx instanceof Error) return checkResult(TxCode.TxDecode, tx.message, 0n)
  if (tx.chainId === undefined && !rules.allowUnprotectedTxs) {
    return checkResult(TxCode.NotSupported, 'only replay-protected (EIP-155) transactions allowed over RPC', tx.gasLimit)
  }
  if (tx.gasLimit > rules.gasLimit)
    return checkResult(TxCode.OutOfGas, `exceeds block gas limit: tx gas ${tx.gasLimit}, block gas limit ${rules.gasLimit}`, tx.gasLimit)
  const intrinsic = tx.tx.getIntrinsicGas()
  if (tx.gasLimit < intrinsic)
    return checkResult(TxCode.OutOfGas, `intrinsic gas too low: have ${tx.gasLimit}, want ${intrinsic}`, tx.gasLimit)
  if (tx.maxFeePerGas < rules.minGasPrice) {
    return checkResult(
      TxCode.InsufficientFee,
      `transaction underpriced: gas fee cap ${tx.maxFeePerGas} below the minimum gas price ${rules.minGasPrice}`,
      tx.gasLimit,
    )
  }
  return checkResult(TxCode.OK, '', tx.gasLimit)
}

/**
 * The proposal's txs: in the given order, undecodable ones and ones that can never fit dropped,
 * stopping at the first that would overflow the block gas limit or `maxTxBytes` (> 0), so a sender's
 * later nonces never precede an earlier one.
 */
export function selectProposalTxs(
  txs: readonly Uint8Array[],
  decode: (raw: Uint8Array) => DecodedTx,
  gasLimit: bigint,
  maxTxBytes: number,
): Uint8Array[] {
  const kept: Uint8Array[] = []
  let gas = 0n
  let bytes = 0
  for (const raw of txs) {
    let tx: DecodedTx
    try {
      tx = decode(raw)
    } catch {
      continue
    }
    if (tx.gasLimit > gasLimit) continue
    if (gas + tx.gasLimit > gasLimit) break
    if (maxTxBytes > 0 && bytes + raw.length > maxTxBytes) break
    gas += tx.gasLimit
    bytes += raw.length
    kept.push(raw)
  }
  return kept
}

/** Whether every tx decodes and their gas limits together fit the block gas limit. */
export function isAcceptableProposal(txs: readonly Uint8Array[], decode: (raw: Uint8Array) => DecodedTx, gasLimit: bigint): boolean {
  let gas = 0n
  for (const raw of txs) {
    try {
      gas += decode(raw).gasLimit
    } catch {
      return false
    }
    if (gas > gasLimit) return false
  }
  return true
}

function checkResult(code: number, log: string, gasWanted: bigint): CheckTxResponse {
  return { code, data: EMPTY, log, gasWanted, gasUsed: 0n, events: [], codespace: code === TxCode.OK ? '' : TX_CODESPACE }
}
