import { describe, expect, it } from 'vitest'
import { TrieNodeCache } from '../../../src/chain/evm/trie-db.js'

const bytes = (n: number, fill = 1) => new Uint8Array(n).fill(fill)

describe('TrieNodeCache', () => {
  it('keeps the most recently used nodes within its byte budget', () => {
    // Each entry costs its length plus a fixed overhead (96): three 100-byte nodes fit in 600 bytes, a fourth does not.
    const cache = new TrieNodeCache(600)
    cache.set('a', bytes(100))
    cache.set('b', bytes(100))
    cache.set('c', bytes(100))
    expect(cache.get('a')).toEqual(bytes(100)) // a is now the most recently used
    cache.set('d', bytes(100))
    expect(cache.get('b')).toBeUndefined()
    expect([cache.get('a'), cache.get('c'), cache.get('d')].every((v) => v !== undefined)).toBe(true)
    expect(cache.size).toBe(3)
  })

  it('replaces an entry without counting it twice, shrinks on resize and is off at 0', () => {
    const cache = new TrieNodeCache(1000)
    cache.set('a', bytes(100))
    cache.set('a', bytes(100, 2))
    cache.set('b', bytes(100))
    expect(cache.get('a')).toEqual(bytes(100, 2))
    cache.resize(250)
    expect(cache.size).toBe(1)
    expect(cache.get('a')).toEqual(bytes(100, 2))
    cache.resize(0)
    expect(cache.size).toBe(0)
    cache.set('c', bytes(10))
    expect(cache.get('c')).toBeUndefined()
  })
})
