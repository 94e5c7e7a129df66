import { describe, expect, it } from 'vitest'
import { countFrames, isUnsupported } from '../../bench/workloads/trace.js'

describe('trace workload helpers', () => {
  it('counts callTracer frames by type, the top one included', () => {
    const frame = { type: 'CALL', calls: [{ type: 'CALL' }, { type: 'STATICCALL', calls: [{ type: 'DELEGATECALL' }] }] }
    expect(countFrames(frame)).toEqual({ CALL: 2, STATICCALL: 1, DELEGATECALL: 1 })
  })

  it('tells an unserved method from other errors', () => {
    expect(
      isUnsupported(new Error('debug_traceTransaction: the method debug_traceTransaction does not exist/is not available (-32601)')),
    ).toBe(true)
    expect(isUnsupported(new Error('debug_traceTransaction: Method not found (-32601)'))).toBe(true)
    expect(isUnsupported(new Error('debug_traceTransaction: transaction 0x00 not found (-32000)'))).toBe(false)
  })
})
