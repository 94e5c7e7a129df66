/**
 * Root of a Merkle-Patricia trie keyed by RLP(index) without key hashing: the `transactionsRoot` and
 * `receiptsRoot` of a block (geth `types.DeriveSha`, ethereumjs `runBlock`). Built in one synchronous
 * pass over the sorted keys (as geth's StackTrie does) instead of inserting node by node.
 */
import { RLP } from '@ethereumjs/rlp'
import { keccak256 } from '../../crypto/index.js'
import { compareBytes } from '../../primitives/hex.js'

type Node = Uint8Array | Node[]

/** Root of the empty trie: keccak256(RLP("")) = 0x56e81f…b421. */
export const EMPTY_TRIE_ROOT = keccak256(RLP.encode(new Uint8Array(0)))

interface Entry {
  nibbles: Uint8Array
  value: Uint8Array
}

/** A trie key's nibbles, high first (no hex-prefix terminator). */
export function toNibbles(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2)
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i]! >> 4
    out[2 * i + 1] = key[i]! & 0x0f
  }
  return out
}

/** Hex-prefix encoding of a nibble path (Yellow Paper appendix C). */
function hexPrefix(path: Uint8Array, leaf: boolean): Uint8Array {
  const odd = path.length % 2 === 1
  const out = new Uint8Array(Math.floor(path.length / 2) + 1)
  const flag = (leaf ? 2 : 0) + (odd ? 1 : 0)
  let i = 0
  if (odd) {
    out[0] = (flag << 4) | path[0]!
    i = 1
  } else {
    out[0] = flag << 4
  }
  for (let o = 1; i < path.length; i += 2, o++) out[o] = (path[i]! << 4) | path[i + 1]!
  return out
}

/** A child reference: the node itself when its encoding is shorter than 32 bytes, else its hash. */
function ref(node: Node[]): Node {
  const encoded = RLP.encode(node as never)
  return encoded.length < 32 ? node : keccak256(encoded)
}

function build(entries: Entry[], depth: number): Node[] {
  const first = entries[0]!
  if (entries.length === 1) return [hexPrefix(first.nibbles.subarray(depth), true), first.value]
  const last = entries[entries.length - 1]!
  let common = 0
  const max = Math.min(first.nibbles.length, last.nibbles.length) - depth
  while (common < max && first.nibbles[depth + common] === last.nibbles[depth + common]) common++
  if (common > 0) return [hexPrefix(first.nibbles.subarray(depth, depth + common), false), ref(branch(entries, depth + common))]
  return branch(entries, depth)
}

function branch(entries: Entry[], depth: number): Node[] {
  const slots: Node[] = Array.from({ length: 17 }, () => new Uint8Array(0))
  let i = 0
  if (entries[0]!.nibbles.length === depth) {
    slots[16] = entries[0]!.value
    i = 1
  }
  while (i < entries.length) {
    const nibble = entries[i]!.nibbles[depth]!
    let j = i + 1
    while (j < entries.length && entries[j]!.nibbles[depth] === nibble) j++
    slots[nibble] = ref(build(entries.slice(i, j), depth + 1))
    i = j
  }
  return slots
}

/** Root of the trie mapping each key to its value (keys must be distinct). */
export function trieRoot(pairs: readonly [Uint8Array, Uint8Array][]): Uint8Array {
  if (pairs.length === 0) return EMPTY_TRIE_ROOT
  const sorted = [...pairs].sort((a, b) => compareBytes(a[0], b[0]))
  const entries = sorted.map(([k, v]) => ({ nibbles: toNibbles(k), value: v }))
  return keccak256(RLP.encode(build(entries, 0) as never))
}

/** Root of the trie of `values` keyed by RLP(index): transactionsRoot / receiptsRoot. */
export function orderedTrieRoot(values: readonly Uint8Array[]): Uint8Array {
  return trieRoot(values.map((v, i) => [RLP.encode(i), v]))
}
