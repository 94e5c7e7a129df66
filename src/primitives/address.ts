/** 20-byte account addresses: parsing, EIP-55 checksums. */
import { keccak256 } from '../crypto/hash.js'
import { bytesToHex, hexToBytes, utf8ToBytes } from './hex.js'

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'

export function isAddress(s: unknown): s is string {
  return typeof s === 'string' && /^0x[0-9a-fA-F]{40}$/.test(s)
}

/** Parses a 0x-prefixed 40-digit address into bytes; throws otherwise. */
export function parseAddress(s: unknown): Uint8Array {
  if (!isAddress(s))
    throw new Error('hex string has length ' + (typeof s === 'string' ? s.replace(/^0x/, '').length : 0) + ', want 40 for common.Address')
  return hexToBytes(s)
}

/** EIP-55 mixed-case checksum form of an address. */
export function toChecksumAddress(address: string | Uint8Array): string {
  const lower = (typeof address === 'string' ? address : bytesToHex(address)).toLowerCase().replace(/^0x/, '')
  const hash = bytesToHex(keccak256(utf8ToBytes(lower))).slice(2)
  let out = '0x'
  for (let i = 0; i < lower.length; i++) out += parseInt(hash[i]!, 16) >= 8 ? lower[i]!.toUpperCase() : lower[i]
  return out
}
