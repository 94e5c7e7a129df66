/**
 * Errors cross from a call worker to the main thread as data and come back as the same classes; a
 * height's state crosses once, and the worker holds it for every later request that names it.
 */
import { describe, expect, it } from 'vitest'
import { fromWireError, keepState, STATES_KEPT, toWireError } from '../../../../src/evm/calls/call-worker-protocol.js'
import { CallArgsError, CallTimeoutError, ExecutionRevertedError, UnknownBlockError, VmExecutionError } from '../../../../src/evm/errors.js'

describe('call worker errors', () => {
  it.each([
    new ExecutionRevertedError(Uint8Array.of(8, 0xc3, 0x79, 0xa0), 'insufficient balance'),
    new ExecutionRevertedError(new Uint8Array(0), undefined),
    new VmExecutionError('invalid opcode: INVALID'),
    new CallTimeoutError(5_000),
    new CallArgsError('intrinsic gas too low: have 0, want 21000'),
    new UnknownBlockError('missing trie node for state root: x'),
  ])('rebuilds $constructor.name with its message and fields', (err) => {
    const back = fromWireError(structuredClone(toWireError(err)))
    expect(back).toBeInstanceOf(err.constructor)
    expect(back.message).toBe(err.message)
    expect({ ...back }).toEqual({ ...err })
  })

  it('makes anything else a plain Error with its message', () => {
    const back = fromWireError(structuredClone(toWireError(new TypeError('boom'))))
    expect(back.constructor).toBe(Error)
    expect(back.message).toBe('boom')
    expect(fromWireError(toWireError('text')).message).toBe('text')
  })
})

describe('states sent to a call worker', () => {
  it('go once per height, and the worker holds the state of every height a request names', () => {
    const sent = new Map<number, true>()
    const held = new Map<number, string>()
    let sends = 0
    // Mostly the newest heights, now and then an old one (which was dropped and goes again).
    const heights = Array.from({ length: 2_000 }, (_, i) => (i % 50 === 49 ? i % 7 : 100 + Math.floor(i / 20) - (i % 3)))
    for (const height of heights) {
      const state = keepState(sent, height, true) ? `state ${height}` : undefined
      if (state !== undefined) {
        sends++
        keepState(held, height, state)
      }
      expect(held.get(height)).toBe(`state ${height}`)
      expect(held.size).toBeLessThanOrEqual(STATES_KEPT)
    }
    expect([...held.keys()]).toEqual([...sent.keys()])
    expect(sends).toBeLessThan(heights.length / 5)
  })
})
