/**
 * ed25519 in OpenSSL with ZIP-215's verdict: the same keys and signatures as noble (the reference used
 * before), RFC 8032's test vectors, and a signature only ZIP-215 accepts still verifies.
 */
import { ed25519 } from '@noble/curves/ed25519.js'
import { describe, expect, it } from 'vitest'
import { ed25519FromSeed, ed25519Generate, ed25519Sign, ed25519Verify } from '../../../src/crypto/ed25519.js'
import { bytesToHex, hexToBytes } from '../../../src/primitives/hex.js'

/** RFC 8032 §7.1, tests 1 and 2. */
const RFC8032 = [
  {
    seed: '0x9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60',
    publicKey: '0xd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a',
    message: '0x',
    signature:
      '0xe5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
  },
  {
    seed: '0x4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
    publicKey: '0x3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
    message: '0x72',
    signature:
      '0x92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
  },
]

describe('ed25519', () => {
  it.each(RFC8032)('matches RFC 8032 vector $publicKey', (v) => {
    const pair = ed25519FromSeed(hexToBytes(v.seed))
    expect(bytesToHex(pair.publicKey)).toBe(v.publicKey)
    expect(bytesToHex(ed25519Sign(pair.seed, hexToBytes(v.message)))).toBe(v.signature)
    expect(ed25519Verify(pair.publicKey, hexToBytes(v.message), hexToBytes(v.signature))).toBe(true)
  })

  it('gives the keys and signatures noble gives, and rejects what noble rejects', () => {
    for (let i = 0; i < 20; i++) {
      const pair = ed25519Generate()
      const message = new TextEncoder().encode(`vote ${i}`)
      expect(pair.publicKey).toEqual(ed25519.getPublicKey(pair.seed))
      const signature = ed25519Sign(pair.seed, message)
      expect(signature).toEqual(ed25519.sign(message, pair.seed))
      expect(ed25519Verify(pair.publicKey, message, signature)).toBe(true)
      const tampered = signature.slice()
      tampered[i % 64]! ^= 1
      expect(ed25519Verify(pair.publicKey, message, tampered)).toBe(false)
      expect(ed25519Verify(pair.publicKey, new TextEncoder().encode('other'), signature)).toBe(false)
    }
  })

  it('refuses malformed keys and signatures without throwing', () => {
    const pair = ed25519Generate()
    const signature = ed25519Sign(pair.seed, new Uint8Array())
    expect(ed25519Verify(pair.publicKey.subarray(1), new Uint8Array(), signature)).toBe(false)
    expect(ed25519Verify(pair.publicKey, new Uint8Array(), signature.subarray(1))).toBe(false)
    expect(ed25519Verify(new Uint8Array(32).fill(0xff), new Uint8Array(), signature)).toBe(false)
    expect(() => ed25519Sign(new Uint8Array(31), new Uint8Array())).toThrow('32 bytes')
  })

  it("accepts a signature only ZIP-215's rules accept (non-canonical encodings, which OpenSSL refuses)", () => {
    // y = p + 1 encodes the identity non-canonically: as the public key and as R, with S = 0.
    const nonCanonical = hexToBytes(`0xee${'ff'.repeat(30)}7f`)
    const signature = new Uint8Array(64)
    signature.set(nonCanonical, 0)
    const message = new TextEncoder().encode('zip215')
    expect(ed25519.verify(signature, message, nonCanonical, { zip215: false })).toBe(false)
    expect(ed25519Verify(nonCanonical, message, signature)).toBe(true)
  })
})
