/**
 * eth_simulateV1 (execution-apis `eth_simulateV1`): blocks of calls simulated on the state after a
 * block (default `latest`), on every chain. The work is the application's (evm/calls/simulate.ts),
 * bounded by `gas-cap` (all calls together), `evm-timeout` (the whole request) and 256 blocks. Each
 * block is answered as eth_getBlockByNumber shows one (transactions as hashes, or in full with
 * `returnFullTransactions`) plus `calls`: per call `returnData`, `logs`, `gasUsed`, `maxUsedGas`, `status` and, when
 * it failed, `error` {code, message, data?}.
 */
import { SimulateCode, SimulateError } from '../../evm/calls/simulate-errors.js'
import type { SimulatedCall } from '../../evm/calls/simulate.js'
import { toQuantity } from '../../primitives/quantity.js'
import { defineMethod, optional, required, type MethodTable } from '../../rpc/method-table.js'
import type { EthBackend, ExecutionOptions } from './backend.js'
import { blockSelector } from './block-params.js'
import { encodeData, formatBlock, formatLog, type BlockJson, type LogJson } from './format.js'
import type { EthApiOptions } from './options.js'
import { resolveStateHeight } from './resolve-block.js'
import { simulatePayload } from './simulate-params.js'

/** One call's result (the specification's CallResultSuccess / CallResultFailure). */
export interface SimulatedCallJson {
  returnData: string
  logs: LogJson[]
  gasUsed: string
  maxUsedGas: string
  status: string
  error?: { code: number; message: string; data?: string }
}

/** A simulated block: the block object and its calls' results. */
export type SimulatedBlockJson = BlockJson & { calls: SimulatedCallJson[] }

function formatCall(call: SimulatedCall): SimulatedCallJson {
  const json: SimulatedCallJson = {
    returnData: encodeData(call.returnData),
    logs: call.logs.map(formatLog),
    gasUsed: toQuantity(call.gasUsed),
    maxUsedGas: toQuantity(call.maxUsedGas),
    status: toQuantity(call.status),
  }
  if (call.error) {
    const { code, message, data } = call.error
    json.error = data === undefined ? { code, message } : { code, message, data: encodeData(data) }
  }
  return json
}

export function createEthSimulateMethods(backend: EthBackend, options: EthApiOptions): MethodTable {
  const execution: ExecutionOptions = { gasCap: options.gasCap, timeout: options.evmTimeout }
  return [
    defineMethod('eth_simulateV1', [required(simulatePayload), optional(blockSelector, 'latest')] as const, async ([payload, at]) => {
      if (payload.blocks.length === 0) throw new SimulateError(SimulateCode.invalidParams, 'empty input')
      for (const { chainId } of payload.blocks.flatMap((b) => b.calls)) {
        if (chainId !== undefined && chainId !== backend.chainId)
          throw new SimulateError(SimulateCode.invalidRequest, `chainId does not match node's (have=${chainId}, want=${backend.chainId})`)
      }
      const height = await resolveStateHeight(backend, at)
      const blocks = await backend.simulate(payload, height, execution)
      return blocks.map(
        (b): SimulatedBlockJson => ({
          ...formatBlock(b.block, payload.returnFullTransactions ? b.transactions : undefined),
          calls: b.calls.map(formatCall),
        }),
      )
    }),
  ]
}
