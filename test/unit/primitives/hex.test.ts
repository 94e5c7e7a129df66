import { describe, expect, it } from 'vitest'
import { bytesToHex, bytesToUpperHex, hexToBytes } from '../../../src/primitives/hex.js'

/** Two digits a byte, the plain way: what the native encoder must give. */
const reference = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')

describe('hex encoding', () => {
  it('encodes every byte value, the empty array and views into a larger buffer', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i)
    expect(bytesToHex(all)).toBe(`0x${reference(all)}`)
    expect(bytesToUpperHex(all)).toBe(reference(all).toUpperCase())
    expect(bytesToHex(new Uint8Array(0))).toBe('0x')
    expect(bytesToUpperHex(new Uint8Array(0))).toBe('')
    const view = all.subarray(250, 253)
    expect(bytesToHex(view)).toBe('0xfafbfc')
    expect(bytesToUpperHex(new Uint8Array(all.buffer, 10, 2))).toBe('0A0B')
  })

  it('round-trips through hexToBytes', () => {
    const bytes = Uint8Array.from({ length: 65 }, (_, i) => (i * 37 + 11) % 256)
    expect(hexToBytes(bytesToHex(bytes))).toEqual(bytes)
    expect(hexToBytes(bytesToUpperHex(bytes))).toEqual(bytes)
  })
})
