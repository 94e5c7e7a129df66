/**
 * EIP-1559 base fee, as geth's `misc/eip1559.CalcBaseFee`, with the chain's `min_gas_price` as a floor
 * (Evmos feemarket: the base fee never drops below the minimum gas price).
 */
import type { FeeMarketParams } from './genesis.js'

/** The parent block fields the next base fee depends on. */
export interface ParentGas {
  gasLimit: bigint
  gasUsed: bigint
  baseFee: bigint
}

/**
 * Base fee of the block after `parent`: unchanged at the gas target (gasLimit / elasticity), up by at
 * most 1/denominator when above it (by at least 1 wei), down by at most 1/denominator below it; never
 * below `minGasPrice`. Always 0 with `noBaseFee`.
 */
export function calcBaseFee(parent: ParentGas, params: FeeMarketParams): bigint {
  if (params.noBaseFee) return 0n
  const target = parent.gasLimit / params.elasticityMultiplier
  let next: bigint
  if (target === 0n || parent.gasUsed === target) {
    next = parent.baseFee
  } else if (parent.gasUsed > target) {
    const delta = (parent.baseFee * (parent.gasUsed - target)) / target / params.baseFeeChangeDenominator
    next = parent.baseFee + (delta > 1n ? delta : 1n)
  } else {
    const delta = (parent.baseFee * (target - parent.gasUsed)) / target / params.baseFeeChangeDenominator
    next = parent.baseFee > delta ? parent.baseFee - delta : 0n
  }
  return next < params.minGasPrice ? params.minGasPrice : next
}

/** Base fee of the first block after genesis: the configured initial base fee (raised to the floor). */
export function initialBaseFee(params: FeeMarketParams): bigint {
  if (params.noBaseFee) return 0n
  return params.baseFee < params.minGasPrice ? params.minGasPrice : params.baseFee
}
