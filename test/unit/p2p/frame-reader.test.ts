/**
 * FrameReader (src/p2p/frame-reader.ts) reads what it-length-prefixed writes, whatever the chunks: every
 * frame once, in order, split anywhere (inside a length prefix too), and refuses a length over its limit.
 */
import { lpStream } from 'it-length-prefixed-stream'
import { describe, expect, it } from 'vitest'
import { FrameReader } from '../../../src/p2p/frame-reader.js'

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex')
const frameOf = (n: number, seed: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff)

/** The bytes of `frames` as the sending side writes them: it-length-prefixed-stream's `writeV`. */
async function encode(frames: Uint8Array[]): Promise<Uint8Array> {
  const written: Uint8Array[] = []
  const duplex = {
    source: (async function* () {})(),
    sink: async (source: AsyncIterable<{ subarray(): Uint8Array }>): Promise<void> => {
      for await (const chunk of source) written.push(chunk.subarray())
    },
  }
  await lpStream(duplex).writeV(frames)
  return concat(written)
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

describe('FrameReader', () => {
  // Empty frames, one-byte prefixes, two- and three-byte prefixes, and a frame larger than the chunks.
  const frames = [0, 1, 127, 128, 300, 0, 16_383, 16_384, 70_000, 5].map((n, i) => frameOf(n, i))

  it('gives every frame once and in order, however the chunks cut them', async () => {
    const bytes = await encode(frames)
    for (const size of [1, 2, 3, 7, 100, 4096, 65_536, bytes.length]) {
      const reader = new FrameReader(1 << 20)
      const out: Uint8Array[] = []
      for (let at = 0; at < bytes.length; at += size) out.push(...reader.push(bytes.subarray(at, at + size)))
      expect(out.map(hex)).toEqual(frames.map(hex))
    }
  })

  it('refuses a length over its limit as soon as the prefix is read', async () => {
    const reader = new FrameReader(1000)
    expect(reader.push((await encode([frameOf(1000, 1)])).subarray(0, 2))).toEqual([])
    const tooLong = (await encode([frameOf(1001, 1)])).subarray(0, 2)
    expect(() => new FrameReader(1000).push(tooLong)).toThrow('message length too long: 1001 bytes (at most 1000)')
    expect(() => new FrameReader(1000).push(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0x01))).toThrow('message length prefix too long')
  })
})
