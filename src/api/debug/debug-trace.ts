/**
 * debug_traceTransaction, debug_traceBlockByNumber, debug_traceBlockByHash and debug_traceCall (geth
 * eth/tracers/api.go), each under the global trace limit (trace-limiter.ts). A block trace answers
 * `[{txHash, result}]`, with `{txHash, error}` for a transaction whose trace failed; block 0 is refused
 * with `genesis is not traceable`; a `tracerConfig` a tracer cannot use is a `TracerConfigError`.
 */
import { GenesisNotTraceableError } from '../../chain/evm/tracing/trace-errors.js'
import { bytesToHex } from '../../primitives/hex.js'
import { hash } from '../../rpc/codecs.js'
import { defineMethod, optional, required, type MethodTable } from '../../rpc/method-table.js'
import { NodeError } from '../../utils/errors.js'
import { blockNumberOrTag, blockSelector, type BlockSelector } from '../eth/block-params.js'
import { callArgs } from '../eth/call-args.js'
import type { DebugBackend, TracerRequest, TxTraceResult } from './backend.js'
import { heightOf, resolveBlock } from './resolve-block.js'
import { defaultTraceCallConfig, defaultTracerRequest, traceCallConfig, traceConfig } from './trace-config.js'
import type { TraceLimiter } from './trace-limiter.js'

/** geth `txTraceResult` JSON. */
function formatBlockTrace(results: readonly TxTraceResult[]): unknown[] {
  return results.map((r) =>
    r.error !== undefined ? { txHash: bytesToHex(r.txHash), error: r.error } : { txHash: bytesToHex(r.txHash), result: r.result },
  )
}

export function createDebugTraceMethods(backend: DebugBackend, limiter: TraceLimiter): MethodTable {
  const traceBlock = async (selector: BlockSelector, request: TracerRequest): Promise<unknown[]> => {
    const block = await resolveBlock(backend, selector)
    if (block.number === 0) throw new GenesisNotTraceableError()
    return formatBlockTrace(await limiter.run(() => backend.traceBlock(block, request)))
  }
  return [
    defineMethod('debug_traceTransaction', [required(hash), optional(traceConfig)], ([txHash, config]) =>
      limiter.run(() => backend.traceTransaction(txHash, config ?? defaultTracerRequest())),
    ),
    defineMethod('debug_traceBlockByNumber', [required(blockNumberOrTag), optional(traceConfig)], ([number, config]) =>
      traceBlock(number, config ?? defaultTracerRequest()),
    ),
    defineMethod('debug_traceBlockByHash', [required(hash), optional(traceConfig)], ([blockHash, config]) =>
      traceBlock({ hash: blockHash, requireCanonical: false }, config ?? defaultTracerRequest()),
    ),
    defineMethod(
      'debug_traceCall',
      [required(callArgs), required(blockSelector), optional(traceCallConfig)],
      async ([args, at, config]) => {
        if (at === 'pending') throw new NodeError('tracing on top of pending is not supported')
        const block = await resolveBlock(backend, typeof at === 'object' ? at : heightOf(backend, at))
        const { request, overrides } = config ?? defaultTraceCallConfig()
        return limiter.run(() => backend.traceCall(args, block.number, overrides, request))
      },
    ),
  ]
}
