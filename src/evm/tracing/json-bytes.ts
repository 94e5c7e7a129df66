/**
 * A trace answer kept as UTF-8 JSON bytes rather than as objects: the struct logger serialises each
 * entry when the next opcode arrives (geth keeps `[]json.RawMessage` the same way since
 * go-ethereum#30806), so tracing holds about the answer's size in memory instead of a JS object, an
 * array and a string per stack word for every step, and nothing serialises the whole answer at once on
 * the event loop. Measured with scripts/measure-trace-memory.mjs on a 25,000,000-gas loop (6.25
 * million steps, a 448 MB answer), as objects: 36 s, 4.36 GB peak RSS, 14 s without a block; as bytes
 * with no cap: 9-10 s, 1.0 GB peak, under 1 s without a block, 162 MB a minute later; under the
 * default cap, refused after 0.7 s at 165 MB peak.
 */
import type { TraceBudget } from './trace-budget.js'

/** First chunk of a writer: a small trace (most transactions of a block) stays small. */
const FIRST_CHUNK_BYTES = 4 * 1024
/**
 * Chunks double up to this. Past 32 MiB, the most glibc's malloc raises its mmap threshold to
 * (M_MMAP_THRESHOLD's dynamic maximum on 64-bit), every chunk is a mapping of its own, handed back to
 * the system when freed; smaller ones land in malloc's heap, which keeps them: with 256 KiB chunks, RSS
 * stayed at 574 MB a minute after a 448 MB answer, with these it fell to 162 MB. Pages of a chunk that
 * are never written are never resident.
 */
const MAX_CHUNK_BYTES = 64 * 1024 * 1024
/** Most UTF-8 bytes one UTF-16 code unit of a JS string can become. */
const MAX_UTF8_PER_UNIT = 3

/** JSON text as UTF-8 chunks, in order (a finished writer's output; the chunks are not copied again). */
export class JsonBytes {
  constructor(
    readonly chunks: readonly Uint8Array[],
    readonly byteLength: number,
  ) {}

  /** The JSON text (tests, small answers). */
  toString(): string {
    return Buffer.concat(this.chunks).toString('utf8')
  }
}

/** Appends JSON text to growing byte chunks, counting every byte against a budget as it is written. */
export class JsonBytesWriter {
  private readonly chunks: Uint8Array[] = []
  private chunk: Buffer = Buffer.allocUnsafeSlow(FIRST_CHUNK_BYTES)
  private at = 0
  private total = 0

  constructor(private readonly budget: TraceBudget | undefined) {}

  /** Bytes written so far. */
  get byteLength(): number {
    return this.total
  }

  /** Appends `text`; throws TraceTooLargeError once the budget is spent. */
  write(text: string): void {
    const room = text.length * MAX_UTF8_PER_UNIT
    if (this.at + room > this.chunk.length) this.nextChunk(room)
    const n = this.chunk.write(text, this.at, 'utf8')
    this.at += n
    this.total += n
    this.budget?.take(n)
  }

  /** `head`, what was written, then `tail`: the finished JSON. The writer is not used after. */
  finish(head: string, tail: string): JsonBytes {
    const headBytes = Buffer.from(head, 'utf8')
    const tailBytes = Buffer.from(tail, 'utf8')
    this.budget?.take(headBytes.length + tailBytes.length)
    this.seal()
    return new JsonBytes([headBytes, ...this.chunks, tailBytes], headBytes.length + this.total + tailBytes.length)
  }

  private nextChunk(room: number): void {
    this.seal()
    const size = Math.max(room, Math.min(MAX_CHUNK_BYTES, this.chunk.length * 2))
    this.chunk = Buffer.allocUnsafeSlow(size)
    this.at = 0
  }

  /** Keeps the filled part of the current chunk; a mostly empty one is copied so its slack is freed. */
  private seal(): void {
    if (this.at === 0) return
    const filled = this.chunk.subarray(0, this.at)
    this.chunks.push(this.at < this.chunk.length / 2 ? Buffer.copyBytesFrom(filled) : filled)
    this.at = 0
  }
}
