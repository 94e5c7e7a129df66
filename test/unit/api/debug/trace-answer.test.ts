/**
 * debug_trace* answers rendered as bytes (api/debug/trace-answer.ts): the same JSON the dispatcher's
 * JSON.stringify wrote before for objects and block traces, the struct logger's bytes passed through
 * uncounted a second time, and the byte budget applied to what is rendered here.
 */
import { describe, expect, it } from 'vitest'
import { renderBlockTrace, renderTraceResult } from '../../../../src/api/debug/trace-answer.js'
import { JsonBytesWriter } from '../../../../src/evm/tracing/json-bytes.js'
import { TraceBudget } from '../../../../src/evm/tracing/trace-budget.js'
import { TraceTooLargeError } from '../../../../src/evm/tracing/trace-errors.js'
import type { RawJson } from '../../../../src/rpc/raw-json.js'

const textOf = (raw: RawJson): string => raw.wrap('', '').toString('utf8')
const HASH_A = new Uint8Array(32).fill(0xaa)
const HASH_B = new Uint8Array(32).fill(0xbb)

describe('trace answers', () => {
  it('renders an object result as JSON.stringify does, and undefined as null', () => {
    const frame = { type: 'CALL', from: '0x01', calls: [{ type: 'STATICCALL', output: '0x' }], note: 'ü' }
    expect(textOf(renderTraceResult(frame, new TraceBudget(0)))).toBe(JSON.stringify(frame))
    expect(textOf(renderTraceResult(undefined, new TraceBudget(0)))).toBe('null')
  })

  it('renders a block trace as geth txTraceResult entries: {txHash, result} or {txHash, error}', () => {
    const results = [
      { txHash: HASH_A, result: { gas: 1 } },
      { txHash: HASH_B, error: 'execution timeout' },
    ]
    const expected = [
      { txHash: `0x${'aa'.repeat(32)}`, result: { gas: 1 } },
      { txHash: `0x${'bb'.repeat(32)}`, error: 'execution timeout' },
    ]
    expect(textOf(renderBlockTrace(results, new TraceBudget(0)))).toBe(JSON.stringify(expected))
    expect(textOf(renderBlockTrace([], new TraceBudget(0)))).toBe('[]')
  })

  it("passes the struct logger's bytes through, counted once", () => {
    const budget = new TraceBudget(0)
    const w = new JsonBytesWriter(budget)
    w.write('{"pc":0}')
    const bytes = w.finish('{"structLogs":[', ']}')
    const spent = budget.spent
    const raw = renderBlockTrace([{ txHash: HASH_A, result: bytes }], budget)
    expect(JSON.parse(textOf(raw))).toEqual([{ txHash: `0x${'aa'.repeat(32)}`, result: { structLogs: [{ pc: 0 }] } }])
    expect(budget.spent - spent).toBe(raw.byteLength - bytes.byteLength)
  })

  it('refuses an object result or a block answer past the budget', () => {
    const big = { data: 'x'.repeat(2_000) }
    expect(() => renderTraceResult(big, new TraceBudget(1_000))).toThrow(TraceTooLargeError)
    const entries = Array.from({ length: 20 }, () => ({ txHash: HASH_A, result: { gas: 21_000 } }))
    expect(() => renderBlockTrace(entries, new TraceBudget(1_000))).toThrow(TraceTooLargeError)
    expect(renderBlockTrace(entries.slice(0, 5), new TraceBudget(1_000)).byteLength).toBeLessThan(1_000)
  })
})
