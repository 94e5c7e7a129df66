/**
 * Parameter codecs for the Ethereum encodings (QUANTITY, DATA, addresses, block tags): each validates a
 * JSON value AND produces the typed argument, so validation cannot drift from the handler.
 * Failure reasons follow geth's `hexutil` / `encoding/json` wording, e.g.
 * `json: cannot unmarshal hex string without 0x prefix into Go value of type hexutil.Uint64` or
 * `hex string has length 38, want 40 for common.Address`; the dispatcher prefixes `invalid argument N: `.
 * Hex is checked with char-code loops rather than regular expressions (hot path).
 */

/** Decodes one JSON value into a typed argument; throws `DecodeError` (or any Error) with the reason. */
export type Codec<T> = (value: unknown) => T

/**
 * A decoding failure. With `goType` it renders as Go's `json.UnmarshalTypeError`
 * (`json: cannot unmarshal <reason> into Go value of type <goType>`), otherwise as the bare reason.
 */
export class DecodeError extends Error {
  constructor(
    readonly reason: string,
    readonly goType?: string,
    field?: { struct: string; name: string },
  ) {
    super(
      goType === undefined
        ? reason
        : field
          ? `json: cannot unmarshal ${reason} into Go struct field ${field.struct}.${field.name} of type ${goType}`
          : `json: cannot unmarshal ${reason} into Go value of type ${goType}`,
    )
    this.name = 'DecodeError'
  }

  /** The same failure reported for a field of a struct (`TransactionArgs.gas`), as Go's decoder does. */
  inField(struct: string, name: string): DecodeError {
    return this.goType === undefined ? this : new DecodeError(this.reason, this.goType, { struct, name })
  }
}

/** Go's name of a JSON value's kind in `cannot unmarshal <kind> into ...` (`bool`, not JS's `boolean`). */
export function jsonKind(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'boolean') return 'bool'
  return typeof value === 'object' ? 'object' : typeof value
}

const NIBBLE = new Int8Array(128).fill(-1)
for (let i = 0; i < 10; i++) NIBBLE[48 + i] = i
for (let i = 0; i < 6; i++) {
  NIBBLE[65 + i] = 10 + i
  NIBBLE[97 + i] = 10 + i
}

/** True when `s[start..]` is only hex digits (either case). */
export function isHexDigits(s: string, start: number): boolean {
  for (let i = start; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 128 || NIBBLE[c]! < 0) return false
  }
  return true
}

function has0xPrefix(s: string): boolean {
  return s.length >= 2 && s.charCodeAt(0) === 48 && (s.charCodeAt(1) === 120 || s.charCodeAt(1) === 88)
}

/** Decodes validated hex digits `s[start..]` (even count) into a fresh array (never a pooled Buffer). */
function decodeHexDigits(s: string, start: number): Uint8Array {
  const out = new Uint8Array((s.length - start) >> 1)
  for (let i = 0, j = start; i < out.length; i++, j += 2) out[i] = (NIBBLE[s.charCodeAt(j)]! << 4) | NIBBLE[s.charCodeAt(j + 1)]!
  return out
}

/**
 * Parses QUANTITY text strictly (geth `checkNumberText` / `checkNumber`): `0x`, at least one digit,
 * no leading zero, at most `maxBits` bits. Throws the bare geth reason.
 */
export function parseQuantityText(s: string, maxBits: 64 | 256): bigint {
  if (s.length === 0) throw new DecodeError('empty hex string')
  if (!has0xPrefix(s)) throw new DecodeError('hex string without 0x prefix')
  if (s.length === 2) throw new DecodeError('hex string "0x"')
  if (s.length > 3 && s.charCodeAt(2) === 48) throw new DecodeError('hex number with leading zero digits')
  if (!isHexDigits(s, 2)) throw new DecodeError('invalid hex string')
  if (s.length - 2 > maxBits / 4) throw new DecodeError(`hex number > ${maxBits} bits`)
  // Up to 13 digits fit a double exactly: skip BigInt's string parser for the common small values.
  return s.length <= 15 ? BigInt(parseInt(s, 16)) : BigInt(s)
}

function quantityCodec(maxBits: 64 | 256, goType: string): Codec<bigint> {
  return (value) => {
    if (typeof value !== 'string') throw new DecodeError('non-string', goType)
    try {
      return parseQuantityText(value, maxBits)
    } catch (err) {
      throw err instanceof DecodeError ? new DecodeError(err.reason, goType) : err
    }
  }
}

/** QUANTITY up to 256 bits (geth `*hexutil.Big`): values, gas prices, chain ids. */
export const quantity: Codec<bigint> = quantityCodec(256, '*hexutil.Big')

/** QUANTITY up to 64 bits (geth `hexutil.Uint64`): gas, nonces. */
export const uint64: Codec<bigint> = quantityCodec(64, 'hexutil.Uint64')

const uintBig = quantityCodec(64, 'hexutil.Uint')

/** A small QUANTITY as a JS number (geth `hexutil.Uint`): indexes. Values past 2^53 saturate. */
export const uint: Codec<number> = (value) => {
  const n = uintBig(value)
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n)
}

/** DATA of any length, `0x` allowed (geth `hexutil.Bytes`). */
export const data: Codec<Uint8Array> = (value) => {
  if (typeof value !== 'string') throw new DecodeError('non-string', 'hexutil.Bytes')
  if (value.length === 0) return new Uint8Array(0)
  if (!has0xPrefix(value)) throw new DecodeError('hex string without 0x prefix', 'hexutil.Bytes')
  if (value.length % 2 !== 0) throw new DecodeError('hex string of odd length', 'hexutil.Bytes')
  if (!isHexDigits(value, 2)) throw new DecodeError('invalid hex string', 'hexutil.Bytes')
  return decodeHexDigits(value, 2)
}

/** DATA of exactly `length` bytes (geth `hexutil.UnmarshalFixedJSON`), e.g. `common.Address`. */
export function fixedData(length: number, goType: string): Codec<Uint8Array> {
  return (value) => {
    if (typeof value !== 'string') throw new DecodeError('non-string', goType)
    let start = 0
    if (value.length > 0) {
      if (!has0xPrefix(value)) throw new DecodeError('hex string without 0x prefix', goType)
      if (value.length % 2 !== 0) throw new DecodeError('hex string of odd length', goType)
      start = 2
    }
    const digits = value.length - start
    if (digits !== length * 2) throw new DecodeError(`hex string has length ${digits}, want ${length * 2} for ${goType}`)
    if (!isHexDigits(value, start)) throw new DecodeError('invalid hex string', goType)
    return decodeHexDigits(value, start)
  }
}

/** A 20-byte address (geth `common.Address`). */
export const address: Codec<Uint8Array> = fixedData(20, 'common.Address')

/** A 32-byte hash (geth `common.Hash`). */
export const hash: Codec<Uint8Array> = fixedData(32, 'common.Hash')

/**
 * Loose hex as geth's `hexutil.Decode` (filter addresses and topics): `0x` required, even length,
 * exact `length` bytes. `what` names the item in the length error (`address`, `topic`).
 */
export function decodeFilterHex(value: string, length: number, what: string): Uint8Array {
  if (value.length === 0) throw new DecodeError('empty hex string')
  if (!has0xPrefix(value)) throw new DecodeError('hex string without 0x prefix')
  if (value.length % 2 !== 0) throw new DecodeError('hex string of odd length')
  if (!isHexDigits(value, 2)) throw new DecodeError('invalid hex string')
  const len = (value.length - 2) >> 1
  if (len !== length) throw new DecodeError(`hex has invalid length ${len} after decoding; expected ${length} for ${what}`)
  return decodeHexDigits(value, 2)
}

/**
 * A storage slot as geth's `decodeHash` (eth_getStorageAt, eth_getProof): optional `0x`, odd length
 * left-padded, at most 32 bytes, result left-padded to 32 bytes. geth takes the key as a Go `string`
 * and decodes it in the handler, so a bad key is a -32000 error there (`hex string invalid`), not an
 * invalid argument: the handlers call this and wrap the failure in a NodeError.
 */
export function decodeStorageKey(text: string): Uint8Array {
  let s = has0xPrefix(text) ? text.slice(2) : text
  if (s.length % 2 !== 0) s = '0' + s
  if (!isHexDigits(s, 0)) throw new DecodeError('hex string invalid')
  if (s.length > 64) throw new DecodeError('hex string too long, want at most 32 bytes')
  const out = new Uint8Array(32)
  out.set(decodeHexDigits(s, 0), 32 - s.length / 2)
  return out
}

/**
 * A JSON boolean (Go `bool`: strings are rejected). `null` is false: Go's decoder leaves a non-pointer
 * argument at its zero value for a JSON null (geth `eth_getBlockByNumber("latest", null)` works).
 */
export const bool: Codec<boolean> = (value) => {
  if (value === null) return false
  if (typeof value !== 'boolean') throw new DecodeError(jsonKind(value), 'bool')
  return value
}

/** A JSON string (Go `string`); `null` is the zero value `''`, as Go decodes it. */
export const string: Codec<string> = (value) => {
  if (value === null) return ''
  if (typeof value !== 'string') throw new DecodeError(jsonKind(value), 'string')
  return value
}

/** A JSON number, finite (Go `float64`). */
export const float: Codec<number> = (value) => {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new DecodeError(jsonKind(value), 'float64')
  return value
}

/** An array of `item` (Go slice; `null` is the nil slice); the element index is not reported, as in Go. */
export function arrayOf<T>(item: Codec<T>, goType: string): Codec<T[]> {
  return (value) => {
    if (value === null) return []
    if (!Array.isArray(value)) throw new DecodeError(jsonKind(value), goType)
    return value.map(item)
  }
}

/** Any JSON value, unchecked (for handlers that inspect it themselves). */
export const any: Codec<unknown> = (value) => value

/** A JSON object argument (Go struct or map), else a DecodeError naming the Go type. */
export function objectOf(value: unknown, goType: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new DecodeError(jsonKind(value), goType)
  return value as Record<string, unknown>
}

/**
 * One field of a Go struct argument: absent or null is Go's zero value (undefined); a bad value is a
 * DecodeError naming `struct.name` (`… into Go struct field TransactionArgs.gas of type hexutil.Uint64`).
 */
export function structField<T>(obj: Record<string, unknown>, struct: string, name: string, codec: Codec<T>): T | undefined {
  const value = obj[name]
  if (value === undefined || value === null) return undefined
  try {
    return codec(value)
  } catch (err) {
    throw err instanceof DecodeError ? err.inField(struct, name) : err
  }
}
