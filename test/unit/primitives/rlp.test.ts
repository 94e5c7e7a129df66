import { RLP } from '@ethereumjs/rlp'
import { describe, expect, it } from 'vitest'
import { encodeRlp, type RlpInput } from '../../../src/primitives/rlp.js'
import { seededRandom as random } from '../../helpers/seeded-random.js'

/** Byte strings around every header boundary (0, 1 below 0x80, 1 at 0x80, 55, 56, 255, 256); longer ones below. */
const LENGTHS = [0, 1, 1, 2, 20, 32, 55, 56, 57, 255, 256, 1024]
/** Random bytes the leaves are cut from. */
const POOL = Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)

function tree(next: () => number, depth: number): RlpInput {
  if (depth > 0 && next() < 0.35) return Array.from({ length: Math.floor(next() * 6) }, () => tree(next, depth - 1))
  const length = LENGTHS[Math.floor(next() * LENGTHS.length)]!
  const at = Math.floor(next() * (POOL.length - length))
  return POOL.slice(at, at + length)
}

const same = (a: Uint8Array, b: Uint8Array): boolean => Buffer.compare(a, b) === 0

describe('RLP encoding', () => {
  it('gives @ethereumjs/rlp bytes for 500 random trees that cross the one- and two-byte header boundaries', () => {
    const next = random(12)
    for (let i = 0; i < 500; i++) {
      const input = tree(next, 4)
      expect(same(encodeRlp(input), RLP.encode(input as never)), `case ${i}`).toBe(true)
    }
  })

  it('encodes single bytes, empty and nested lists, and strings and lists with two- and three-byte lengths', () => {
    const cases: RlpInput[] = [
      Uint8Array.of(0),
      Uint8Array.of(0x7f),
      Uint8Array.of(0x80),
      [],
      [[], [[]]],
      Array.from({ length: 3 }, () => new Uint8Array(30_000)),
      new Uint8Array(65_535),
      new Uint8Array(65_536),
      [new Uint8Array(70_000), [new Uint8Array(300)]],
    ]
    for (const input of cases) expect(same(encodeRlp(input), RLP.encode(input as never))).toBe(true)
    expect(encodeRlp([])).toEqual(Uint8Array.of(0xc0))
    expect(encodeRlp(new Uint8Array(56)).subarray(0, 2)).toEqual(Uint8Array.of(0xb8, 56))
  })

  it('hands every other leaf to the caller’s conversion, and refuses it without one', () => {
    const seen: unknown[] = []
    const toBytes = (leaf: unknown) => {
      seen.push(leaf)
      return leaf === 1n ? Uint8Array.of(1) : new Uint8Array(0)
    }
    expect(encodeRlp([1n, Uint8Array.of(2), [null]], toBytes)).toEqual(RLP.encode([1n, Uint8Array.of(2), [null]]))
    expect(seen).toEqual([1n, null])
    expect(() => encodeRlp([5] as unknown as RlpInput)).toThrow('RLP: a leaf must be a Uint8Array, got number')
  })
})
