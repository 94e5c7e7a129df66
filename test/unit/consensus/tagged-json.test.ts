import { describe, expect, it } from 'vitest'
import { decodeTaggedJson, encodeTaggedJson } from '../../../src/consensus/tagged-json.js'
import { bytesToUtf8 } from '../../../src/primitives/hex.js'

describe('tagged JSON', () => {
  it('round-trips bigints and bytes at any depth, in arrays and objects', () => {
    const value = {
      height: 12n,
      hash: new Uint8Array([0xab, 0xcd]),
      empty: new Uint8Array(0),
      list: [1n, { inner: new Uint8Array([1]), n: -5n }, 'text', null, true],
      nested: { deeper: { big: 2n ** 70n, s: '$big' } },
    }
    const bytes = encodeTaggedJson(value)
    expect(bytesToUtf8(bytes)).toContain('{"$big":"12"}')
    expect(bytesToUtf8(bytes)).toContain('{"$bytes":"abcd"}')
    expect(decodeTaggedJson(bytes)).toEqual(value)
  })

  it('writes what JSON.stringify writes for everything else', () => {
    class Holder {
      own = 1n
      skipped = undefined
      get inherited(): number {
        return 1
      }
    }
    const sparse: unknown[] = [1]
    sparse[2] = undefined // index 1 is a hole
    sparse[3] = () => 0
    const value = { holder: new Holder(), date: new Date(0), sparse, map: new Map([[1, 2]]), fn: () => 0 }
    expect(bytesToUtf8(encodeTaggedJson(value))).toBe(
      '{"holder":{"own":{"$big":"1"}},"date":"1970-01-01T00:00:00.000Z","sparse":[1,null,null,null],"map":{}}',
    )
  })

  it('leaves objects that only look like tags alone', () => {
    const text = '{"a":{"$big":"1","other":2},"b":{"$bytes":5},"c":{"$big":"7"}}'
    expect(decodeTaggedJson(new TextEncoder().encode(text))).toEqual({ a: { $big: '1', other: 2 }, b: { $bytes: 5 }, c: 7n })
  })
})
