import { describe, expect, it } from 'vitest'
import { gethFrameError } from '../../../../src/evm/tracing/frame-error.js'
import { frameTypeOf, gethOpName, stackErrorText } from '../../../../src/evm/tracing/opcodes.js'

describe('opcodes in geth’s words', () => {
  it('names opcodes as geth’s OpCode.String()', () => {
    expect([0x44, 0x20, 0x5f, 0x7f, 0x8f, 0x9f, 0xa4, 0xfe, 0x0c, 0xef].map(gethOpName)).toEqual([
      'DIFFICULTY',
      'KECCAK256',
      'PUSH0',
      'PUSH32',
      'DUP16',
      'SWAP16',
      'LOG4',
      'INVALID',
      'opcode 0xc not defined',
      'opcode 0xef not defined',
    ])
  })

  it('words stack errors with sizes, as ErrStackUnderflow / ErrStackOverflow', () => {
    expect(stackErrorText(0x01, 1)).toBe('stack underflow (1 <=> 2)')
    expect(stackErrorText(0xf1, 3)).toBe('stack underflow (3 <=> 7)')
    expect(stackErrorText(0x60, 1024)).toBe('stack limit reached 1024 (1023)')
    expect(stackErrorText(0x80, 1024)).toBe('stack limit reached 1024 (1023)')
    expect(stackErrorText(0x01, 2)).toBeUndefined()
  })

  it('names a failed frame’s error from its final state', () => {
    expect(gethFrameError('invalid opcode', { programCounter: 1, code: new Uint8Array([0x60, 0xfe]) })).toBe('invalid opcode: INVALID')
    expect(gethFrameError('invalid opcode', { programCounter: 0, code: new Uint8Array([0x0c]) })).toBe(
      'invalid opcode: opcode 0xc not defined',
    )
    expect(gethFrameError('stack underflow', { opCode: 0x01, stack: { length: 0 } })).toBe('stack underflow (0 <=> 2)')
    expect(gethFrameError('revert', undefined)).toBe('execution reverted')
    expect(gethFrameError('invalid JUMP', undefined)).toBe('invalid jump destination')
  })

  it('maps the opening opcode to geth’s frame type', () => {
    expect([0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xfa, 0xff, 0x01].map(frameTypeOf)).toEqual([
      'CREATE',
      'CALL',
      'CALLCODE',
      'DELEGATECALL',
      'CREATE2',
      'STATICCALL',
      'SELFDESTRUCT',
      undefined,
    ])
  })
})
