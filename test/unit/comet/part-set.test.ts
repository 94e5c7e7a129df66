import { describe, expect, it } from 'vitest'
import { concatBytes } from '../../../src/primitives/hex.js'
import { merkleRoot } from '../../../src/comet/merkle.js'
import { blockIdEquals, blockIdKey, isZeroBlockId, makePartSet, verifyPart, zeroBlockId } from '../../../src/comet/part-set.js'
import { BLOCK_PART_SIZE_BYTES } from '../../../src/comet/types.js'
import { realLastBlockId } from './fixtures.js'

describe('part sets', () => {
  const data = new Uint8Array(2 * BLOCK_PART_SIZE_BYTES + 1234).map((_, i) => (i * 31 + (i >> 16)) & 0xff)

  it('splits into 65,536-byte parts with a Merkle root over the raw part bytes', () => {
    const ps = makePartSet(data)
    expect(ps.header.total).toBe(3)
    expect(ps.parts.map((p) => p.bytes.length)).toEqual([BLOCK_PART_SIZE_BYTES, BLOCK_PART_SIZE_BYTES, 1234])
    expect(ps.header.hash).toEqual(merkleRoot(ps.parts.map((p) => p.bytes)))
    expect(concatBytes(...ps.parts.map((p) => p.bytes))).toEqual(data)
    for (const part of ps.parts) expect(verifyPart(ps.header, part)).toBe(true)
  })

  it('rejects tampered parts, wrong indexes and short middle parts', () => {
    const ps = makePartSet(data)
    const p1 = ps.parts[1]!
    const tampered = { ...p1, bytes: p1.bytes.slice() }
    tampered.bytes[0]! ^= 1
    expect(verifyPart(ps.header, tampered)).toBe(false)
    expect(verifyPart(ps.header, { ...p1, index: 2 })).toBe(false)
    expect(verifyPart(ps.header, { ...p1, index: 3 })).toBe(false)
    expect(verifyPart({ ...ps.header, total: 4 }, p1)).toBe(false)
    const other = makePartSet(new Uint8Array(BLOCK_PART_SIZE_BYTES + 10))
    expect(verifyPart(ps.header, other.parts[0]!)).toBe(false)
  })

  it('block id helpers', () => {
    expect(isZeroBlockId(zeroBlockId())).toBe(true)
    expect(isZeroBlockId(realLastBlockId)).toBe(false)
    const copy = { hash: realLastBlockId.hash.slice(), partSetHeader: { ...realLastBlockId.partSetHeader } }
    expect(blockIdEquals(copy, realLastBlockId)).toBe(true)
    expect(blockIdKey(copy)).toBe(blockIdKey(realLastBlockId))
    const other = { ...copy, partSetHeader: { ...copy.partSetHeader, total: 2 } }
    expect(blockIdEquals(other, realLastBlockId)).toBe(false)
    expect(blockIdKey(other)).not.toBe(blockIdKey(realLastBlockId))
  })
})
