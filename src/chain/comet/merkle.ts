/** RFC-6962 Merkle trees as CometBFT's `crypto/merkle` (see shared/reference/cometbft-hashing.md §1). */

/** `merkle.Proof`: aunts ordered from the leaf's sibling up to the child of the root. */
export interface MerkleProof {
  total: number
  index: number
  leafHash: Uint8Array
  aunts: Uint8Array[]
}

/** Root of the tree over `items` (leaf = SHA256(0x00‖item), inner = SHA256(0x01‖l‖r), empty = SHA256("")). */
export function merkleRoot(items: Uint8Array[]): Uint8Array {
  throw new Error('not implemented')
}

/** Root and one proof per item. */
export function merkleProofs(items: Uint8Array[]): { root: Uint8Array; proofs: MerkleProof[] } {
  throw new Error('not implemented')
}

/** Verifies that `item` is at `proof.index` of the tree with root `root`. */
export function verifyMerkleProof(root: Uint8Array, item: Uint8Array, proof: MerkleProof): boolean {
  throw new Error('not implemented')
}

export function leafHash(item: Uint8Array): Uint8Array {
  throw new Error('not implemented')
}

export function innerHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  throw new Error('not implemented')
}
