/**
 * Cuts length-prefixed frames (an unsigned varint length, then that many bytes: the framing of
 * `it-length-prefixed`, which the sending side writes) out of the chunks a stream delivers, however the
 * chunks split them. A frame is a view into the chunk that completed it; the chunks of a frame that
 * spans several are joined once, when its last one arrives.
 */
import { concatBytes } from '../primitives/hex.js'

/** A varint of more bytes than this encodes a length no frame can have (2^35 bytes). */
const MAX_LENGTH_BYTES = 5

export class FrameReader {
  /** Chunks holding the start of a frame not yet complete. */
  private pending: Uint8Array[] = []
  private pendingBytes = 0
  /** Bytes the incomplete frame needs in all, its prefix included (0 while its prefix is incomplete). */
  private needed = 0

  /** `maxFrameBytes`: a longer frame throws (the peer is then disconnected). */
  constructor(private readonly maxFrameBytes: number) {}

  /** The frames `chunk` completes, in order; throws on a length prefix over the limit. */
  push(chunk: Uint8Array): Uint8Array[] {
    let bytes = chunk
    if (this.pending.length > 0) {
      this.pending.push(chunk)
      this.pendingBytes += chunk.length
      if (this.pendingBytes < this.needed) return []
      bytes = concatBytes(...this.pending)
      this.pending = []
    }
    const frames: Uint8Array[] = []
    let at = 0
    let prefix = this.readLength(bytes, at)
    while (prefix !== undefined && bytes.length - prefix.start >= prefix.length) {
      frames.push(bytes.subarray(prefix.start, prefix.start + prefix.length))
      at = prefix.start + prefix.length
      prefix = this.readLength(bytes, at)
    }
    if (at < bytes.length) {
      this.pending = [bytes.subarray(at)]
      this.pendingBytes = bytes.length - at
      this.needed = prefix === undefined ? 0 : prefix.start - at + prefix.length
    }
    return frames
  }

  /** The length at `at` and where its frame starts; undefined while the prefix is incomplete. */
  private readLength(bytes: Uint8Array, at: number): { length: number; start: number } | undefined {
    let length = 0
    for (let i = 0; i < MAX_LENGTH_BYTES; i++) {
      if (at + i >= bytes.length) return undefined
      const byte = bytes[at + i]!
      length += (byte & 0x7f) * 2 ** (7 * i)
      if (byte < 0x80) {
        if (length > this.maxFrameBytes) throw new Error(`message length too long: ${length} bytes (at most ${this.maxFrameBytes})`)
        return { length, start: at + i + 1 }
      }
    }
    throw new Error('message length prefix too long')
  }
}
