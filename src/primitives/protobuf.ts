/**
 * A minimal protobuf writer and reader with the proto3/gogoproto rules CometBFT's generated code follows
 * (gogoproto over proto3): scalars left out when zero, bytes/strings left out when empty,
 * signed ints as sign-extended varints (a negative value is always 10 bytes), non-nullable messages always
 * emitted. Only the wire types CometBFT uses are supported.
 */

/** Protobuf wire types (varint, 64-bit, length-delimited, 32-bit). */
export const WireType = { Varint: 0, Fixed64: 1, Len: 2, Fixed32: 5 } as const

const U64_MASK = (1n << 64n) - 1n

/** Bytes of `n` (≥ 0) as an unsigned protobuf varint. */
export function uvarintSize(n: number): number {
  let size = 1
  while (n >= 0x80) {
    n = Math.floor(n / 0x80)
    size++
  }
  return size
}

/** Appends protobuf fields to a growable buffer; `finish()` returns the message body. */
export class ProtoWriter {
  private buf = new Uint8Array(64)
  private len = 0

  /** uint32/uint64/enum/bool varint; left out when zero. */
  uint(field: number, value: number | bigint): this {
    if (value === 0 || value === 0n) return this
    this.tag(field, WireType.Varint)
    this.varint(value)
    return this
  }

  /** int32/int64 varint (two's complement, so negatives take 10 bytes); left out when zero. */
  int(field: number, value: number | bigint): this {
    if (value === 0 || value === 0n) return this
    this.tag(field, WireType.Varint)
    this.varint(value)
    return this
  }

  /** sfixed64, 8 bytes little-endian; left out when zero (canonical height/round). */
  sfixed64(field: number, value: number | bigint): this {
    if (value === 0 || value === 0n) return this
    this.tag(field, WireType.Fixed64)
    this.ensure(8)
    new DataView(this.buf.buffer).setBigInt64(this.len, BigInt(value), true)
    this.len += 8
    return this
  }

  /** bytes field; left out when empty. */
  bytes(field: number, value: Uint8Array): this {
    if (value.length === 0) return this
    return this.lenDelimited(field, value)
  }

  /** string field; left out when empty. */
  string(field: number, value: string): this {
    if (value.length === 0) return this
    return this.lenDelimited(field, new TextEncoder().encode(value))
  }

  /** Length-delimited field emitted even when empty: repeated bytes elements, non-nullable messages. */
  lenDelimited(field: number, value: Uint8Array): this {
    this.tag(field, WireType.Len)
    this.varint(value.length)
    this.raw(value)
    return this
  }

  /** A non-nullable (gogoproto `nullable=false`) message field: always emitted. */
  message(field: number, body: Uint8Array): this {
    return this.lenDelimited(field, body)
  }

  /** A packed repeated varint field (proto3's default for repeated scalars); left out when empty. */
  packed(field: number, values: readonly (number | bigint)[]): this {
    if (values.length === 0) return this
    const body = new ProtoWriter()
    for (const v of values) body.varint(v)
    return this.lenDelimited(field, body.finish())
  }

  /** Raw bytes with no tag. */
  raw(value: Uint8Array): this {
    this.ensure(value.length)
    this.buf.set(value, this.len)
    this.len += value.length
    return this
  }

  /** Unsigned varint of a number or bigint; negatives are taken as 64-bit two's complement. */
  varint(value: number | bigint): this {
    if (typeof value === 'number' && value >= 0 && Number.isSafeInteger(value)) {
      this.ensure(8)
      let v = value
      while (v >= 0x80) {
        this.buf[this.len++] = (v % 0x80) | 0x80
        v = Math.floor(v / 0x80)
      }
      this.buf[this.len++] = v
      return this
    }
    let v = BigInt(value) & U64_MASK
    this.ensure(10)
    while (v >= 0x80n) {
      this.buf[this.len++] = Number(v & 0x7fn) | 0x80
      v >>= 7n
    }
    this.buf[this.len++] = Number(v)
    return this
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.len)
  }

  private tag(field: number, wire: number): void {
    this.varint(field * 8 + wire)
  }

  private ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return
    let size = this.buf.length * 2
    while (size < this.len + extra) size *= 2
    const next = new Uint8Array(size)
    next.set(this.buf.subarray(0, this.len))
    this.buf = next
  }
}

/** Wraps a finished sub-message into a length-delimited frame (`protoio.MarshalDelimited`). */
export function marshalDelimited(body: Uint8Array): Uint8Array {
  return new ProtoWriter().varint(body.length).raw(body).finish()
}

/**
 * Reads fields in order: `while (r.next()) switch (r.field) { case 1: x = r.bytes(); break; default: r.skip() }`.
 * Every typed read checks the wire type of the current field; truncated input throws.
 */
export class ProtoReader {
  private pos = 0
  /** Field number of the current field. */
  field = 0
  /** Wire type of the current field. */
  wire = 0

  private readonly buf: Uint8Array

  constructor(buf: Uint8Array) {
    // A Node Buffer (what LevelDB hands back) would make `slice` return views into the input, not copies.
    this.buf = buf.constructor === Uint8Array ? buf : new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)
  }

  /** Advances to the next field; false at the end of the message. */
  next(): boolean {
    if (this.pos >= this.buf.length) return false
    const key = this.readVarintNumber()
    this.field = Math.floor(key / 8)
    this.wire = key % 8
    if (this.field === 0) throw new Error('protobuf: invalid field number 0')
    return true
  }

  /** uint64 / uint32 / enum / bool as bigint. */
  uint64(): bigint {
    this.expect(WireType.Varint)
    return this.readVarint()
  }

  /** uint32 or enum as a number (the low 32 bits, as Go truncates). */
  uint32(): number {
    return Number(this.uint64() & 0xffffffffn)
  }

  /** int64 as bigint. */
  int64(): bigint {
    return BigInt.asIntN(64, this.uint64())
  }

  /** int64 as a JS number (heights, seconds); throws when it is not a safe integer. */
  int64Number(): number {
    const v = this.int64()
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new Error(`protobuf: int64 ${v} of field ${this.field} is out of the safe integer range`)
    }
    return Number(v)
  }

  /** int32 (the low 32 bits of the varint, sign-extended). */
  int32(): number {
    return Number(BigInt.asIntN(32, this.uint64()))
  }

  sfixed64(): bigint {
    this.expect(WireType.Fixed64)
    this.need(8)
    const v = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength).getBigInt64(this.pos, true)
    this.pos += 8
    return v
  }

  /** A length-delimited field as a fresh copy (also used for sub-messages). */
  bytes(): Uint8Array {
    this.expect(WireType.Len)
    const n = this.readVarintNumber()
    this.need(n)
    const out = this.buf.slice(this.pos, this.pos + n)
    this.pos += n
    return out
  }

  string(): string {
    return new TextDecoder('utf-8', { fatal: true }).decode(this.bytes())
  }

  /**
   * The elements of a repeated varint field at the current position: a packed run (length-delimited) or one
   * unpacked element, since a parser must accept both encodings.
   */
  repeatedUint64(): bigint[] {
    if (this.wire === WireType.Varint) return [this.readVarint()]
    const body = new ProtoReader(this.bytes())
    const out: bigint[] = []
    while (body.pos < body.buf.length) out.push(body.readVarint())
    return out
  }

  /** Skips the current field (unknown fields are ignored, as protobuf requires). */
  skip(): void {
    switch (this.wire) {
      case WireType.Varint:
        this.readVarint()
        return
      case WireType.Fixed64:
        this.need(8)
        this.pos += 8
        return
      case WireType.Len: {
        const n = this.readVarintNumber()
        this.need(n)
        this.pos += n
        return
      }
      case WireType.Fixed32:
        this.need(4)
        this.pos += 4
        return
      default:
        throw new Error(`protobuf: unsupported wire type ${this.wire} (field ${this.field})`)
    }
  }

  private expect(wire: number): void {
    if (this.wire !== wire) throw new Error(`protobuf: field ${this.field} has wire type ${this.wire}, expected ${wire}`)
  }

  private need(n: number): void {
    if (this.pos + n > this.buf.length) throw new Error('protobuf: unexpected end of input')
  }

  private readVarint(): bigint {
    let result = 0n
    let shift = 0n
    for (let i = 0; i < 10; i++) {
      this.need(1)
      const b = this.buf[this.pos++]!
      result |= BigInt(b & 0x7f) << shift
      if (b < 0x80) return result & U64_MASK
      shift += 7n
    }
    throw new Error('protobuf: varint longer than 10 bytes')
  }

  /** A varint known to be small (keys, lengths): number arithmetic, rejects values above 2^53. */
  private readVarintNumber(): number {
    let result = 0
    let mul = 1
    for (let i = 0; i < 8; i++) {
      this.need(1)
      const b = this.buf[this.pos++]!
      result += (b & 0x7f) * mul
      if (b < 0x80) return result
      mul *= 0x80
    }
    throw new Error('protobuf: length or key varint too large')
  }
}
