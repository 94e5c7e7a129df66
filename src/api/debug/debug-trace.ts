/**
 * debug_traceTransaction, debug_traceBlockByNumber, debug_traceBlockByHash and debug_traceCall (geth
 * eth/tracers/api.go), each under the global trace limit (trace-limiter.ts) and with a byte budget of
 * `maxResponseBytes` for its answer (trace-answer.ts). A block trace answers `[{txHash, result}]`,
 * with `{txHash, error}` for a transaction whose trace failed; block 0 is refused with `genesis is
 * not traceable`; a `tracerConfig` a tracer cannot use is a `TracerConfigError`.
 */
import { TraceBudget } from '../../evm/tracing/trace-budget.js'
import { GenesisNotTraceableError } from '../../evm/tracing/trace-errors.js'
import { hash } from '../../rpc/codecs.js'
import { defineMethod, optional, required, type MethodTable } from '../../rpc/method-table.js'
import { NodeError } from '../../utils/errors.js'
import { blockNumberOrTag, blockSelector, type BlockSelector } from '../eth/block-params.js'
import { callArgs } from '../eth/call-args.js'
import type { RawJson } from '../../rpc/raw-json.js'
import type { DebugBackend, TracerRequest } from './backend.js'
import { heightOf, resolveBlock } from './resolve-block.js'
import { renderBlockTrace, renderTraceResult } from './trace-answer.js'
import { defaultTraceCallConfig, defaultTracerRequest, traceCallConfig, traceConfig } from './trace-config.js'
import type { TraceLimiter } from './trace-limiter.js'

/** `maxResponseBytes`: the byte cap of one answer (`[json-rpc] trace-response-max-size`), 0 = none. */
export function createDebugTraceMethods(backend: DebugBackend, limiter: TraceLimiter, maxResponseBytes: number): MethodTable {
  /** The request with a fresh budget for its answer. */
  const budgeted = (request: TracerRequest): TracerRequest & { budget: TraceBudget } => ({
    ...request,
    budget: new TraceBudget(maxResponseBytes),
  })
  const traceBlock = async (selector: BlockSelector, config: TracerRequest): Promise<RawJson> => {
    const block = await resolveBlock(backend, selector)
    if (block.number === 0) throw new GenesisNotTraceableError()
    const request = budgeted(config)
    return renderBlockTrace(await limiter.run(() => backend.traceBlock(block, request)), request.budget)
  }
  return [
    defineMethod('debug_traceTransaction', [required(hash), optional(traceConfig)], async ([txHash, config]) => {
      const request = budgeted(config ?? defaultTracerRequest())
      return renderTraceResult(await limiter.run(() => backend.traceTransaction(txHash, request)), request.budget)
    }),
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
        const { request: traceRequest, overrides } = config ?? defaultTraceCallConfig()
        const request = budgeted(traceRequest)
        return renderTraceResult(await limiter.run(() => backend.traceCall(args, block.number, overrides, request)), request.budget)
      },
    ),
  ]
}
