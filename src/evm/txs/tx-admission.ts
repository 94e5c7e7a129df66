/**
 * The application's checks of a transaction itself, which CheckTx answers and the transaction pool
 * asks on every way in (eth_sendRawTransaction, broadcast_tx_*, p2p gossip), so every surface gives
 * the same answer: envelope, signature and chain id (decoding), EIP-155 protection, size, init code
 * size, block gas limit, fee cap against tip, intrinsic gas and the node's minimum tip, in the order
 * of geth's `txpool.ValidateTransaction`, with geth's texts (ethers and viem classify errors by them).
 * Also the proposal rules (PrepareProposal keeps txs in order while their gas limits fit;
 * ProcessProposal rejects undecodable txs or a gas total above the block gas limit). Nonce order,
 * funds against the sender's pooled spending, replacement and the pool's limits are the pool's rules.
 */
import type { CheckTxResponse } from '../../abci/application.js'
import { computeIntrinsicGas } from './intrinsic-gas.js'
import { TX_CODESPACE, TxCode } from './tx-codes.js'
import type { DecodedTx } from './tx.js'

export interface AdmissionRules {
  /** Largest encoded transaction in bytes (`[mempool] max_tx_bytes`, default 131072, config/defaults.ts `DEFAULT_MAX_TX_BYTES`). */
  maxTxBytes: number
  /** Block gas limit. */
  gasLimit: bigint
  /** Node-local minimum tip cap (the gas price of legacy txs), in wei. */
  minGasPrice: bigint
  allowUnprotectedTxs: boolean
  /** A dev chain without the code size limits (common.ts DevChainRules): no init code limit either. */
  unlimitedCodeSize?: boolean
}

/** EIP-3860: a creation's init code may be at most twice the EIP-170 code size limit (2 × 24576 bytes). */
export const MAX_INITCODE_SIZE = 49_152

const EMPTY = new Uint8Array(0)

/**
 * geth's `ErrOversizedData` text (`txpool.ValidateTransaction`) for `size` encoded bytes above `limit`:
 * the one wording of every way a transaction comes in (eth_sendRawTransaction, gossip, CheckTx).
 */
export function formatOversizedTx(size: number, limit: number): string {
  return `oversized data: transaction size ${size}, limit ${limit}`
}

const TIP_ABOVE_FEE_CAP = 'max priority fee per gas higher than max fee per gas'
const formatInitCodeSize = (size: number): string => `max initcode size exceeded: code size ${size}, limit ${MAX_INITCODE_SIZE}`

/**
 * CheckTx result of the raw transaction `raw`, given its decoding (or the decoding error). A decoding
 * error comes first, as geth decodes before its pool looks at the size; the two ethereumjs refuses
 * while decoding that geth refuses in its pool (fee cap below tip, init code size) get geth's text,
 * after geth's earlier size check.
 */
export function checkTransaction(raw: Uint8Array, tx: DecodedTx | Error, rules: AdmissionRules): CheckTxResponse {
  const size = raw.length
  if (tx instanceof Error) return checkDecodeError(size, tx.message, rules)
  const gas = tx.gasLimit
  if (tx.chainId === undefined && !rules.allowUnprotectedTxs) {
    return checkResult(TxCode.NotSupported, 'only replay-protected (EIP-155) transactions allowed over RPC', gas)
  }
  if (size > rules.maxTxBytes) return checkResult(TxCode.TxTooLarge, formatOversizedTx(size, rules.maxTxBytes), gas)
  if (tx.to === undefined && tx.data.length > MAX_INITCODE_SIZE && rules.unlimitedCodeSize !== true) {
    return checkResult(TxCode.InvalidRequest, formatInitCodeSize(tx.data.length), gas)
  }
  if (gas > rules.gasLimit) return checkResult(TxCode.OutOfGas, 'exceeds block gas limit', gas)
  if (tx.maxFeePerGas < tx.maxPriorityFeePerGas) return checkResult(TxCode.InvalidRequest, TIP_ABOVE_FEE_CAP, gas)
  const intrinsic = computeIntrinsicGas(tx)
  if (gas < intrinsic) return checkResult(TxCode.OutOfGas, `intrinsic gas too low: gas ${gas}, minimum needed ${intrinsic}`, gas)
  if (tx.maxPriorityFeePerGas < rules.minGasPrice) {
    return checkResult(
      TxCode.InsufficientFee,
      `transaction underpriced: gas tip cap ${tx.maxPriorityFeePerGas}, minimum needed ${rules.minGasPrice}`,
      gas,
    )
  }
  return checkResult(TxCode.OK, '', gas)
}

function checkDecodeError(size: number, message: string, rules: AdmissionRules): CheckTxResponse {
  const tipAboveCap = message.includes('maxFeePerGas cannot be less than maxPriorityFeePerGas')
  const initCode = /initcode size of this transaction is too large: it is (\d+)/.exec(message)
  if ((tipAboveCap || initCode) && size > rules.maxTxBytes) {
    return checkResult(TxCode.TxTooLarge, formatOversizedTx(size, rules.maxTxBytes), 0n)
  }
  if (tipAboveCap) return checkResult(TxCode.InvalidRequest, TIP_ABOVE_FEE_CAP, 0n)
  if (initCode) return checkResult(TxCode.InvalidRequest, formatInitCodeSize(Number(initCode[1])), 0n)
  return checkResult(TxCode.TxDecode, message, 0n)
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
