/** Timed method tables: every call a handler answers is reported once, with its outcome, whether the handler is synchronous or not. */
import { describe, expect, it } from 'vitest'
import { defineMethod, type CallContext } from '../../../src/rpc/method-table.js'
import { timeMethods } from '../../../src/rpc/timed-methods.js'

const CTX: CallContext = { transport: 'http', authorized: true, loopback: true }

describe('timeMethods', () => {
  it('reports successes and failures of synchronous and asynchronous handlers, and passes results and errors on', async () => {
    const seen: [string, boolean][] = []
    const [table] = timeMethods(
      [
        [
          defineMethod('t_sync', [], () => 1),
          defineMethod('t_throw', [], () => {
            throw new Error('no')
          }),
          defineMethod('t_async', [], async () => 2),
          defineMethod('t_reject', [], async () => {
            throw new Error('later no')
          }),
        ],
      ],
      {
        observe(method, ok, seconds) {
          expect(seconds).toBeGreaterThanOrEqual(0)
          seen.push([method, ok])
        },
      },
    )
    const call = (name: string) => table!.find((def) => def.name === name)!.handler([], CTX)
    expect(call('t_sync')).toBe(1)
    expect(() => call('t_throw')).toThrow('no')
    expect(await call('t_async')).toBe(2)
    await expect(call('t_reject')).rejects.toThrow('later no')
    expect(seen).toEqual([
      ['t_sync', true],
      ['t_throw', false],
      ['t_async', true],
      ['t_reject', false],
    ])
  })
})
