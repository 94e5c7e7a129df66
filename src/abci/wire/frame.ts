/**
 * The socket framing of ABCI: each message is an unsigned varint holding its byte length (Go's
 * `binary.PutUvarint`, CometBFT `protoio.NewDelimitedWriter`), then the protobuf bytes. A TCP read may hold
 * part of a message or several; `FrameReader` reassembles them.
 */
import { concatBytes } from '../../primitives/hex.js'
import { marshalDelimited } from '../../primitives/protobuf.js'

/** A uvarint of more bytes than this cannot be a length (Go's `binary.MaxVarintLen64`). */
const MAX_VARINT_BYTES = 10

/** The length prefix announces more than the reader accepts; the connection cannot continue. */
export class FrameTooLargeError extends Error {
  constructor(
    readonly length: number,
    readonly limit: number,
  ) {
    super(`ABCI message of ${length} bytes exceeds the limit of ${limit} bytes`)
  }
}

/** One message on the wire: its length prefix, then `body`. */
export function encodeFrame(body: Uint8Array): Uint8Array {
  return marshalDelimited(body)
}

/** Splits a byte stream into message bodies. */
export class FrameReader {
  /** Bytes of a length prefix not yet complete. */
  private prefix = new Uint8Array()
  /** Length of the body being received; -1 while reading a prefix. */
  private bodyLength = -1
  private parts: Uint8Array[] = []
  private received = 0

  /** `maxBytes`: the largest body accepted; a larger prefix throws `FrameTooLargeError`. */
  constructor(private readonly maxBytes: number) {}

  /** True when part of a message has arrived and the rest has not. */
  get partial(): boolean {
    return this.bodyLength >= 0 || this.prefix.length > 0
  }

  /** Takes the next bytes of the stream and returns the bodies they complete (fresh copies), in order. */
  push(chunk: Uint8Array): Uint8Array[] {
    const bodies: Uint8Array[] = []
    let data = chunk
    for (;;) {
      if (this.bodyLength < 0) {
        const bytes = this.prefix.length === 0 ? data : concatBytes(this.prefix, data)
        const prefix = readUvarint(bytes)
        if (prefix === undefined) {
          this.prefix = bytes.slice()
          return bodies
        }
        if (prefix.value > this.maxBytes) throw new FrameTooLargeError(prefix.value, this.maxBytes)
        this.prefix = new Uint8Array()
        this.bodyLength = prefix.value
        data = bytes.subarray(prefix.size)
      }
      const take = Math.min(this.bodyLength - this.received, data.length)
      if (take > 0) this.parts.push(data.subarray(0, take))
      this.received += take
      data = data.subarray(take)
      if (this.received < this.bodyLength) return bodies
      bodies.push(concatBytes(...this.parts))
      this.parts = []
      this.received = 0
      this.bodyLength = -1
      if (data.length === 0) return bodies
    }
  }
}

/** A uvarint at the start of `bytes`, or undefined when it continues past the end. */
function readUvarint(bytes: Uint8Array): { value: number; size: number } | undefined {
  let value = 0
  let scale = 1
  for (let i = 0; i < bytes.length; i++) {
    if (i === MAX_VARINT_BYTES) throw new Error('ABCI: length prefix is not a valid varint')
    const b = bytes[i]!
    value += (b & 0x7f) * scale
    if (b < 0x80) return { value, size: i + 1 }
    scale *= 0x80
  }
  if (bytes.length >= MAX_VARINT_BYTES) throw new Error('ABCI: length prefix is not a valid varint')
  return undefined
}
