import { describe, expect, it } from 'vitest'
import { address, arrayOf, bool, data, decodeStorageKey, hash, quantity, string, uint, uint64 } from '../../../src/rpc/codecs.js'

const err = (fn: () => unknown): string => {
  try {
    fn()
  } catch (e) {
    return (e as Error).message
  }
  throw new Error('expected a failure')
}

describe('QUANTITY codecs', () => {
  it('accepts compact hex', () => {
    expect(quantity('0x0')).toBe(0n)
    expect(quantity('0x41')).toBe(65n)
    expect(quantity('0xDEADbeef')).toBe(0xdeadbeefn)
    expect(quantity('0x' + 'f'.repeat(64))).toBe((1n << 256n) - 1n)
    expect(uint64('0x400')).toBe(1024n)
    expect(uint('0x10')).toBe(16)
  })

  it('rejects with geth messages', () => {
    expect(err(() => quantity('ff'))).toBe('json: cannot unmarshal hex string without 0x prefix into Go value of type *hexutil.Big')
    expect(err(() => quantity('0x'))).toBe('json: cannot unmarshal hex string "0x" into Go value of type *hexutil.Big')
    expect(err(() => uint64('0x0400'))).toBe(
      'json: cannot unmarshal hex number with leading zero digits into Go value of type hexutil.Uint64',
    )
    expect(err(() => uint64('0xzz'))).toBe('json: cannot unmarshal invalid hex string into Go value of type hexutil.Uint64')
    expect(err(() => uint64('0x1' + '0'.repeat(16)))).toBe(
      'json: cannot unmarshal hex number > 64 bits into Go value of type hexutil.Uint64',
    )
    expect(err(() => quantity(5))).toBe('json: cannot unmarshal non-string into Go value of type *hexutil.Big')
  })
})

describe('DATA codecs', () => {
  it('decodes bytes, empty allowed', () => {
    expect(data('0x')).toEqual(new Uint8Array(0))
    expect(data('0x004200')).toEqual(new Uint8Array([0, 0x42, 0]))
  })

  it('rejects odd length and missing prefix', () => {
    expect(err(() => data('0xf0f0f'))).toBe('json: cannot unmarshal hex string of odd length into Go value of type hexutil.Bytes')
    expect(err(() => data('004200'))).toBe('json: cannot unmarshal hex string without 0x prefix into Go value of type hexutil.Bytes')
  })

  it('checks address and hash lengths', () => {
    expect(address('0x' + 'Ab'.repeat(20))).toEqual(new Uint8Array(20).fill(0xab))
    expect(err(() => address('0x' + 'ab'.repeat(19)))).toBe('hex string has length 38, want 40 for common.Address')
    expect(err(() => hash('0x' + 'ab'.repeat(31)))).toBe('hex string has length 62, want 64 for common.Hash')
    expect(err(() => address('0x' + 'zz'.repeat(20)))).toBe(
      'json: cannot unmarshal invalid hex string into Go value of type common.Address',
    )
  })

  it('pads storage keys like geth decodeHash', () => {
    expect(decodeStorageKey('0x1')[31]).toBe(1)
    expect(decodeStorageKey('1')[31]).toBe(1)
    expect(decodeStorageKey('').length).toBe(32)
    expect(decodeStorageKey('0x' + '00'.repeat(32)).length).toBe(32)
    expect(err(() => decodeStorageKey('0x' + '00'.repeat(33)))).toBe('hex string too long, want at most 32 bytes')
    expect(err(() => decodeStorageKey('0xzz'))).toBe('hex string invalid')
  })
})

describe('Go value types', () => {
  it('bool rejects strings', () => {
    expect(bool(true)).toBe(true)
    expect(err(() => bool('true'))).toBe('json: cannot unmarshal string into Go value of type bool')
  })

  it('reads null as the zero value of bool, string and slices, as Go decodes a non-pointer argument', () => {
    expect(bool(null)).toBe(false)
    expect(string(null)).toBe('')
    expect(arrayOf(string, '[]string')(null)).toEqual([])
    expect(err(() => string(1))).toBe('json: cannot unmarshal number into Go value of type string')
  })
})
