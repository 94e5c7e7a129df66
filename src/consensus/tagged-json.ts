/**
 * JSON with typed leaves, for what the consensus stores keep in the database (state, validator sets,
 * FinalizeBlock responses): bigint as {"$big":"123"}, bytes as {"$bytes":"<hex>"}. Readable with any
 * LevelDB tool and tolerant of new optional fields, which a hand-written protobuf would not be.
 */
import { bytesToHex, bytesToUtf8, hexToBytes, utf8ToBytes } from '../primitives/hex.js'

export function encodeTaggedJson(value: unknown): Uint8Array {
  return utf8ToBytes(
    JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
      const raw = this[key]
      if (typeof raw === 'bigint') return { $big: raw.toString() }
      if (raw instanceof Uint8Array) return { $bytes: bytesToHex(raw).slice(2) }
      return v
    }),
  )
}

export function decodeTaggedJson<T>(bytes: Uint8Array): T {
  return JSON.parse(bytesToUtf8(bytes), (_key, v: unknown) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>
      const keys = Object.keys(o)
      if (keys.length === 1 && typeof o.$big === 'string') return BigInt(o.$big)
      if (keys.length === 1 && typeof o.$bytes === 'string') return hexToBytes(o.$bytes)
    }
    return v
  }) as T
}
