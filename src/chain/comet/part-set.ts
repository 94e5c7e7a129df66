/** Block part sets: block bytes split into 65,536-byte parts with Merkle proofs (types/part_set.go). */
import type { MerkleProof } from './merkle.js'
import type { Block, BlockID, PartSetHeader } from './types.js'

export interface Part {
  index: number
  bytes: Uint8Array
  proof: MerkleProof
}

export interface PartSet {
  header: PartSetHeader
  parts: Part[]
}

/** Splits encoded block bytes into parts and computes the PartSetHeader. */
export function makePartSet(blockBytes: Uint8Array): PartSet {
  throw new Error('not implemented')
}

/** BlockID of a block: header hash + part set header of its protobuf encoding. Also returns the encoded bytes. */
export function makeBlockId(block: Block): { blockId: BlockID; bytes: Uint8Array; partSet: PartSet } {
  throw new Error('not implemented')
}

/** Checks a part's proof against the header and reassembles when complete. */
export function verifyPart(header: PartSetHeader, part: Part): boolean {
  throw new Error('not implemented')
}

export function zeroBlockId(): BlockID {
  return { hash: new Uint8Array(0), partSetHeader: { total: 0, hash: new Uint8Array(0) } }
}

export function isZeroBlockId(id: BlockID): boolean {
  return id.hash.length === 0 && id.partSetHeader.total === 0 && id.partSetHeader.hash.length === 0
}

export function blockIdEquals(a: BlockID, b: BlockID): boolean {
  throw new Error('not implemented')
}

/** A stable string key for maps of BlockIDs (`BlockID.Key()`). */
export function blockIdKey(id: BlockID): string {
  throw new Error('not implemented')
}
