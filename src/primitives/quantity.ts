/** QUANTITY and DATA codecs of the Ethereum JSON-RPC (the spec's Encodings table). */
import { bytesToHex } from './hex.js'

/** Encodes an integer as a compact `0x` QUANTITY (`0x0` for zero). */
export function toQuantity(value: bigint | number): string {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`not a non-negative integer: ${value}`)
    return '0x' + value.toString(16)
  }
  if (value < 0n) throw new Error(`negative quantity: ${value}`)
  return '0x' + value.toString(16)
}

/** True when `s` is a valid QUANTITY: `0x`, at least one digit, no leading zeros. */
export function isQuantity(s: unknown): s is string {
  return typeof s === 'string' && /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/.test(s)
}

/** Parses a QUANTITY strictly; throws an Error with a geth-like reason otherwise. */
export function parseQuantity(s: unknown): bigint {
  if (typeof s !== 'string') throw new Error(`cannot unmarshal non-string into Go value of type hexutil.Big`)
  if (!s.startsWith('0x') && !s.startsWith('0X')) throw new Error('hex string without 0x prefix')
  const digits = s.slice(2)
  if (digits.length === 0) throw new Error('hex string "0x"')
  if (digits.length > 1 && digits[0] === '0') throw new Error('hex number with leading zero digits')
  if (!/^[0-9a-fA-F]+$/.test(digits)) throw new Error('invalid hex string')
  if (digits.length > 64) throw new Error('hex number > 256 bits')
  return BigInt('0x' + digits)
}

/** Encodes bytes as DATA. */
export function toData(bytes: Uint8Array): string {
  return bytesToHex(bytes)
}
