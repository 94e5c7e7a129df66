/**
 * The 2048-bit log bloom of receipts and blocks (Yellow Paper §4.3.1, M3:2048): each of the log's
 * address and topics sets three bits taken from the low 11 bits of the first three byte pairs of its
 * Keccak-256 hash.
 */
import { keccak256 } from '../../crypto/index.js'

/** Bytes in a bloom. */
export const BLOOM_BYTES = 256

/** The three (byte index, bit mask) positions an element sets. */
function positions(element: Uint8Array): [number, number][] {
  const h = keccak256(element)
  const out: [number, number][] = []
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i]! << 8) | h[i + 1]!) & 2047
    out.push([BLOOM_BYTES - 1 - (bit >> 3), 1 << (bit & 7)])
  }
  return out
}

/** Adds an address or topic to `bloom` in place. */
export function bloomAdd(bloom: Uint8Array, element: Uint8Array): void {
  for (const [byte, mask] of positions(element)) bloom[byte]! |= mask
}

/** True when `element` may be in `bloom` (false means certainly not). */
export function bloomContains(bloom: Uint8Array, element: Uint8Array): boolean {
  for (const [byte, mask] of positions(element)) if ((bloom[byte]! & mask) === 0) return false
  return true
}

/** ORs `other` into `bloom` in place. */
export function bloomOr(bloom: Uint8Array, other: Uint8Array): void {
  for (let i = 0; i < BLOOM_BYTES; i++) bloom[i]! |= other[i]!
}

/** True when no bit is set (a block or receipt without logs). */
export function bloomIsEmpty(bloom: Uint8Array): boolean {
  for (let i = 0; i < bloom.length; i++) if (bloom[i] !== 0) return false
  return true
}

/** The bloom of a list of logs given as [address, topics]. */
export function logsBloom(logs: readonly { address: Uint8Array; topics: readonly Uint8Array[] }[]): Uint8Array {
  const bloom = new Uint8Array(BLOOM_BYTES)
  for (const log of logs) {
    bloomAdd(bloom, log.address)
    for (const t of log.topics) bloomAdd(bloom, t)
  }
  return bloom
}
