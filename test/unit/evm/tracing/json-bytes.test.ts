/**
 * Trace answers as bytes (evm/tracing/json-bytes.ts, trace-budget.ts): the writer's chunks hold
 * exactly the text written, across chunk boundaries and multi-byte characters, and every byte counts against the request's budget, which fails with the setting's name
 * once passed.
 */
import { describe, expect, it } from 'vitest'
import { JsonBytesWriter } from '../../../../src/evm/tracing/json-bytes.js'
import { TraceBudget } from '../../../../src/evm/tracing/trace-budget.js'
import { TraceTooLargeError } from '../../../../src/evm/tracing/trace-errors.js'

describe('JsonBytesWriter', () => {
  it('keeps the text in order across many chunks, UTF-8 encoded', () => {
    const w = new JsonBytesWriter(undefined)
    const parts: string[] = []
    for (let i = 0; i < 50_000; i++) parts.push(i % 1000 === 0 ? `"é€𝄞${i}",` : `${i},`)
    for (const p of parts) w.write(p)
    w.write('x'.repeat(300_000))
    const out = w.finish('[', '0]')
    const text = `[${parts.join('')}${'x'.repeat(300_000)}0]`
    expect(out.toString()).toBe(text)
    expect(out.byteLength).toBe(Buffer.byteLength(text))
    expect(out.chunks.length).toBeGreaterThan(3)
  })

  it('counts every byte, head and tail included, against the budget', () => {
    const budget = new TraceBudget(100)
    const w = new JsonBytesWriter(budget)
    w.write('é'.repeat(40))
    expect(budget.spent).toBe(80)
    w.finish('[', ']')
    expect(budget.spent).toBe(82)
  })

  it('fails with TraceTooLargeError, naming the setting, once the budget is passed', () => {
    const budget = new TraceBudget(10)
    const w = new JsonBytesWriter(budget)
    w.write('0123456789')
    expect(() => w.write('a')).toThrow(TraceTooLargeError)
    expect(() => budget.take(0)).toThrow(
      'the trace exceeds 10 bytes ([json-rpc] trace-response-max-size, --json-rpc.trace-response-max-size)',
    )
  })

  it('caps nothing with a budget of 0', () => {
    const budget = new TraceBudget(0)
    budget.take(Number.MAX_SAFE_INTEGER)
    expect(budget.spent).toBe(Number.MAX_SAFE_INTEGER)
    expect(() => new TraceBudget(-1)).toThrow('trace byte budget must be an integer ≥ 0, got -1')
  })
})
