/**
 * A block's part set being received or sent (CometBFT `types.PartSet` as used by consensus:
 * `NewPartSetFromHeader` then `AddPart` with each part's Merkle proof checked against the header).
 */
import { verifyPart, type PartSet } from '../comet/part-set.js'
import type { Part } from '../comet/types.js'
import type { PartSetHeader } from '../comet/types.js'
import { concatBytes, equalBytes } from '../primitives/hex.js'

export class BlockParts {
  private readonly parts: (Part | undefined)[]
  private received = 0
  private bytes = 0

  private constructor(readonly header: PartSetHeader) {
    this.parts = new Array<Part | undefined>(header.total).fill(undefined)
  }

  /** An empty set waiting for the parts of `header`. */
  static fromHeader(header: PartSetHeader): BlockParts {
    return new BlockParts(header)
  }

  /** A complete set (our own proposal, or a block loaded from the store). */
  static fromPartSet(partSet: PartSet): BlockParts {
    const set = new BlockParts(partSet.header)
    for (const p of partSet.parts) set.addPart(p)
    return set
  }

  get total(): number {
    return this.header.total
  }

  get count(): number {
    return this.received
  }

  get byteSize(): number {
    return this.bytes
  }

  hasHeader(header: PartSetHeader): boolean {
    return this.header.total === header.total && equalBytes(this.header.hash, header.hash)
  }

  /** False when the part is already there; throws on a bad index or proof. */
  addPart(part: Part): boolean {
    if (!Number.isInteger(part.index) || part.index < 0 || part.index >= this.header.total)
      throw new Error(`error part set unexpected index ${part.index}`)
    if (this.parts[part.index]) return false
    if (!verifyPart(this.header, part)) throw new Error('error part set invalid proof')
    this.parts[part.index] = part
    this.received++
    this.bytes += part.bytes.length
    return true
  }

  getPart(index: number): Part | undefined {
    return this.parts[index]
  }

  isComplete(): boolean {
    return this.received === this.header.total
  }

  /** Which parts are present (CometBFT's part bit array). */
  bitArray(): boolean[] {
    return this.parts.map((p) => p !== undefined)
  }

  /** The reassembled block bytes; throws when incomplete. */
  assemble(): Uint8Array {
    if (!this.isComplete()) throw new Error('part set is not complete')
    return concatBytes(...this.parts.map((p) => p!.bytes))
  }
}
