import { describe, expect, it } from 'vitest'
import { bytesToHex, utf8ToBytes } from '../../../src/primitives/hex.js'
import { innerHash, leafHash, merkleProofs, merkleRoot, verifyMerkleProof } from '../../../src/comet/merkle.js'

const hex = (b: Uint8Array): string => bytesToHex(b).slice(2)
const items = (...lists: number[][]): Uint8Array[] => lists.map((l) => Uint8Array.from(l))

describe('merkle (cometbft crypto/merkle vectors)', () => {
  it.each([
    [[], 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    [[[1, 2, 3]], '054edec1d0211f624fed0cbca9d4f9400b0e491c43742af2c5b0abebf0c990d8'],
    [[[]], '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d'],
    [
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
      '82e6cfce00453804379b53962939eaa7906b39904be0813fcadd31b100773c4b',
    ],
    [
      [
        [1, 2],
        [3, 4],
        [5, 6],
        [7, 8],
        [9, 10],
      ],
      'f326493eceab4f2d9ffbc78c59432a0a005d6ea98392045c74df5d14a113be18',
    ],
  ])('root of %j', (lists, root) => {
    expect(hex(merkleRoot(items(...lists)))).toBe(root)
    expect(hex(merkleProofs(items(...lists)).root)).toBe(root)
  })

  it('leaf and inner hashes', () => {
    expect(hex(leafHash(utf8ToBytes('L123456')))).toBe('395aa064aa4c29f7010acfe3f25db9485bbd4b91897b6ad7ad547639252b4d56')
    expect(hex(innerHash(utf8ToBytes('N123'), utf8ToBytes('N456')))).toBe(
      'aa217fe888e47007fa15edab33c2b492a722cb106c64667fc2b044444de66bbb',
    )
  })

  it('proof of index 2 of 5 has the expected aunts, deepest first', () => {
    const list = items([1, 2], [3, 4], [5, 6], [7, 8], [9, 10])
    const { root, proofs } = merkleProofs(list)
    const p = proofs[2]!
    expect(p.total).toBe(5)
    expect(p.index).toBe(2)
    expect(hex(p.leafHash)).toBe('87dea70e0fde5a5d7a30aa1a9a062246c27dad6d5b360030b46b76a722bd5ee7')
    expect(p.aunts.map(hex)).toEqual([
      '6ecd1ea1fd08271847fd320ca657408861173c041030f654af163d3f038cec25',
      '5564155a2da076daa766119fb3863b56b463fde2b5ca5f644ced5fd47a8488da',
      '90825dfc453a0701a688854f9b4f195f253574e80678cf3a885db4fa8bfefa42',
    ])
    expect(verifyMerkleProof(root, list[2]!, p)).toBe(true)
  })

  it('every proof verifies for trees of 1..20 items; wrong item, index or aunt fails', () => {
    for (let n = 1; n <= 20; n++) {
      const list = Array.from({ length: n }, (_, i) => Uint8Array.of(i, n))
      const { root, proofs } = merkleProofs(list)
      expect(root).toEqual(merkleRoot(list))
      proofs.forEach((p, i) => {
        expect(verifyMerkleProof(root, list[i]!, p)).toBe(true)
        expect(verifyMerkleProof(root, Uint8Array.of(99), p)).toBe(false)
        if (n > 1) {
          expect(verifyMerkleProof(root, list[i]!, { ...p, index: (i + 1) % n })).toBe(false)
          expect(verifyMerkleProof(root, list[i]!, { ...p, aunts: p.aunts.slice(1) })).toBe(false)
        }
      })
    }
  })
})
