/**
 * eth_call and eth_estimateGas: simulated executions on the state after a block (default `latest`),
 * bounded by `gas-cap` and `evm-timeout`. A revert is thrown by the backend and rendered as geth's
 * (code 3, message `execution reverted: <reason>`, data = the revert bytes) by api/evm-errors.ts.
 */
import { toQuantity } from '../../primitives/quantity.js'
import { DecodeError, jsonKind, type Codec } from '../../rpc/codecs.js'
import { defineMethod, optional, required, type MethodTable } from '../../rpc/method-table.js'
import type { EthBackend, ExecutionOptions } from './backend.js'
import { blockSelector } from './block-params.js'
import { callArgs } from './call-args.js'
import { encodeData } from './format.js'
import type { EthApiOptions } from './options.js'
import { resolveStateHeight } from './resolve-block.js'

/**
 * State and block overrides (geth's 3rd/4th parameters) are not implemented: an empty object is
 * accepted, anything else is refused rather than silently ignored (Evmos parses and ignores them).
 */
const unsupportedOverride =
  (what: string, goType: string): Codec<undefined> =>
  (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new DecodeError(jsonKind(value), goType)
    if (Object.keys(value).length > 0) throw new DecodeError(`${what} are not supported`)
    return undefined
  }

/** geth's 3rd parameter of eth_call / eth_estimateGas (`*override.StateOverride`). */
export const stateOverrides = unsupportedOverride('state overrides', 'override.StateOverride')
/** geth's 4th parameter (`*override.BlockOverrides`). */
export const blockOverrides = unsupportedOverride('block overrides', 'override.BlockOverrides')

export function createEthExecuteMethods(backend: EthBackend, options: EthApiOptions): MethodTable {
  const execution: ExecutionOptions = { gasCap: options.gasCap, timeout: options.evmTimeout }
  const params = [required(callArgs), optional(blockSelector, 'latest'), optional(stateOverrides), optional(blockOverrides)] as const
  return [
    defineMethod('eth_call', params, async ([args, at]) => {
      const height = await resolveStateHeight(backend, at)
      return encodeData(await backend.call(args, height, execution))
    }),
    // geth's default block for estimation is `pending`, which is `latest` here.
    defineMethod('eth_estimateGas', params, async ([args, at]) => {
      const height = await resolveStateHeight(backend, at)
      return toQuantity(await backend.estimateGas(args, height, execution))
    }),
  ]
}
