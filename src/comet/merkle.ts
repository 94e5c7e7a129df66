/**
 * RFC-6962 Merkle trees as CometBFT's `crypto/merkle`: leaf SHA256(0x00 ‖ item), inner
 * SHA256(0x01 ‖ left ‖ right), split at the largest power of two below n, the empty tree SHA256("").
 */
import { sha256 } from '../crypto/index.js'
import { equalBytes } from '../primitives/hex.js'

/** `merkle.Proof`: aunts ordered from the leaf's sibling up to the child of the root. */
export interface MerkleProof {
  total: number
  index: number
  leafHash: Uint8Array
  aunts: Uint8Array[]
}

/** RFC-6962 domain separation prefixes (`crypto/merkle/hash.go`). */
const LEAF_PREFIX = 0x00
const INNER_PREFIX = 0x01
/** `Proof.ValidateBasic`: a proof may carry at most 100 aunts (`MaxAunts`). */
export const MAX_AUNTS = 100
const HASH_SIZE = 32

/** Root of the tree over `items` (leaf = SHA256(0x00‖item), inner = SHA256(0x01‖l‖r), empty = SHA256("")). */
export function merkleRoot(items: Uint8Array[]): Uint8Array {
  if (items.length === 0) return sha256(new Uint8Array(0))
  const leaves = items.map(leafHash)
  const root = (lo: number, hi: number): Uint8Array => {
    if (hi - lo === 1) return leaves[lo]!
    const k = splitPoint(hi - lo)
    return innerHash(root(lo, lo + k), root(lo + k, hi))
  }
  return root(0, leaves.length)
}

/** Root and one proof per item. */
export function merkleProofs(items: Uint8Array[]): { root: Uint8Array; proofs: MerkleProof[] } {
  if (items.length === 0) return { root: sha256(new Uint8Array(0)), proofs: [] }
  const leaves = items.map(leafHash)
  const aunts: Uint8Array[][] = leaves.map(() => [])
  // Sub-trees finish bottom-up, so each leaf collects its aunts deepest first.
  const root = (lo: number, hi: number): Uint8Array => {
    if (hi - lo === 1) return leaves[lo]!
    const k = splitPoint(hi - lo)
    const left = root(lo, lo + k)
    const right = root(lo + k, hi)
    for (let i = lo; i < lo + k; i++) aunts[i]!.push(right)
    for (let i = lo + k; i < hi; i++) aunts[i]!.push(left)
    return innerHash(left, right)
  }
  const rootHash = root(0, leaves.length)
  const proofs = leaves.map((leaf, index) => ({ total: leaves.length, index, leafHash: leaf, aunts: aunts[index]! }))
  return { root: rootHash, proofs }
}

/** Verifies that `item` is at `proof.index` of the tree with root `root` (`Proof.Verify`). */
export function verifyMerkleProof(root: Uint8Array, item: Uint8Array, proof: MerkleProof): boolean {
  if (proof.total < 0 || proof.index < 0) return false
  if (!equalBytes(leafHash(item), proof.leafHash)) return false
  const computed = hashFromAunts(proof.index, proof.total, proof.leafHash, proof.aunts)
  return computed !== undefined && equalBytes(computed, root)
}

/** `Proof.ValidateBasic`: 32-byte leaf hash and aunts, at most 100 aunts, non-negative total/index. */
export function validateMerkleProof(proof: MerkleProof): string | undefined {
  if (proof.total < 0) return 'negative proof total'
  if (proof.index < 0) return 'negative proof index'
  if (proof.leafHash.length !== HASH_SIZE) return `expected leaf hash size to be ${HASH_SIZE}, got ${proof.leafHash.length}`
  if (proof.aunts.length > MAX_AUNTS) return `expected no more than ${MAX_AUNTS} aunts, got ${proof.aunts.length}`
  for (let i = 0; i < proof.aunts.length; i++) {
    if (proof.aunts[i]!.length !== HASH_SIZE) return `expected aunts#${i} size to be ${HASH_SIZE}, got ${proof.aunts[i]!.length}`
  }
  return undefined
}

/** SHA256(0x00 ‖ item). */
export function leafHash(item: Uint8Array): Uint8Array {
  const buf = new Uint8Array(1 + item.length)
  buf[0] = LEAF_PREFIX
  buf.set(item, 1)
  return sha256(buf)
}

/** SHA256(0x01 ‖ left ‖ right). */
export function innerHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  const buf = new Uint8Array(1 + left.length + right.length)
  buf[0] = INNER_PREFIX
  buf.set(left, 1)
  buf.set(right, 1 + left.length)
  return sha256(buf)
}

/** The largest power of two strictly less than n (`getSplitPoint`), for n ≥ 2. */
export function splitPoint(n: number): number {
  if (n < 2) throw new Error('merkle: split point needs at least 2 items')
  let k = 1
  while (k * 2 < n) k *= 2
  return k
}

/** `computeHashFromAunts`: the last aunt is the sibling at the current (highest) level. */
function hashFromAunts(index: number, total: number, leaf: Uint8Array, aunts: Uint8Array[]): Uint8Array | undefined {
  if (index >= total || index < 0 || total <= 0) return undefined
  if (total === 1) return aunts.length === 0 ? leaf : undefined
  if (aunts.length === 0) return undefined
  const k = splitPoint(total)
  const sibling = aunts[aunts.length - 1]!
  const rest = aunts.slice(0, -1)
  if (index < k) {
    const left = hashFromAunts(index, k, leaf, rest)
    return left && innerHash(left, sibling)
  }
  const right = hashFromAunts(index - k, total - k, leaf, rest)
  return right && innerHash(sibling, right)
}
