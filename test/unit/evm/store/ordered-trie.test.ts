import { describe, expect, it } from 'vitest'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { EMPTY_TRIE_ROOT, orderedTrieRoot, trieRoot } from '../../../../src/evm/store/ordered-trie.js'
import { bytesToHex, utf8ToBytes } from '../../../../src/primitives/hex.js'
import { keccak256 } from '../../../../src/crypto/index.js'

async function mptRoot(values: Uint8Array[]): Promise<string> {
  const trie = new MerklePatriciaTrie()
  for (let i = 0; i < values.length; i++) await trie.put(RLP.encode(i), values[i]!)
  return bytesToHex(trie.root())
}

describe('orderedTrieRoot', () => {
  it('has the empty-trie root for no values', () => {
    expect(bytesToHex(EMPTY_TRIE_ROOT)).toBe('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421')
    expect(bytesToHex(orderedTrieRoot([]))).toBe(bytesToHex(EMPTY_TRIE_ROOT))
  })

  it('matches the ethereum trie test vector "puppy"', () => {
    const root = trieRoot([
      [utf8ToBytes('do'), utf8ToBytes('verb')],
      [utf8ToBytes('horse'), utf8ToBytes('stallion')],
      [utf8ToBytes('doge'), utf8ToBytes('coin')],
      [utf8ToBytes('dog'), utf8ToBytes('puppy')],
    ])
    expect(bytesToHex(root)).toBe('0x5991bb8c6514148a29db676a14ac506cd2cd5775ace63c30a4fe457715e9ac84')
  })

  it.each([1, 2, 3, 15, 16, 17, 127, 128, 129, 300])('matches @ethereumjs/mpt for %i values', async (n) => {
    const small = Array.from({ length: n }, (_, i) => new Uint8Array([i & 0xff, 1]))
    const big = Array.from({ length: n }, (_, i) => keccak256(new Uint8Array([i & 0xff, i >> 8])))
    const mixed = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? big[i]! : small[i]!))
    for (const values of [small, big, mixed]) expect(bytesToHex(orderedTrieRoot(values))).toBe(await mptRoot(values))
  })
})
