/**
 * EIP-4844's blob gas market under the chain's Cancun rules. The chain refuses blob transactions
 * (txs/tx.ts), so no block carries a blob: every header has blobGasUsed 0 and excessBlobGas 0
 * (store/block-header.ts), and the blob base fee stays at its minimum, 1 wei — the value the EVM's
 * BLOBBASEFEE opcode (EIP-7516) returns, and eth_blobBaseFee answers.
 */
import { paramsBlock } from '@ethereumjs/block'

/** Cancun's EIP-4844 parameters as the EVM library runs them. */
const EIP4844 = paramsBlock[4844] as { minBlobGas: number; blobGasPriceUpdateFraction: number }

/** EIP-4844 `MIN_BASE_FEE_PER_BLOB_GAS`: 1 wei. */
export const MIN_BLOB_BASE_FEE = BigInt(EIP4844.minBlobGas)
/** EIP-4844 `BLOB_BASE_FEE_UPDATE_FRACTION` under Cancun: 3,338,477. */
export const BLOB_BASE_FEE_UPDATE_FRACTION = BigInt(EIP4844.blobGasPriceUpdateFraction)

/**
 * Blobs a block may carry, most and target: none, since blob transactions are refused (Ethereum's
 * Cancun allows 6 and targets 3).
 */
export const BLOBS_PER_BLOCK = { max: 0, target: 0 } as const

/** EIP-4844 `get_base_fee_per_blob_gas`: the blob base fee of a header with this excess blob gas. */
export function blobBaseFee(excessBlobGas: bigint): bigint {
  return fakeExponential(MIN_BLOB_BASE_FEE, excessBlobGas, BLOB_BASE_FEE_UPDATE_FRACTION)
}

/** EIP-4844 `fake_exponential`: factor · e^(numerator / denominator), in integers, by its Taylor series. */
function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  let output = 0n
  let accumulator = factor * denominator
  for (let i = 1n; accumulator > 0n; i++) {
    output += accumulator
    accumulator = (accumulator * numerator) / (denominator * i)
  }
  return output / denominator
}
