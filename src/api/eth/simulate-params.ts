/**
 * eth_simulateV1's payload (execution-apis `EthSimulatePayload`, geth `simOpts`) as a parameter codec.
 * Calls are eth_call's transaction arguments (call-args.ts, `chainId` kept for the handler to check); state and block overrides are
 * debug_traceCall's (debug/overrides.ts) plus what the simulation adds: `movePrecompileToAddress`,
 * `prevRandao` as the specification's uint256 (geth's 32-byte hash is accepted too), `withdrawals`
 * (the chain has none: only an empty list is accepted) and `blobBaseFee` (accepted, no effect: blob
 * transactions are refused). Field errors read as Go's decoder.
 */
import type { BlockOverrides } from '../../evm/calls/call-overrides.js'
import type { SimAccountOverride, SimBlockInput, SimulateRequest } from '../../evm/calls/simulate.js'
import { DecodeError, address, bool, jsonKind, objectOf, quantity, structField, type Codec } from '../../rpc/codecs.js'
import { blockOverrides, stateOverrides } from '../debug/overrides.js'
import type { CallArgs } from './backend.js'
import { callArgs } from './call-args.js'

const PAYLOAD = 'simOpts'
const BLOCK = 'simBlock'
/** Characters of a 32-byte hash in hex with its `0x`. */
const HASH_CHARS = 66

/** One entry of `blockStateCalls`. */
export interface SimPayloadBlock extends SimBlockInput {
  calls: CallArgs[]
}

/** eth_simulateV1's first parameter. */
export interface SimulatePayload extends SimulateRequest {
  /** The blocks; each call keeps its `chainId`, which the handler checks against the chain's. */
  blocks: SimPayloadBlock[]
  /** Blocks list their transactions in full instead of hashes. */
  returnFullTransactions: boolean
}

/**
 * `[]T` of a codec. An item's own error is final: the outer struct field does not relabel it, so a bad
 * call names `TransactionArgs.gas`, not `simOpts.blockStateCalls`.
 */
function listOf<T>(codec: Codec<T>, goType: string): Codec<T[]> {
  return (value) => {
    if (!Array.isArray(value)) throw new DecodeError(jsonKind(value), goType)
    return value.map((item) => {
      try {
        return codec(item)
      } catch (err) {
        throw err instanceof DecodeError ? new DecodeError(err.message) : err
      }
    })
  }
}

/** `prevRandao`: a uint256 quantity, or a 32-byte hash as geth reads it. */
function prevRandao(value: unknown): string {
  if (typeof value === 'string' && value.length === HASH_CHARS) return value
  return `0x${quantity(value)
    .toString(16)
    .padStart(HASH_CHARS - 2, '0')}`
}

/** The simulation's block overrides. */
const simBlockOverrides: Codec<BlockOverrides> = (value) => {
  const obj = { ...objectOf(value, 'override.BlockOverrides') }
  const withdrawals = structField(
    obj,
    'BlockOverrides',
    'withdrawals',
    listOf((w) => w, 'types.Withdrawals'),
  )
  if (withdrawals !== undefined && withdrawals.length > 0) throw new DecodeError('withdrawals are not supported: the chain has none')
  if (obj.prevRandao !== undefined && obj.prevRandao !== null) obj.prevRandao = structField(obj, 'BlockOverrides', 'prevRandao', prevRandao)
  return blockOverrides(obj)
}

/** The simulation's state overrides: eth_call's, each account with its precompile move if any. */
const simStateOverrides: Codec<SimAccountOverride[]> = (value) => {
  const obj = objectOf(value, 'override.StateOverride')
  const moves = new Map<string, Uint8Array>()
  const rest: Record<string, unknown> = {}
  for (const [key, account] of Object.entries(obj)) {
    if (account === null || typeof account !== 'object' || Array.isArray(account)) {
      rest[key] = account
      continue
    }
    const { movePrecompileToAddress, ...fields } = account as Record<string, unknown>
    const to = structField({ movePrecompileToAddress }, 'OverrideAccount', 'movePrecompileToAddress', address)
    if (to !== undefined) moves.set(key.toLowerCase(), to)
    rest[key] = fields
  }
  return stateOverrides(rest).map((o) => ({
    ...o,
    movePrecompileToAddress: moves.get(`0x${Buffer.from(o.address).toString('hex')}`),
  }))
}

function simBlock(value: unknown): SimPayloadBlock {
  const obj = objectOf(value, 'ethapi.simBlock')
  return {
    blockOverrides: structField(obj, BLOCK, 'blockOverrides', simBlockOverrides),
    stateOverrides: structField(obj, BLOCK, 'stateOverrides', simStateOverrides) ?? [],
    calls: structField(obj, BLOCK, 'calls', listOf(callArgs, '[]ethapi.TransactionArgs')) ?? [],
  }
}

/** eth_simulateV1's payload. */
export const simulatePayload: Codec<SimulatePayload> = (value) => {
  const obj = objectOf(value, 'ethapi.simOpts')
  return {
    blocks: structField(obj, PAYLOAD, 'blockStateCalls', listOf(simBlock, '[]ethapi.simBlock')) ?? [],
    traceTransfers: structField(obj, PAYLOAD, 'traceTransfers', bool) ?? false,
    validation: structField(obj, PAYLOAD, 'validation', bool) ?? false,
    returnFullTransactions: structField(obj, PAYLOAD, 'returnFullTransactions', bool) ?? false,
  }
}
