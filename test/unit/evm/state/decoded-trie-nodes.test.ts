/**
 * The decoded-node cache (ethereumjs-patches.ts installDecodedNodeCache) in front of every trie's
 * `lookupNode`: updates change the node objects a lookup gives them, so a trie worked on through the
 * cache must end at the root its final contents have (computed here without @ethereumjs/mpt), read
 * back every value, and still read an earlier root's values (as a call at an older height does), with
 * more nodes than the cache keeps. Caching the node objects themselves fails the last check.
 *
 * Keys have one length, as the state's hashed keys do: @ethereumjs/mpt deletes wrongly when one key is
 * a prefix of another (ethereumjs-monorepo#2347), cache or not, and no trie of ours has such keys. The
 * bytes come from a fixed seed, so a failure replays.
 */
import { createHash, randomBytes } from 'node:crypto'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { MapDB } from '@ethereumjs/util'
import { beforeAll, describe, expect, it } from 'vitest'
import { DECODED_TRIE_NODES, installDecodedNodeCache, installFastTrieGet } from '../../../../src/evm/state/ethereumjs-patches.js'
import { trieRoot } from '../../../../src/evm/store/ordered-trie.js'
import { bytesToHex, compareBytes } from '../../../../src/primitives/hex.js'

/** Deterministic bytes: SHA-256 of a counter, as many as asked. */
function seededBytes(): (length: number) => Uint8Array {
  let counter = 0
  return (length) => createHash('sha256').update(`decoded-trie-nodes ${counter++}`).digest().subarray(0, length)
}

describe('trie nodes kept decoded', () => {
  beforeAll(() => {
    installFastTrieGet()
    installDecodedNodeCache()
  })

  it('a trie updated, deleted from and checkpointed through the cache has the root and values of its contents', async () => {
    const bytes = seededBytes()
    const db = new MapDB<string, Uint8Array>()
    const trie = new MerklePatriciaTrie({ db })
    const contents = new Map<string, [Uint8Array, Uint8Array]>()
    const put = async (key: Uint8Array, value: Uint8Array): Promise<void> => {
      await trie.put(key, value)
      contents.set(bytesToHex(key), [key, value])
    }
    const keys = Array.from({ length: DECODED_TRIE_NODES + 500 }, () => bytes(4))
    for (const key of keys) await put(key, bytes(1 + (bytes(1)[0]! % 32)))
    const firstRoot = trie.root()
    const firstContents = [...contents.values()]
    // Short keys and values: many nodes are embedded in their parents. Updates and deletes walk down
    // through cached nodes and change them.
    for (const key of keys.slice(0, 1000)) await put(key, bytes(5))
    for (const key of keys.slice(1000, 1300)) {
      await trie.del(key)
      contents.delete(bytesToHex(key))
    }
    trie.checkpoint()
    for (const key of keys.slice(1300, 1600)) await put(key, bytes(32))
    await trie.commit()
    const pairs = [...contents.values()].sort((a, b) => compareBytes(a[0], b[0]))
    expect(bytesToHex(trie.root())).toBe(bytesToHex(trieRoot(pairs)))
    for (const [key, value] of pairs) expect(bytesToHex((await trie.get(key))!)).toBe(bytesToHex(value))
    for (const key of keys.slice(1000, 1300)) if (!contents.has(bytesToHex(key))) expect(await trie.get(key)).toBeNull()
    // The nodes of an earlier root, read again after the updates (as a call at an older height does).
    const earlier = new MerklePatriciaTrie({ db, root: firstRoot })
    for (const [key, value] of firstContents) expect(bytesToHex((await earlier.get(key))!)).toBe(bytesToHex(value))
  })

  it('a node the database lacks is the library error, cached or not', async () => {
    const db = new MapDB<string, Uint8Array>()
    const trie = new MerklePatriciaTrie({ db })
    for (let i = 0; i < 64; i++) await trie.put(randomBytes(32), randomBytes(40))
    const missing = randomBytes(32)
    await expect((trie as unknown as { lookupNode(n: Uint8Array): Promise<unknown> }).lookupNode(missing)).rejects.toThrow(
      /^Missing node in DB$/,
    )
    const copy = new MerklePatriciaTrie({ db: new MapDB(), root: trie.root() })
    await expect(copy.get(randomBytes(32), true)).rejects.toThrow(/^Missing node in DB$/)
  })
})
