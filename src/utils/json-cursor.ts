/**
 * A forward reader of JSON text too big to parse at once (a genesis.json of a million accounts is over
 * 200 MB, and JSON.parse makes some 850 MB of objects of it): it holds a window of the bytes, skips
 * values without building them (finding the ends of strings with a native byte search), and parses only
 * the small values it is asked for, with JSON.parse. Offsets are absolute, from the start of the source.
 *
 * Reads of one small value are synchronous: one that runs past the window throws {@link NEED_MORE},
 * which {@link JsonCursor.attempt} turns into "put the position back; fill the window, then try again".
 */
import type { FileHandle } from 'node:fs/promises'
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, isJsonSpace, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-chars.js'

/** Bytes read from a file at a time (the window grows when one value does not fit). */
const WINDOW_BYTES = 4 * 2 ** 20
/** What a run of small reads wants ahead in the window before it starts (see {@link JsonCursor.low}), at most half the window. */
const LOOKAHEAD_BYTES = 64 * 2 ** 10

/** Thrown by a synchronous read that ran past the window before the end of the source. */
export const NEED_MORE: unique symbol = Symbol('json cursor: more bytes needed')

/** The text is not JSON; `offset` is where the reader found out. */
export class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    reason: string,
  ) {
    super(`${reason} at byte ${offset}`)
    this.name = 'JsonSyntaxError'
  }
}

/** Reads `length` bytes at `position` of the source into `into` from `offset`; resolves to the count read (0 at its end). */
type ReadAt = (into: Buffer, offset: number, length: number, position: number) => Promise<number>

export class JsonCursor {
  /** Index of the next byte in `buf`. */
  private pos = 0
  /** Bytes of `buf` that hold the source. */
  private end: number
  /** Whether `buf` holds the source up to its end. */
  private atEnd: boolean
  private readonly lookahead: number

  private constructor(
    private buf: Buffer,
    /** Absolute offset of buf[0]. */
    private base: number,
    /** Absolute offset where the source ends. */
    private readonly limit: number,
    private readonly readAt: ReadAt | undefined,
  ) {
    this.end = readAt ? 0 : buf.length
    this.atEnd = readAt === undefined
    this.lookahead = Math.min(LOOKAHEAD_BYTES, buf.length >> 1)
  }

  /** A cursor over bytes in memory. */
  static fromBytes(bytes: Uint8Array): JsonCursor {
    return new JsonCursor(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 0, bytes.byteLength, undefined)
  }

  /** A cursor over bytes [start, end) of an open file, read `windowBytes` at a time (tests take a few bytes, to cross every token). */
  static fromFile(file: FileHandle, start: number, end: number, windowBytes = WINDOW_BYTES): JsonCursor {
    const readAt: ReadAt = async (into, offset, length, position) => (await file.read(into, offset, length, position)).bytesRead
    return new JsonCursor(Buffer.allocUnsafe(Math.max(Math.min(windowBytes, end - start), 2)), start, end, readAt)
  }

  /** Absolute offset of the next byte. */
  get offset(): number {
    return this.base + this.pos
  }

  /** True when fewer bytes than a run of small reads wants are ahead and more can be read: call {@link fill}. */
  get low(): boolean {
    return !this.atEnd && this.end - this.pos < this.lookahead
  }

  /** Reads more of the source into the window (dropping the bytes before the position, growing it when full); false at the end. */
  async fill(): Promise<boolean> {
    if (this.atEnd) return false
    if (this.pos > 0) {
      this.buf.copyWithin(0, this.pos, this.end)
      this.base += this.pos
      this.end -= this.pos
      this.pos = 0
    }
    if (this.end === this.buf.length) {
      const bigger = Buffer.allocUnsafe(this.buf.length * 2)
      this.buf.copy(bigger, 0, 0, this.end)
      this.buf = bigger
    }
    const want = Math.min(this.buf.length - this.end, this.limit - (this.base + this.end))
    const got = want > 0 ? await this.readAt!(this.buf, this.end, want, this.base + this.end) : 0
    this.end += got
    if (got === 0 || this.base + this.end >= this.limit) this.atEnd = true
    return true
  }

  /**
   * Runs a synchronous read. When it ran past the window, the position goes back to where it was and
   * NEED_MORE is returned: {@link fill}, then run it again.
   */
  attempt<T>(read: () => T): T | typeof NEED_MORE {
    const at = this.pos
    try {
      return read()
    } catch (err) {
      if (err !== NEED_MORE) throw err
      this.pos = at
      return NEED_MORE
    }
  }

  /** Runs a synchronous read, filling the window until it fits. */
  async read<T>(read: () => T): Promise<T> {
    for (;;) {
      const value = this.attempt(read)
      if (value !== NEED_MORE) return value
      await this.fill()
    }
  }

  /** The next byte that is not whitespace (not consumed). */
  peek(): number {
    const buf = this.buf
    let i = this.pos
    while (i < this.end) {
      const c = buf[i]!
      if (!isJsonSpace(c)) {
        this.pos = i
        return c
      }
      i++
    }
    this.pos = i
    return this.more()
  }

  /** Consumes `byte` (after whitespace), or fails naming `what` was wanted. */
  expect(byte: number, what: string): void {
    if (this.peek() !== byte) throw this.error(`want ${what}`)
    this.pos++
  }

  /** Consumes a `,` or the closing `close`; true for the comma. */
  separator(close: number): boolean {
    const c = this.peek()
    if (c !== COMMA && c !== close) throw this.error(`want ',' or '${String.fromCharCode(close)}'`)
    this.pos++
    return c === COMMA
  }

  /** Reads an object key and its colon. */
  key(): string {
    if (this.peek() !== QUOTE) throw this.error('want a string key')
    const key = this.string()
    this.expect(COLON, "':'")
    return key
  }

  /** Reads a value: strings directly, anything else with JSON.parse of its text. */
  value(): unknown {
    if (this.peek() === QUOTE) return this.string()
    const start = this.pos
    this.skip()
    const text = this.buf.toString('utf8', start, this.pos)
    try {
      return JSON.parse(text)
    } catch (err) {
      throw new JsonSyntaxError(this.base + start, (err as Error).message)
    }
  }

  /** Skips a value that may be far bigger than the window, reading on as needed; returns its [start, end) offsets. */
  async skipLarge(): Promise<[number, number]> {
    const first = await this.read(() => this.peek())
    const start = this.offset
    if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
      await this.read(() => this.skip())
      return [start, this.offset]
    }
    let depth = 0
    let inString = false
    let escaped = false
    for (;;) {
      const buf = this.buf
      const end = this.end
      let i = this.pos
      while (i < end) {
        if (inString) {
          if (escaped) {
            escaped = false
            i++
            continue
          }
          const quote = this.findQuote(i)
          const run = backslashesBefore(buf, quote, i)
          if (quote === end) {
            escaped = run % 2 === 1
            i = end
          } else {
            inString = run % 2 === 1
            i = quote + 1
          }
          continue
        }
        const c = buf[i]!
        if (c === QUOTE) inString = true
        else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++
        else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
          depth--
          if (depth === 0) {
            this.pos = i + 1
            return [start, this.offset]
          }
        }
        i++
      }
      this.pos = end
      if (!(await this.fill())) throw this.error('unexpected end of JSON')
    }
  }

  /** Skips one value held in the window. */
  private skip(): void {
    const c = this.peek()
    if (c === QUOTE) {
      this.skipString()
      return
    }
    if (c !== OPEN_BRACE && c !== OPEN_BRACKET) {
      this.skipScalar()
      return
    }
    let depth = 0
    const buf = this.buf
    for (;;) {
      if (this.pos >= this.end) this.more()
      const b = buf[this.pos]!
      if (b === QUOTE) {
        this.skipString()
        continue
      }
      this.pos++
      if (b === OPEN_BRACE || b === OPEN_BRACKET) depth++
      else if ((b === CLOSE_BRACE || b === CLOSE_BRACKET) && --depth === 0) return
    }
  }

  /** A number or literal: up to the next delimiter. */
  private skipScalar(): void {
    const buf = this.buf
    let i = this.pos
    for (;;) {
      if (i >= this.end) {
        if (!this.atEnd) throw NEED_MORE
        break
      }
      const c = buf[i]!
      if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isJsonSpace(c)) break
      i++
    }
    if (i === this.pos) throw this.error('want a value')
    this.pos = i
  }

  /** Index of the closing quote of the string whose opening quote is at the position. */
  private stringEnd(): number {
    const open = this.pos + 1
    let i = open
    for (;;) {
      const quote = this.findQuote(i)
      if (quote === this.end) this.more()
      if (backslashesBefore(this.buf, quote, open) % 2 === 0) return quote
      i = quote + 1
    }
  }

  private skipString(): void {
    this.pos = this.stringEnd() + 1
  }

  /** Reads the string at the position (its opening quote). */
  private string(): string {
    const close = this.stringEnd()
    const start = this.pos
    this.pos = close + 1
    const text = this.buf.toString('utf8', start + 1, close)
    if (!text.includes('\\')) return text
    try {
      return JSON.parse(this.buf.toString('utf8', start, close + 1)) as string
    } catch (err) {
      throw new JsonSyntaxError(this.base + start, (err as Error).message)
    }
  }

  /** Index of the first quote at or after `from` in the window, or the window's end. */
  private findQuote(from: number): number {
    const quote = this.buf.indexOf(QUOTE, from)
    return quote < 0 || quote >= this.end ? this.end : quote
  }

  /** The window ended inside a value: more bytes are needed, or the text ends too soon. */
  private more(): never {
    if (!this.atEnd) throw NEED_MORE
    throw this.error('unexpected end of JSON')
  }

  private error(reason: string): JsonSyntaxError {
    return new JsonSyntaxError(this.offset, reason)
  }
}

/** The number of backslashes right before index `at`, not counting any before `from`. */
function backslashesBefore(buf: Buffer, at: number, from: number): number {
  let k = at - 1
  while (k >= from && buf[k] === BACKSLASH) k--
  return at - 1 - k
}
