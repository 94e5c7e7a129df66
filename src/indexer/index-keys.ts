/**
 * Key layout of the kv event indexer under `Prefix.eventIndex` (after CometBFT
 * `state/txindex/kv/kv.go` and `state/indexer/block/kv/kv.go`).
 * Heights, indexes and event sequence numbers are big-endian so iteration is in (height, index)
 * order; attribute values sit between `<type.key>/` and the fixed-size tail, folded by `foldHex`
 * so hex values are found regardless of letter case. Every value is empty except the primary's.
 *
 *   0x01 ‖ txHash(32)                               → height u64 ‖ index u32   (primary)
 *   0x02 ‖ "<type.key>/<value>/" ‖ h u64 ‖ i u32 ‖ seq u32                      (tx attribute)
 *   0x03 ‖ "<type.key>/<value>/" ‖ h u64 ‖ seq u32                              (block attribute)
 *   0x04 ‖ h u64 ‖ i u32                                                        (tx.height)
 *   0x05 ‖ h u64                                                                (block.height)
 */
import { Prefix } from '../db/prefixes.js'
import { utf8ToBytes } from '../primitives/hex.js'

/** Sub-prefixes of the index. */
export const IndexKind = {
  txHash: 0x01,
  txAttr: 0x02,
  blockAttr: 0x03,
  txHeight: 0x04,
  blockHeight: 0x05,
} as const

/** Byte length of the tail of a tx attribute key (height, index, event sequence). */
export const TX_ATTR_TAIL = 16
/** Byte length of the tail of a block attribute key (height, event sequence). */
export const BLOCK_ATTR_TAIL = 12

/** A tx's place in the chain. */
export interface TxLocation {
  height: number
  index: number
}

/** `[eventIndex, kind] ‖ parts…`. */
export function indexKey(kind: number, ...parts: Uint8Array[]): Uint8Array {
  let len = 2
  for (const p of parts) len += p.length
  const key = new Uint8Array(len)
  key[0] = Prefix.eventIndex
  key[1] = kind
  let off = 2
  for (const p of parts) {
    key.set(p, off)
    off += p.length
  }
  return key
}

const utf8 = new TextEncoder()

/**
 * An attribute key, `[eventIndex, kind] ‖ "<tag>/<value>/" ‖ tail ‖ seq u32`, in one allocation: the
 * same bytes as `indexKey(kind, attrPrefix(tag, value), tail, u32(seq))`, without the three arrays
 * between (a block of ERC-20 transfers writes about 14 of these a transaction).
 */
export function attrKey(kind: number, tag: string, value: string, tail: Uint8Array, seq: number): Uint8Array {
  const text = attrText(tag, value)
  const textBytes = Buffer.byteLength(text)
  const key = new Uint8Array(2 + textBytes + tail.length + 4)
  key[0] = Prefix.eventIndex
  key[1] = kind
  utf8.encodeInto(text, key.subarray(2, 2 + textBytes))
  key.set(tail, 2 + textBytes)
  const at = key.length - 4
  key[at] = seq >>> 24
  key[at + 1] = (seq >>> 16) & 0xff
  key[at + 2] = (seq >>> 8) & 0xff
  key[at + 3] = seq & 0xff
  return key
}

/** Big-endian u64 of a height. */
export function u64(n: number): Uint8Array {
  const b = new Uint8Array(8)
  new DataView(b.buffer).setBigUint64(0, BigInt(n))
  return b
}

/** Big-endian u32. */
export function u32(n: number): Uint8Array {
  const b = new Uint8Array(4)
  new DataView(b.buffer).setUint32(0, n)
  return b
}

/** Reads a big-endian u64 (as a safe integer) at `offset`. */
export function readU64(b: Uint8Array, offset: number): number {
  return Number(new DataView(b.buffer, b.byteOffset, b.byteLength).getBigUint64(offset))
}

/** Reads a big-endian u32 at `offset`. */
export function readU32(b: Uint8Array, offset: number): number {
  return new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(offset)
}

/** `"<tag>/<value>/"`, or `"<tag>/"` without a value, or just the tag (`exact` false: any key starting with it). */
export function attrPrefix(tag: string, value?: string, exact = true): Uint8Array {
  if (value !== undefined) return utf8ToBytes(attrText(tag, value))
  return utf8ToBytes(exact ? `${tag}/` : tag)
}

/** The text of an attribute key between its kind and its tail: `<tag>/<value>/`. */
function attrText(tag: string, value: string): string {
  return `${tag}/${value}/`
}

/** The value text of an attribute key (between the first `/` after the tag and the tail). */
export function attrValueOf(key: Uint8Array, tail: number): { tag: string; value: string } {
  const text = Buffer.from(key.subarray(2, key.length - tail - 1)).toString('utf8')
  const slash = text.indexOf('/')
  return { tag: text.slice(0, slash), value: text.slice(slash + 1) }
}
