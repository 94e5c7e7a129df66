import { describe, expect, it } from 'vitest'
import { ENTRY_TABLE_BYTES, TrieNodeCache } from '../../../../src/evm/state/trie-node-cache.js'

const bytes = (n: number, fill = 1) => new Uint8Array(n).fill(fill)

/** Slabs of 256 bytes take two 100-byte nodes (each with its 8-byte header and its key). */
const SLAB = 256
const SLAB_COST = SLAB + 2 * ENTRY_TABLE_BYTES

describe('TrieNodeCache', () => {
  it('holds what fits in its slabs and drops the oldest slab as a whole', () => {
    const cache = new TrieNodeCache(4 * SLAB_COST, SLAB)
    for (const [i, k] of [...'abcdefgh'].entries()) cache.set(k, bytes(100, i))
    expect(cache.size).toBe(8)
    cache.set('i', bytes(100, 9))
    expect(cache.size).toBe(7)
    expect(cache.get('a')).toBeUndefined()
    expect(cache.get('b')).toBeUndefined()
    expect(cache.get('i')).toEqual(bytes(100, 9))
    expect(cache.get('h')).toEqual(bytes(100, 7))
  })

  it('keeps a node that is read while newer ones pass through', () => {
    const cache = new TrieNodeCache(4 * SLAB_COST, SLAB)
    cache.set('root', bytes(100, 7))
    for (let i = 0; i < 100; i++) {
      cache.set(`n${i}`, bytes(100, i))
      expect(cache.get('root')).toEqual(bytes(100, 7))
    }
    expect(cache.get('n0')).toBeUndefined()
    expect(cache.get('n99')).toEqual(bytes(100, 99))
  })

  it('returns copies: a caller changing one changes nothing cached', () => {
    const cache = new TrieNodeCache(4 * SLAB_COST, SLAB)
    const value = bytes(50, 3)
    cache.set('a', value)
    value.fill(0)
    const got = cache.get('a')!
    expect(got).toEqual(bytes(50, 3))
    got.fill(9)
    expect(cache.get('a')).toEqual(bytes(50, 3))
  })

  it('stays within its budget, whatever passes through it', () => {
    const budget = 1 << 20
    const cache = new TrieNodeCache(budget)
    expect(cache.capacityBytes).toBeLessThanOrEqual(budget)
    expect(cache.capacityBytes).toBeGreaterThan(budget * 0.9)
    // Keys as content hashes are: their first 16 digits (what the table hashes) differ. Keys that share
    // them all land on one slot and make every insert walk the whole probe chain.
    const key = (i: number) => i.toString(16).padStart(16, '0').repeat(4)
    for (let i = 0; i < 50_000; i++) cache.set(key(i), bytes(40 + (i % 500), i))
    expect(cache.size).toBeGreaterThan(0)
    // the newest entry is always there, with its bytes
    expect(cache.get(key(49_999))).toEqual(bytes(40 + (49_999 % 500), 49_999))
  })

  it('answers each key with its own value through many recycles of a crowded table', () => {
    // 8 slabs of at most two entries: a table of 32 slots, so keys share home slots all the time.
    const cache = new TrieNodeCache(8 * SLAB_COST, SLAB)
    const values = new Map<string, Uint8Array>()
    let seed = 1
    const random = (n: number): number => {
      seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0
      return seed % n
    }
    for (let i = 0; i < 5_000; i++) {
      const key = `k${random(300)}`
      if (random(3) === 0) {
        const got = cache.get(key)
        if (got !== undefined) expect(got).toEqual(values.get(key))
      } else {
        const value = values.get(key) ?? bytes(1 + random(120), random(256))
        values.set(key, value)
        cache.set(key, value)
        expect(cache.get(key)).toEqual(value)
      }
      expect(cache.size).toBeLessThanOrEqual(16)
    }
    const held = [...values].filter(([key, value]) => {
      const got = cache.get(key)
      if (got !== undefined) expect(got).toEqual(value)
      return got !== undefined
    })
    expect(held.length).toBeGreaterThan(2)
  })

  it('skips a value larger than a slab, is off at 0, and drops everything on resize', () => {
    const cache = new TrieNodeCache(4 * SLAB_COST, SLAB)
    cache.set('big', bytes(SLAB))
    expect(cache.get('big')).toBeUndefined()
    cache.set('a', bytes(10))
    cache.resize(8 * SLAB_COST)
    expect(cache.get('a')).toBeUndefined()
    cache.set('b', bytes(10))
    expect(cache.get('b')).toEqual(bytes(10))
    cache.resize(0)
    cache.set('c', bytes(10))
    expect(cache.get('c')).toBeUndefined()
    expect(cache.size).toBe(0)
    expect(cache.capacityBytes).toBe(0)
  })
})
