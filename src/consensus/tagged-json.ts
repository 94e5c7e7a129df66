/**
 * JSON with typed leaves, for what the consensus stores keep in the database (state, validator sets,
 * FinalizeBlock responses): bigint as {"$big":"123"}, bytes as {"$bytes":"<hex>"}. Readable with any
 * LevelDB tool and tolerant of new optional fields, which a hand-written protobuf would not be.
 */
import { bytesToHex, bytesToUtf8, hexToBytes, utf8ToBytes } from '../primitives/hex.js'

export function encodeTaggedJson(value: unknown): Uint8Array {
  // A walk that tags the leaves, then a plain stringify: about a third faster than a replacer function,
  // which the engine calls for every key (one tx result per transaction is stored at each commit).
  return utf8ToBytes(JSON.stringify(tag(value)))
}

/** `v` with every bigint and byte array replaced by its tag; other values as JSON.stringify reads them. */
function tag(v: unknown): unknown {
  if (typeof v === 'bigint') return { $big: v.toString() }
  if (v instanceof Uint8Array) return { $bytes: bytesToHex(v).slice(2) }
  if (v === null || typeof v !== 'object') return v
  if (Array.isArray(v)) return v.map(tag)
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return v
  const out: Record<string, unknown> = {}
  for (const k in v) if (Object.hasOwn(v, k)) out[k] = tag((v as Record<string, unknown>)[k])
  return out
}

export function decodeTaggedJson<T>(bytes: Uint8Array): T {
  // A walk over the parsed tree is about twice as fast as a JSON.parse reviver (block_results reads many).
  return revive(JSON.parse(bytesToUtf8(bytes))) as T
}

/** Replaces, in place and bottom-up, every one-key `{$big}` / `{$bytes}` object by its value. */
function revive(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = revive(v[i])
    return v
  }
  const o = v as Record<string, unknown>
  let keys = 0
  for (const _ in o) if (++keys > 1) break
  if (keys === 1) {
    if (typeof o.$big === 'string') return BigInt(o.$big)
    if (typeof o.$bytes === 'string') return hexToBytes(o.$bytes)
  }
  for (const k in o) o[k] = revive(o[k])
  return o
}
