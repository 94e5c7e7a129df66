/**
 * The blocks of an eth_simulateV1 request in order, as geth's `sanitizeChain` lays them out: a block
 * without a number follows the previous one, one without a time comes TIME_STEP seconds after it;
 * numbers must grow and times strictly grow; a gap between two numbers is filled with empty blocks,
 * each TIME_STEP seconds after the one before; at most MAX_SIMULATED_BLOCKS past the base block.
 */
import type { BlockOverrides, StateOverride } from './call-overrides.js'
import type { CallArgs } from './call-args.js'
import { SimulateCode, SimulateError } from './simulate-errors.js'

/**
 * Most blocks one simulation may span (gap blocks included): the BLOCKHASH window, the limit the
 * specification recommends and geth applies (`maxSimulateBlocks`).
 */
export const MAX_SIMULATED_BLOCKS = 256
/** Seconds between two simulated blocks when the caller gives no time (geth `timestampIncrement`). */
export const TIME_STEP = 12n

/** An account override of eth_simulateV1: eth_call's, plus moving a precompile away. */
export interface SimAccountOverride extends StateOverride {
  /** The precompile at `address` runs at this address instead (and no longer at its own). */
  movePrecompileToAddress?: Uint8Array | undefined
}

/** One entry of `blockStateCalls`. */
export interface SimBlockInput {
  blockOverrides: BlockOverrides | undefined
  stateOverrides: SimAccountOverride[]
  calls: CallArgs[]
}

/** eth_simulateV1's payload after decoding. */
export interface SimulateRequest {
  blocks: SimBlockInput[]
  /** Report value transfers as ERC-7528 Transfer logs. */
  traceTransfers: boolean
  /** Check nonces, balances and fees as a real block would. */
  validation: boolean
}

/** A block to simulate, with its number and time settled. */
export interface PlannedBlock extends SimBlockInput {
  number: bigint
  time: bigint
}

/** Lays out `blocks` after the base block (number, time); throws the specification's errors. */
export function planBlocks(base: { number: bigint; time: bigint }, blocks: readonly SimBlockInput[]): PlannedBlock[] {
  if (blocks.length > MAX_SIMULATED_BLOCKS) throw new SimulateError(SimulateCode.clientLimitExceeded, 'too many blocks')
  const planned: PlannedBlock[] = []
  let number = base.number
  let time = base.time
  for (const block of blocks) {
    const wanted = block.blockOverrides?.number ?? number + 1n
    if (wanted <= number) throw new SimulateError(SimulateCode.blockNumberInvalid, `block numbers must be in order: ${wanted} <= ${number}`)
    if (wanted - base.number > BigInt(MAX_SIMULATED_BLOCKS)) throw new SimulateError(SimulateCode.clientLimitExceeded, 'too many blocks')
    for (let gap = number + 1n; gap < wanted; gap++) {
      time += TIME_STEP
      planned.push({ blockOverrides: undefined, stateOverrides: [], calls: [], number: gap, time })
    }
    number = wanted
    const given = block.blockOverrides?.time
    if (given !== undefined && given <= time)
      throw new SimulateError(SimulateCode.blockTimestampInvalid, `block timestamps must be in order: ${given} <= ${time}`)
    time = given ?? time + TIME_STEP
    planned.push({ ...block, number, time })
  }
  return planned
}
