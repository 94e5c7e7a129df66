/** Collects the parts of a proposed block as they arrive (CometBFT `NewPartSetFromHeader` + `AddPart`). */
import { concatBytes } from '../../primitives/hex.js'
import { checkPart, MAX_BLOCK_PARTS, type Part } from './part-set.js'
import type { PartSetHeader } from './types.js'

/** Verified parts of one PartSetHeader, indexed by part number, until all have arrived. */
export class PartSetAssembler {
  private readonly parts: (Uint8Array | undefined)[]
  private received = 0
  private byteSize = 0

  constructor(readonly header: PartSetHeader) {
    if (header.total <= 0 || header.total > MAX_BLOCK_PARTS) throw new Error(`invalid part set total ${header.total}`)
    this.parts = new Array<Uint8Array | undefined>(header.total)
  }

  /** Adds a part: false when it is already there; throws with the reason when it does not fit the header. */
  addPart(part: Part): boolean {
    const reason = checkPart(this.header, part)
    if (reason) throw new Error(reason)
    if (this.parts[part.index]) return false
    this.parts[part.index] = part.bytes
    this.received++
    this.byteSize += part.bytes.length
    return true
  }

  hasPart(index: number): boolean {
    return this.parts[index] !== undefined
  }

  /** Number of parts received so far. */
  get count(): number {
    return this.received
  }

  /** Total bytes received so far. */
  get size(): number {
    return this.byteSize
  }

  isComplete(): boolean {
    return this.received === this.header.total
  }

  /** The reassembled block bytes; throws while parts are missing. */
  bytes(): Uint8Array {
    if (!this.isComplete()) throw new Error(`part set incomplete: ${this.received}/${this.header.total}`)
    return concatBytes(...(this.parts as Uint8Array[]))
  }
}
