/**
 * The patched `MerklePatriciaTrie.get` (ethereumjs-patches.ts installFastTrieGet) answers as the
 * library's own `get` does, which is `findPath` and the found node's value.
 */
import { randomBytes } from 'node:crypto'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { MapDB } from '@ethereumjs/util'
import { beforeAll, describe, expect, it } from 'vitest'
import { installFastTrieGet } from '../../../../src/evm/state/ethereumjs-patches.js'

/** The library's `get`: its body in @ethereumjs/mpt 10.1.3. */
async function libraryGet(trie: MerklePatriciaTrie, key: Uint8Array, throwIfMissing = false): Promise<Uint8Array | null> {
  const internal = trie as unknown as { appliedKey(key: Uint8Array): Uint8Array }
  const { node, remaining } = await trie.findPath(internal.appliedKey(key), throwIfMissing)
  return node && remaining.length === 0 ? node.value() : null
}

async function expectSameAnswers(trie: MerklePatriciaTrie, keys: Uint8Array[]): Promise<void> {
  for (const key of keys) expect(await trie.get(key), Buffer.from(key).toString('hex')).toEqual(await libraryGet(trie, key))
}

/** Keys of 1..6 bytes from a small alphabet: shared prefixes, keys that are prefixes of others, embedded nodes. */
function shortKeys(n: number): Uint8Array[] {
  return Array.from({ length: n }, (_, i) => Uint8Array.from({ length: 1 + (i % 6) }, (_, j) => ((i * 7 + j * 13) % 5) * 17))
}

describe('MerklePatriciaTrie.get, walking straight down the path', () => {
  beforeAll(() => installFastTrieGet())

  it('answers as findPath does over branches, extensions, leaves, branch values and embedded nodes', async () => {
    const trie = new MerklePatriciaTrie({ db: new MapDB() })
    const keys = shortKeys(400)
    for (const [i, key] of keys.entries()) await trie.put(key, Uint8Array.of(i & 0xff, 1))
    const absent = [...shortKeys(60).map((k) => Uint8Array.of(...k, 0x99)), Uint8Array.of(0x42), new Uint8Array(0), randomBytes(9)]
    await expectSameAnswers(trie, [...keys, ...absent])
    expect(await trie.get(keys[5]!)).not.toBeNull()
  })

  it('answers as findPath does with hashed 32-byte keys, under a checkpoint too', async () => {
    const trie = new MerklePatriciaTrie({ db: new MapDB(), useKeyHashing: true })
    const keys = Array.from({ length: 300 }, () => randomBytes(32))
    for (const key of keys.slice(0, 200)) await trie.put(key, randomBytes(40))
    trie.checkpoint()
    for (const key of keys.slice(200, 250)) await trie.put(key, randomBytes(3))
    await trie.del(keys[0]!)
    await expectSameAnswers(trie, keys)
    expect(await trie.get(keys[0]!)).toBeNull()
    expect(await trie.get(keys[220]!)).toHaveLength(3)
  })

  it('gives null for an empty trie, and for a missing node null or the error with throwIfMissing', async () => {
    const empty = new MerklePatriciaTrie({ db: new MapDB() })
    expect(await empty.get(Uint8Array.of(1))).toBeNull()
    expect(await empty.get(Uint8Array.of(1))).toEqual(await libraryGet(empty, Uint8Array.of(1)))

    const db = new MapDB<string, Uint8Array>()
    const trie = new MerklePatriciaTrie({ db, useKeyHashing: true })
    const keys = Array.from({ length: 50 }, () => randomBytes(32))
    for (const key of keys) await trie.put(key, randomBytes(40))
    // drop every node but the root: each lookup below the root misses
    const root = Buffer.from(trie.root()).toString('hex')
    for (const key of [...db._database.keys()]) if (key !== root) await db.del(key)
    await expectSameAnswers(trie, keys)
    await expect(trie.get(keys[0]!, true)).rejects.toThrow('Missing node in DB')
    await expect(libraryGet(trie, keys[0]!, true)).rejects.toThrow('Missing node in DB')
  })
})
