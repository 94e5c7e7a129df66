import { keccak_256 } from '@noble/hashes/sha3.js'
import { describe, expect, it } from 'vitest'
import { keccak256, keccakBackend } from '../../../src/crypto/index.js'
import { createWasmKeccak256 } from '../../../src/crypto/keccak-wasm.js'
import { bytesToHex } from '../../../src/primitives/hex.js'

/** Deterministic pseudo-random bytes (an LCG), so a failure reproduces. */
function pseudoRandomBytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length)
  let s = seed
  for (let i = 0; i < length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff
    out[i] = s >>> 16
  }
  return out
}

describe('keccak256', () => {
  const wasm = createWasmKeccak256()!

  it('uses the WebAssembly implementation', () => {
    expect(wasm).toBeDefined()
    expect(keccakBackend).toBe('wasm')
  })

  it('hashes the known vectors', () => {
    expect(bytesToHex(keccak256(new Uint8Array(0)))).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470')
    expect(bytesToHex(keccak256(new TextEncoder().encode('abc')))).toBe(
      '0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45',
    )
  })

  it('matches @noble/hashes for every length around the 136-byte block boundaries', () => {
    for (let length = 0; length <= 3 * 136 + 2; length++) {
      const data = pseudoRandomBytes(length, length + 1)
      expect(bytesToHex(wasm(data)), `length ${length}`).toBe(bytesToHex(keccak_256(data)))
    }
  })

  it('hashes inputs larger than its initial memory, and subarrays', () => {
    const big = pseudoRandomBytes(200_000, 7)
    expect(bytesToHex(wasm(big))).toBe(bytesToHex(keccak_256(big)))
    expect(bytesToHex(wasm(big.subarray(1000, 1100)))).toBe(bytesToHex(keccak_256(big.subarray(1000, 1100))))
    // the digest is a copy: later calls do not change it
    const first = wasm(big.subarray(0, 10))
    const copy = bytesToHex(first)
    wasm(big.subarray(10, 20))
    expect(bytesToHex(first)).toBe(copy)
  })
})
