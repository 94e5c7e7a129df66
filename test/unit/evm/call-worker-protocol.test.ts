/** Errors cross from a call worker to the main thread as data and come back as the same classes. */
import { describe, expect, it } from 'vitest'
import { fromWireError, toWireError } from '../../../src/chain/evm/call-worker-protocol.js'
import {
  CallArgsError,
  CallTimeoutError,
  ExecutionRevertedError,
  UnknownBlockError,
  VmExecutionError,
} from '../../../src/chain/evm/errors.js'

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
