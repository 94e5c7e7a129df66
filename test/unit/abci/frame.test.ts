import { describe, expect, it } from 'vitest'
import { encodeFrame, FrameReader, FrameTooLargeError } from '../../../src/abci/wire/frame.js'

const body = (length: number, fill: number): Uint8Array => new Uint8Array(length).fill(fill)
const hex = (bodies: Uint8Array[]): string[] => bodies.map((b) => Buffer.from(b).toString('hex'))

describe('FrameReader', () => {
  // A 300-byte body has a two-byte length prefix (ac 02), an empty one the single byte 00.
  const bodies = [body(3, 1), body(0, 0), body(300, 2), body(1, 3)]
  const stream = Buffer.concat(bodies.map(encodeFrame))

  it('returns every body of a stream given in one chunk, in order', () => {
    expect(hex(new FrameReader(1000).push(stream))).toEqual(hex(bodies))
  })

  it('reassembles the same bodies whatever the chunk boundaries, prefixes split included', () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      for (const size of [1, 2, 7]) {
        const reader = new FrameReader(1000)
        const out: Uint8Array[] = []
        out.push(...reader.push(stream.subarray(0, cut)))
        for (let at = cut; at < stream.length; at += size) out.push(...reader.push(stream.subarray(at, at + size)))
        expect(hex(out), `cut ${cut}, chunks of ${size}`).toEqual(hex(bodies))
        expect(reader.partial).toBe(false)
      }
    }
  })

  it('tells when part of a message is still missing', () => {
    const reader = new FrameReader(1000)
    expect(reader.partial).toBe(false)
    expect(reader.push(Uint8Array.of(0xac))).toEqual([])
    expect(reader.partial).toBe(true)
    expect(reader.push(Uint8Array.of(0x02, 1, 2))).toEqual([])
    expect(reader.partial).toBe(true)
  })

  it('returns copies that later chunks do not change', () => {
    const chunk = Buffer.from(encodeFrame(body(4, 9)))
    const [out] = new FrameReader(1000).push(chunk)
    chunk.fill(0)
    expect(hex([out!])).toEqual(['09090909'])
  })

  it('refuses a length above its limit as soon as the prefix is read', () => {
    const reader = new FrameReader(299)
    expect(() => reader.push(Uint8Array.of(0xac, 0x02))).toThrow(FrameTooLargeError)
    expect(() => new FrameReader(300).push(Uint8Array.of(0xac, 0x02))).not.toThrow()
  })

  it('refuses a length prefix longer than any varint', () => {
    expect(() => new FrameReader(1000).push(new Uint8Array(11).fill(0x80))).toThrow(/not a valid varint/)
  })
})
