/**
 * The state at a root as flat records (flat-keys.ts), in key order, from a given key on: each account
 * (hashed address, RLP) followed by its slots (hashed address ‖ hashed slot, RLP value). Read straight
 * from the trie's nodes, synchronously (trie-db.ts reads LevelDB without leaving the thread), skipping
 * every subtree below the starting key: what the flat state's generation walks a slice at a time.
 */
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_RLP, type NestedUint8Array } from '@ethereumjs/util'
import type { Database } from '../../db/database.js'
import { equalBytes } from '../../primitives/hex.js'
import { ACCOUNT_KEY_BYTES, SLOT_KEY_BYTES } from './flat-keys.js'
import { storageRootOf } from './flat-reader.js'
import { peekTrieNode } from './trie-db.js'

/** A branch node: 16 children and a value. */
const BRANCH_ITEMS = 17
/** The hex-prefix flag of a leaf (bit 1 of its path's first nibble). */
const LEAF_FLAG = 0x20
/** The hex-prefix flag of an odd-length path (bit 0 of its path's first nibble). */
const ODD_FLAG = 0x10
/** Nibbles in a hashed key. */
const KEY_NIBBLES = 64

type Node = NestedUint8Array

function loadNode(db: Database, ref: Uint8Array | NestedUint8Array): Node {
  if (!(ref instanceof Uint8Array)) return ref
  const bytes = peekTrieNode(db, ref)
  if (bytes === undefined) throw new Error(`flat state: trie node ${Buffer.from(ref).toString('hex')} missing`)
  const node = RLP.decode(bytes)
  if (!Array.isArray(node)) throw new Error('flat state: trie node is not a list')
  return node
}

/** The nibbles of a hex-prefix encoded path. */
function pathNibbles(encoded: Uint8Array): number[] {
  const out: number[] = []
  if (encoded[0]! & ODD_FLAG) out.push(encoded[0]! & 0x0f)
  for (let i = 1; i < encoded.length; i++) out.push(encoded[i]! >> 4, encoded[i]! & 0x0f)
  return out
}

function nibblesToKey(nibbles: number[]): Uint8Array {
  const key = new Uint8Array(nibbles.length >> 1)
  for (let i = 0; i < key.length; i++) key[i] = (nibbles[2 * i]! << 4) | nibbles[2 * i + 1]!
  return key
}

function keyNibbles(key: Uint8Array): number[] {
  const out: number[] = []
  for (const b of key) out.push(b >> 4, b & 0x0f)
  return out
}

/**
 * Compares `path` with the bound's nibbles of the same positions from `depth`: -1 below, 0 equal
 * (the bound still applies further down), 1 above (it no longer does).
 */
function compareToBound(path: number[], bound: number[], depth: number): number {
  for (let i = 0; i < path.length; i++) {
    const b = bound[depth + i]!
    if (path[i] !== b) return path[i]! < b ? -1 : 1
  }
  return 0
}

/** The leaves (hashed key, value) of the trie at `root` whose key is at or after `from` (32 bytes), in order. */
export function* walkLeaves(db: Database, root: Uint8Array, from?: Uint8Array): Generator<[Uint8Array, Uint8Array]> {
  if (equalBytes(root, KECCAK256_RLP)) return
  yield* walkNode(db, loadNode(db, root), [], from ? keyNibbles(from) : undefined)
}

function* walkNode(db: Database, node: Node, prefix: number[], bound: number[] | undefined): Generator<[Uint8Array, Uint8Array]> {
  if (node.length === BRANCH_ITEMS) {
    // Keys are hashed, all of one length: a branch never holds a value, only children.
    const depth = prefix.length
    for (let i = 0; i < 16; i++) {
      const child = node[i]!
      if (child instanceof Uint8Array && child.length === 0) continue
      if (bound && i < bound[depth]!) continue
      const childBound = bound && i === bound[depth] ? bound : undefined
      yield* walkNode(db, loadNode(db, child), [...prefix, i], childBound)
    }
    return
  }
  const [encoded, rest] = node
  if (node.length !== 2 || !(encoded instanceof Uint8Array) || encoded.length === 0) throw new Error('flat state: malformed trie node')
  const path = pathNibbles(encoded)
  let childBound = bound
  if (bound) {
    const c = compareToBound(path, bound, prefix.length)
    if (c < 0) return
    if (c > 0) childBound = undefined
  }
  const full = [...prefix, ...path]
  if (encoded[0]! & LEAF_FLAG) {
    if (full.length !== KEY_NIBBLES || !(rest instanceof Uint8Array)) throw new Error('flat state: malformed trie leaf')
    yield [nibblesToKey(full), rest]
    return
  }
  yield* walkNode(db, loadNode(db, rest!), full, childBound)
}

/** The flat records of the state at `root` after the flat key `after` (exclusive; empty: from the start), in key order. */
export function* walkFlat(db: Database, root: Uint8Array, after: Uint8Array): Generator<[Uint8Array, Uint8Array]> {
  const resumeAccount = after.length >= ACCOUNT_KEY_BYTES ? after.subarray(0, ACCOUNT_KEY_BYTES) : undefined
  for (const [addressHash, account] of walkLeaves(db, root, resumeAccount)) {
    let slotsFrom: Uint8Array | undefined
    let slotsAfter: Uint8Array | undefined
    if (resumeAccount && equalBytes(addressHash, resumeAccount)) {
      // The account itself is done; its slots are done up to the bound's slot, if any.
      if (after.length === SLOT_KEY_BYTES) slotsFrom = slotsAfter = after.subarray(ACCOUNT_KEY_BYTES)
    } else {
      yield [addressHash, account]
    }
    const storageRoot = storageRootOf(account)
    for (const [slotHash, value] of walkLeaves(db, storageRoot, slotsFrom)) {
      if (slotsAfter && equalBytes(slotHash, slotsAfter)) continue
      const key = new Uint8Array(SLOT_KEY_BYTES)
      key.set(addressHash)
      key.set(slotHash, ACCOUNT_KEY_BYTES)
      yield [key, value]
    }
  }
}
