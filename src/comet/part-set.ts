/** Block part sets: block bytes split into 65,536-byte parts with Merkle proofs (types/part_set.go). */
import { bytesToHex, equalBytes } from '../primitives/hex.js'
import { encodeBlock, encodePartSetHeader } from './encoding.js'
import { hashHeader } from './hash.js'
import { merkleProofs, validateMerkleProof, verifyMerkleProof } from './merkle.js'
import { BLOCK_PART_SIZE_BYTES, type Block, type BlockID, type Part, type PartSetHeader } from './types.js'

/** A complete part set (the proposer's side). */
export interface PartSet {
  header: PartSetHeader
  parts: Part[]
}

/** Splits encoded block bytes into parts and computes the PartSetHeader. */
export function makePartSet(blockBytes: Uint8Array): PartSet {
  const chunks: Uint8Array[] = []
  for (let off = 0; off < blockBytes.length; off += BLOCK_PART_SIZE_BYTES) {
    chunks.push(blockBytes.slice(off, off + BLOCK_PART_SIZE_BYTES))
  }
  const { root, proofs } = merkleProofs(chunks)
  return {
    header: { total: chunks.length, hash: root },
    parts: chunks.map((bytes, index) => ({ index, bytes, proof: proofs[index]! })),
  }
}

/** BlockID of a block: header hash + part set header of its protobuf encoding. Also returns the encoded bytes. */
export function makeBlockId(block: Block): { blockId: BlockID; bytes: Uint8Array; partSet: PartSet } {
  const bytes = encodeBlock(block)
  const partSet = makePartSet(bytes)
  return { blockId: { hash: hashHeader(block.header), partSetHeader: partSet.header }, bytes, partSet }
}

/**
 * Checks a part against the header: index in range, proof well formed (`Part.ValidateBasic`: every part but
 * the last is exactly 65,536 bytes, none is larger) and its Merkle proof leads to the header's hash.
 */
export function verifyPart(header: PartSetHeader, part: Part): boolean {
  return checkPart(header, part) === undefined
}

/** The reason a part does not fit the header, or undefined when it does (see `verifyPart`). */
function checkPart(header: PartSetHeader, part: Part): string | undefined {
  if (!Number.isInteger(part.index) || part.index < 0 || part.index >= header.total) return `unexpected part index ${part.index}`
  if (part.bytes.length > BLOCK_PART_SIZE_BYTES) return `part too big: ${part.bytes.length} bytes`
  if (part.index < header.total - 1 && part.bytes.length !== BLOCK_PART_SIZE_BYTES)
    return `part ${part.index} is not ${BLOCK_PART_SIZE_BYTES} bytes`
  const invalid = validateMerkleProof(part.proof)
  if (invalid) return `invalid part proof: ${invalid}`
  if (part.proof.index !== part.index || part.proof.total !== header.total) return 'part proof index/total mismatch'
  if (!verifyMerkleProof(header.hash, part.bytes, part.proof)) return 'invalid part proof'
  return undefined
}

/** The zero BlockID of a nil vote. */
export function zeroBlockId(): BlockID {
  return { hash: new Uint8Array(0), partSetHeader: { total: 0, hash: new Uint8Array(0) } }
}

/** `BlockID.IsZero()`: empty hash, total 0 and empty part set hash. */
export function isZeroBlockId(id: BlockID): boolean {
  return id.hash.length === 0 && id.partSetHeader.total === 0 && id.partSetHeader.hash.length === 0
}

/** "Complete" BlockID (`BlockID.IsComplete`): 32-byte hash, total > 0, 32-byte part set hash. */
export function isCompleteBlockId(id: BlockID): boolean {
  return id.hash.length === 32 && id.partSetHeader.total > 0 && id.partSetHeader.hash.length === 32
}

/** `BlockID.Equals`: same hash, total and part set hash. */
export function blockIdEquals(a: BlockID, b: BlockID): boolean {
  return (
    equalBytes(a.hash, b.hash) && a.partSetHeader.total === b.partSetHeader.total && equalBytes(a.partSetHeader.hash, b.partSetHeader.hash)
  )
}

/**
 * A stable string key for maps of BlockIDs (`BlockID.Key()`): hex of hash ‖ PartSetHeader protobuf.
 * Lower-case hex keeps Go's byte-string order, so keys sort as CometBFT's do (evidence vote order).
 */
export function blockIdKey(id: BlockID): string {
  return bytesToHex(id.hash).slice(2) + bytesToHex(encodePartSetHeader(id.partSetHeader)).slice(2)
}
