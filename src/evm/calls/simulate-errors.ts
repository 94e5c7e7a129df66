/**
 * eth_simulateV1's request-wide failures: each carries the code the execution-apis specification
 * (`eth_simulateV1` errors) gives it, and geth's message. A failure of one call inside the EVM (revert,
 * out of gas) is not one of these: it is that call's result (`status` 0 and `error`).
 */
import { NodeError } from '../../utils/errors.js'

/** The specification's codes (geth internal/ethapi/errors.go uses the same numbers). */
export const SimulateCode = {
  invalidRequest: -32000,
  invalidParams: -32602,
  internal: -32603,
  timeout: -32016,
  nonceTooLow: -38010,
  nonceTooHigh: -38011,
  baseFeeTooLow: -38012,
  intrinsicGas: -38013,
  insufficientFunds: -38014,
  blockGasLimitReached: -38015,
  blockNumberInvalid: -38020,
  blockTimestampInvalid: -38021,
  precompileSelfReference: -38022,
  precompileDuplicateTarget: -38023,
  initCodeTooLarge: -38025,
  clientLimitExceeded: -38026,
} as const

/** A simulation refused as a whole, with its specification code. */
export class SimulateError extends NodeError {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
  }
}
