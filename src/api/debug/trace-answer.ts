/**
 * debug_trace* answers as JSON bytes under the request's byte budget (`[json-rpc]
 * trace-response-max-size`, evm/tracing/trace-budget.ts). The struct logger hands over bytes it
 * already counted while tracing; any other tracer's result is serialised here and counted, and so are
 * a block trace's `{txHash, result}` wrappers. The dispatcher copies a `RawJson` into the response
 * without another JSON.stringify of the whole answer.
 */
import { JsonBytes } from '../../evm/tracing/json-bytes.js'
import type { TraceBudget } from '../../evm/tracing/trace-budget.js'
import { bytesToHex } from '../../primitives/hex.js'
import { RawJson } from '../../rpc/raw-json.js'
import type { TxTraceResult } from './backend.js'

/** Appends `text` as UTF-8 to `parts`, counted. */
function pushText(parts: Uint8Array[], text: string, budget: TraceBudget): void {
  const bytes = Buffer.from(text, 'utf8')
  budget.take(bytes.length)
  parts.push(bytes)
}

/** Appends one tracer's result (geth `json.RawMessage` from GetResult). */
function pushResult(parts: Uint8Array[], result: unknown, budget: TraceBudget): void {
  if (result instanceof JsonBytes) {
    for (const chunk of result.chunks) parts.push(chunk)
    return
  }
  pushText(parts, result === undefined ? 'null' : JSON.stringify(result), budget)
}

/** The answer of debug_traceTransaction and debug_traceCall. */
export function renderTraceResult(result: unknown, budget: TraceBudget): RawJson {
  const parts: Uint8Array[] = []
  pushResult(parts, result, budget)
  return new RawJson(parts)
}

/** The answer of debug_traceBlockBy*: geth `[]*txTraceResult`, `{txHash, result}` or `{txHash, error}`. */
export function renderBlockTrace(results: readonly TxTraceResult[], budget: TraceBudget): RawJson {
  const parts: Uint8Array[] = []
  for (let i = 0; i < results.length; i++) {
    const r = results[i]!
    const open = `${i === 0 ? '[' : ','}{"txHash":"${bytesToHex(r.txHash)}",`
    if (r.error !== undefined) {
      pushText(parts, `${open}"error":${JSON.stringify(r.error)}}`, budget)
      continue
    }
    pushText(parts, `${open}"result":`, budget)
    pushResult(parts, r.result, budget)
    pushText(parts, '}', budget)
  }
  pushText(parts, results.length === 0 ? '[]' : ']', budget)
  return new RawJson(parts)
}
