/**
 * updateTrie (src/evm/state/trie-update.ts) gives the root ethereumjs' `put`/`del` key by key give, for
 * random sets of changes (new keys, changed values, deletes of present and absent keys), and the nodes
 * it writes serve every key's value from that root.
 */
import { randomBytes } from 'node:crypto'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { MapDB, bytesToHex, hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { trieRoot } from '../../../../src/evm/store/ordered-trie.js'
import { type RawNode, type TrieChange, type TrieNodeIo, updateTrie } from '../../../../src/evm/state/trie-update.js'
import { seededRandom as random } from '../../../helpers/seeded-random.js'

function bytes(rand: () => number, n: number): Uint8Array {
  return Uint8Array.from({ length: n }, () => Math.floor(rand() * 256))
}

function distinct(keys: Uint8Array[]): Uint8Array[] {
  return [...new Map(keys.map((k) => [bytesToHex(k), k])).values()]
}

/** Reads and writes the nodes of `trie`'s database. */
function ioOf(trie: MerklePatriciaTrie): TrieNodeIo & { written: number } {
  const db = trie.database()
  const io = {
    written: 0,
    async read(hash: Uint8Array): Promise<RawNode> {
      const value = (await db.get(hash)) as Uint8Array | string | undefined
      if (value === undefined) throw new Error(`missing node ${bytesToHex(hash)}`)
      return RLP.decode(typeof value === 'string' ? hexToBytes(`0x${value}`) : value) as RawNode
    },
    write(hash: Uint8Array, encoded: Uint8Array): void {
      io.written++
      void db.put(hash, encoded)
    },
  }
  return io
}

/** Two tries of the same keys: one for the library's updates, one for updateTrie's. */
async function twoTries(keys: Uint8Array[], value: (i: number) => Uint8Array): Promise<[MerklePatriciaTrie, MerklePatriciaTrie]> {
  const library = new MerklePatriciaTrie({ db: new MapDB(), valueEncoding: 'view' })
  const ours = new MerklePatriciaTrie({ db: new MapDB(), valueEncoding: 'view' })
  for (const [i, key] of keys.entries()) {
    const v = value(i)
    await library.put(key, v)
    await ours.put(key, v)
  }
  return [library, ours]
}

/** Applies `changes` both ways and checks the roots and every key's value. */
async function expectSameRoot(
  library: MerklePatriciaTrie,
  ours: MerklePatriciaTrie,
  changes: TrieChange[],
  keys: Uint8Array[],
  io: TrieNodeIo = ioOf(ours),
): Promise<void> {
  for (const { key, value } of changes) {
    if (value === null) await library.del(key)
    else await library.put(key, value)
  }
  const root = await updateTrie(ours.root(), ours.EMPTY_TRIE_ROOT, changes, io)
  expect(bytesToHex(root)).toBe(bytesToHex(library.root()))
  ours.root(root)
  for (const key of [...keys, ...changes.map((c) => c.key)]) expect(await ours.get(key)).toEqual(await library.get(key))
}

/** A change set over `keys`: a third changed, a fifth deleted, some absent keys deleted, new keys set. */
function changesOf(rand: () => number, keys: Uint8Array[], newKey: () => Uint8Array, valueBytes: () => number): TrieChange[] {
  const changes: TrieChange[] = []
  for (const key of keys) {
    const r = rand()
    if (r < 0.33) changes.push({ key, value: bytes(rand, valueBytes()) })
    else if (r < 0.53) changes.push({ key, value: null })
  }
  for (let i = 0; i < 1 + keys.length / 4; i++) changes.push({ key: newKey(), value: rand() < 0.8 ? bytes(rand, valueBytes()) : null })
  // A key given twice: the last value counts.
  if (keys.length > 0) changes.push({ key: keys[0]!, value: bytes(rand, valueBytes()) }, { key: keys[0]!, value: null })
  return changes.sort(() => rand() - 0.5)
}

describe('updateTrie', () => {
  it('gives the library root for 32-byte keys (storage slots, accounts) over many random sets', async () => {
    for (let seed = 1; seed <= 25; seed++) {
      const rand = random(seed)
      const keys = Array.from({ length: Math.floor(rand() * 300) }, () => bytes(rand, 32))
      const [library, ours] = await twoTries(keys, () => bytes(rand, 1 + Math.floor(rand() * 70)))
      const changes = changesOf(
        rand,
        keys,
        () => bytes(rand, 32),
        () => 1 + Math.floor(rand() * 70),
      )
      await expectSameRoot(library, ours, changes, keys)
    }
  })

  it('gives the library root with short keys of one length: embedded nodes', async () => {
    for (let seed = 100; seed <= 160; seed++) {
      const rand = random(seed)
      const shortKey = (): Uint8Array => Uint8Array.from({ length: 2 }, () => Math.floor(rand() * 4) * 17)
      const keys = distinct(Array.from({ length: Math.floor(rand() * 14) }, () => shortKey()))
      const [library, ours] = await twoTries(keys, () => bytes(rand, 1 + Math.floor(rand() * 3)))
      const changes = changesOf(rand, keys, shortKey, () => 1 + Math.floor(rand() * 3))
      await expectSameRoot(library, ours, changes, keys)
    }
  })

  it('gives the root of the final key set with keys that are prefixes of others (branch values)', async () => {
    // ethereumjs' deletes do not always leave such a trie canonical: the reference is a trie built afresh.
    for (let seed = 200; seed <= 300; seed++) {
      const rand = random(seed)
      const shortKey = (): Uint8Array => Uint8Array.from({ length: 1 + Math.floor(rand() * 3) }, () => Math.floor(rand() * 4) * 17)
      const keys = distinct(Array.from({ length: Math.floor(rand() * 30) }, () => shortKey()))
      const [, ours] = await twoTries(keys, (i) => Uint8Array.of(i + 1))
      const final = new Map(keys.map((k, i) => [bytesToHex(k), [k, Uint8Array.of(i + 1)] as [Uint8Array, Uint8Array]]))
      const changes = changesOf(rand, keys, shortKey, () => 1 + Math.floor(rand() * 3))
      for (const { key, value } of changes) {
        if (value === null) final.delete(bytesToHex(key))
        else final.set(bytesToHex(key), [key, value])
      }
      const root = await updateTrie(ours.root(), ours.EMPTY_TRIE_ROOT, changes, ioOf(ours))
      expect(bytesToHex(root), `seed ${seed}`).toBe(bytesToHex(trieRoot([...final.values()])))
      ours.root(root)
      for (const [key, value] of final.values()) expect(await ours.get(key)).toEqual(value)
    }
  })

  it('deletes every key down to the empty root, and builds a trie from the empty root', async () => {
    const keys = Array.from({ length: 50 }, () => randomBytes(32))
    const [library, ours] = await twoTries(keys, () => randomBytes(40))
    await expectSameRoot(
      library,
      ours,
      keys.map((key) => ({ key, value: null })),
      keys,
    )
    expect(ours.root()).toEqual(ours.EMPTY_TRIE_ROOT)
    await expectSameRoot(
      library,
      ours,
      keys.map((key) => ({ key, value: randomBytes(5) })),
      keys,
    )
  })

  it('leaves the root and writes nothing when nothing changes', async () => {
    const keys = Array.from({ length: 30 }, () => randomBytes(32))
    const [, ours] = await twoTries(keys, () => randomBytes(40))
    const io = ioOf(ours)
    const absent = Array.from({ length: 10 }, () => ({ key: randomBytes(32), value: null }))
    expect(await updateTrie(ours.root(), ours.EMPTY_TRIE_ROOT, absent, io)).toEqual(ours.root())
    expect(await updateTrie(ours.root(), ours.EMPTY_TRIE_ROOT, [], io)).toEqual(ours.root())
    expect(io.written).toBe(0)
  })

  it('takes a leaf whose hash matches the previous value given without reading it, and reads it when the hint is wrong', async () => {
    const rand = random(7)
    const keys = Array.from({ length: 1000 }, () => bytes(rand, 32))
    const values = keys.map(() => bytes(rand, 33))
    const [library, ours] = await twoTries(keys, (i) => values[i]!)
    const reads = async (previous: (i: number) => Uint8Array | undefined, seed: number): Promise<number> => {
      const r = random(seed)
      const picked = Array.from({ length: 60 }, () => Math.floor(r() * keys.length))
      const changes = picked.map((i) => ({ key: keys[i]!, value: r() < 0.2 ? null : bytes(r, 33), previous: previous(i) }))
      for (const [n, i] of picked.entries()) values[i] = changes[n]!.value ?? values[i]!
      const io = ioOf(ours)
      let count = 0
      const counted: TrieNodeIo = {
        write: io.write,
        read: (hash) => {
          count++
          return io.read(hash)
        },
      }
      await expectSameRoot(library, ours, changes, keys, counted)
      return count
    }
    const none = await reads(() => undefined, 1)
    const right = await reads((i) => values[i], 2)
    const wrong = await reads(() => bytes(rand, 33), 3)
    expect(right).toBeLessThan(none * 0.8)
    expect(wrong).toBeGreaterThan(right)
  })

  it('brings every node the update reads at hand beforehand, a level at a time', async () => {
    const keys = Array.from({ length: 2000 }, () => randomBytes(32))
    const values = keys.map(() => randomBytes(33))
    const [library, ours] = await twoTries(keys, (i) => values[i]!)
    const io = ioOf(ours)
    const atHand = new Map<string, RawNode>()
    let preloads = 0
    let misses = 0
    const preloading: TrieNodeIo = {
      write: io.write,
      peek: (hash) => atHand.get(bytesToHex(hash)),
      preload: async (hashes) => {
        preloads++
        for (const hash of hashes) atHand.set(bytesToHex(hash), await io.read(hash))
      },
      read: (hash) => {
        const node = atHand.get(bytesToHex(hash))
        if (node !== undefined) return Promise.resolve(node)
        misses++
        return io.read(hash)
      },
    }
    const changes = [
      ...keys.slice(0, 150).map((key, i) => ({ key, value: randomBytes(33), previous: i % 2 === 0 ? values[i] : undefined })),
      ...keys.slice(150, 200).map((key) => ({ key, value: null })),
      ...Array.from({ length: 100 }, () => ({ key: randomBytes(32), value: randomBytes(33) })),
    ]
    await expectSameRoot(library, ours, changes, keys, preloading)
    // Deletes can leave a branch with one child, which is read to be merged with it: not on any path.
    expect(misses).toBeLessThanOrEqual(50)
    expect(preloads).toBeLessThanOrEqual(7)
  })

  it('writes each new node once: a few hundred keys into a large trie', async () => {
    const keys = Array.from({ length: 2000 }, () => randomBytes(32))
    const [library, ours] = await twoTries(keys, () => randomBytes(33))
    const changes = Array.from({ length: 300 }, () => ({ key: randomBytes(32), value: randomBytes(33) }))
    const io = ioOf(ours)
    const root = await updateTrie(ours.root(), ours.EMPTY_TRIE_ROOT, changes, io)
    for (const { key, value } of changes) await library.put(key, value)
    expect(root).toEqual(library.root())
    // 300 leaves and their branches (fewer than 300 at each of the three levels above them, one root).
    expect(io.written).toBeLessThan(300 * 4)
  })
})
