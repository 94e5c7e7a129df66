/**
 * The Solidity contract ABI encoding (head/tail, 32-byte words) of the types a function signature can
 * name: `uint<M>`, `int<M>`, `address`, `bool`, `bytes<M>`, `bytes`, `string`, arrays `T[]` and `T[k]`,
 * and tuples `(T1,T2,…)`. Values are JS values: bigint for integers, 0x hex strings for addresses and
 * bytes, booleans, strings, arrays for arrays and tuples.
 */
import { bigintToBytes, bytesToBigint, bytesToHex, bytesToUtf8, concatBytes, hexToBytes, utf8ToBytes } from './hex.js'

/** One parsed ABI type. */
export type AbiType =
  | { kind: 'uint' | 'int'; bits: number }
  | { kind: 'address' | 'bool' | 'bytes' | 'string' }
  | { kind: 'fixedBytes'; size: number }
  | { kind: 'array'; of: AbiType; length: number | undefined }
  | { kind: 'tuple'; of: AbiType[] }

/** A value of an {@link AbiType}. */
export type AbiValue = bigint | boolean | string | AbiValue[]

const WORD = 32

/** Parses a type such as `uint256`, `address[]`, `(uint8,string)[2]`; throws naming what is wrong. */
export function parseAbiType(text: string): AbiType {
  const s = text.trim()
  const array = /^(.*)\[(\d*)\]$/.exec(s)
  if (array) return { kind: 'array', of: parseAbiType(array[1]!), length: array[2] === '' ? undefined : Number(array[2]) }
  if (s.startsWith('(') && s.endsWith(')')) return { kind: 'tuple', of: splitTopLevel(s.slice(1, -1)).map(parseAbiType) }
  const int = /^(u?int)(\d*)$/.exec(s)
  if (int) {
    const bits = int[2] === '' ? 256 : Number(int[2])
    if (bits < 8 || bits > 256 || bits % 8 !== 0) throw new Error(`invalid ABI type "${text}": width must be 8..256 in steps of 8`)
    return { kind: int[1] as 'uint' | 'int', bits }
  }
  const fixed = /^bytes(\d+)$/.exec(s)
  if (fixed) {
    const size = Number(fixed[1])
    if (size < 1 || size > 32) throw new Error(`invalid ABI type "${text}": bytes1..bytes32`)
    return { kind: 'fixedBytes', size }
  }
  if (s === 'address' || s === 'bool' || s === 'bytes' || s === 'string') return { kind: s }
  throw new Error(`invalid ABI type "${text}"`)
}

/** The canonical spelling of a type (as in a function selector: `uint` → `uint256`). */
export function formatAbiType(t: AbiType): string {
  switch (t.kind) {
    case 'uint':
    case 'int':
      return `${t.kind}${t.bits}`
    case 'fixedBytes':
      return `bytes${t.size}`
    case 'array':
      return `${formatAbiType(t.of)}[${t.length ?? ''}]`
    case 'tuple':
      return `(${t.of.map(formatAbiType).join(',')})`
    default:
      return t.kind
  }
}

/** Splits `a,b,(c,d),e[]` at its top-level commas; '' gives []. */
export function splitTopLevel(text: string): string[] {
  if (text.trim() === '') return []
  const parts: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '(' || c === '[') depth++
    else if (c === ')' || c === ']') depth--
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i).trim())
      start = i + 1
    }
  }
  parts.push(text.slice(start).trim())
  return parts
}

function isDynamic(t: AbiType): boolean {
  if (t.kind === 'bytes' || t.kind === 'string') return true
  if (t.kind === 'array') return t.length === undefined || isDynamic(t.of)
  if (t.kind === 'tuple') return t.of.some(isDynamic)
  return false
}

/** Bytes a static type takes in the head. */
function headSize(t: AbiType): number {
  if (isDynamic(t)) return WORD
  if (t.kind === 'array') return t.length! * headSize(t.of)
  if (t.kind === 'tuple') return t.of.reduce((n, x) => n + headSize(x), 0)
  return WORD
}

/** `abi.encode(values)` of `types`. */
export function encodeAbi(types: readonly AbiType[], values: readonly AbiValue[]): Uint8Array {
  if (types.length !== values.length) throw new Error(`ABI: ${types.length} types but ${values.length} values`)
  const heads: Uint8Array[] = []
  const tails: Uint8Array[] = []
  let tailOffset = types.reduce((n, t) => n + headSize(t), 0)
  for (const [i, t] of types.entries()) {
    const encoded = encodeOne(t, values[i]!)
    if (isDynamic(t)) {
      heads.push(uintWord(BigInt(tailOffset)))
      tails.push(encoded)
      tailOffset += encoded.length
    } else heads.push(encoded)
  }
  return concatBytes(...heads, ...tails)
}

function encodeOne(t: AbiType, v: AbiValue): Uint8Array {
  switch (t.kind) {
    case 'uint': {
      const n = asBigint(v, t)
      if (n < 0n || n >= 1n << BigInt(t.bits)) throw new Error(`ABI: ${n} does not fit ${formatAbiType(t)}`)
      return uintWord(n)
    }
    case 'int': {
      const n = asBigint(v, t)
      const half = 1n << BigInt(t.bits - 1)
      if (n < -half || n >= half) throw new Error(`ABI: ${n} does not fit ${formatAbiType(t)}`)
      return uintWord(n < 0n ? (1n << 256n) + n : n)
    }
    case 'address': {
      const bytes = asHex(v, t)
      if (bytes.length !== 20) throw new Error(`ABI: "${String(v)}" is not an address (20 bytes)`)
      return padLeft(bytes)
    }
    case 'bool':
      if (typeof v !== 'boolean') throw new Error(`ABI: want true or false for bool, got ${String(v)}`)
      return uintWord(v ? 1n : 0n)
    case 'fixedBytes': {
      const bytes = asHex(v, t)
      if (bytes.length !== t.size) throw new Error(`ABI: want ${t.size} bytes for bytes${t.size}, got ${bytes.length}`)
      return padRight(bytes)
    }
    case 'bytes':
    case 'string': {
      const bytes = t.kind === 'string' ? utf8ToBytes(String(v)) : asHex(v, t)
      return concatBytes(uintWord(BigInt(bytes.length)), padRight(bytes))
    }
    case 'array': {
      if (!Array.isArray(v)) throw new Error(`ABI: want an array for ${formatAbiType(t)}`)
      if (t.length !== undefined && v.length !== t.length)
        throw new Error(`ABI: want ${t.length} elements for ${formatAbiType(t)}, got ${v.length}`)
      const body = encodeAbi(
        v.map(() => t.of),
        v,
      )
      return t.length === undefined ? concatBytes(uintWord(BigInt(v.length)), body) : body
    }
    case 'tuple':
      if (!Array.isArray(v)) throw new Error(`ABI: want a tuple for ${formatAbiType(t)}`)
      return encodeAbi(t.of, v)
  }
}

/** `abi.decode(data, types)`; throws on data too short for the types. */
export function decodeAbi(types: readonly AbiType[], data: Uint8Array): AbiValue[] {
  let at = 0
  return types.map((t) => {
    const value = isDynamic(t) ? decodeOne(t, data, Number(readWord(data, at))) : decodeOne(t, data, at)
    at += headSize(t)
    return value
  })
}

function decodeOne(t: AbiType, data: Uint8Array, at: number): AbiValue {
  switch (t.kind) {
    case 'uint':
      return readWord(data, at) & ((1n << BigInt(t.bits)) - 1n)
    case 'int': {
      const n = readWord(data, at)
      return n >= 1n << 255n ? n - (1n << 256n) : n
    }
    case 'address':
      return bytesToHex(slice(data, at + 12, 20))
    case 'bool':
      return readWord(data, at) !== 0n
    case 'fixedBytes':
      return bytesToHex(slice(data, at, t.size))
    case 'bytes':
    case 'string': {
      const bytes = slice(data, at + WORD, Number(readWord(data, at)))
      return t.kind === 'string' ? bytesToUtf8(bytes) : bytesToHex(bytes)
    }
    case 'array': {
      const length = t.length ?? Number(readWord(data, at))
      const start = t.length === undefined ? at + WORD : at
      return decodeAbi(
        Array.from({ length }, () => t.of),
        data.subarray(start),
      )
    }
    case 'tuple':
      return decodeAbi(t.of, data.subarray(at))
  }
}

function readWord(data: Uint8Array, at: number): bigint {
  return bytesToBigint(slice(data, at, WORD))
}

function slice(data: Uint8Array, at: number, length: number): Uint8Array {
  if (at < 0 || length < 0 || at + length > data.length) throw new Error(`ABI: data too short (${data.length} bytes) for the types`)
  return data.subarray(at, at + length)
}

function uintWord(n: bigint): Uint8Array {
  return bigintToBytes(n, WORD)
}

function padLeft(bytes: Uint8Array): Uint8Array {
  return concatBytes(new Uint8Array(WORD - bytes.length), bytes)
}

function padRight(bytes: Uint8Array): Uint8Array {
  const rest = bytes.length % WORD
  return rest === 0 ? bytes : concatBytes(bytes, new Uint8Array(WORD - rest))
}

function asBigint(v: AbiValue, t: AbiType): bigint {
  if (typeof v === 'bigint') return v
  throw new Error(`ABI: want an integer for ${formatAbiType(t)}, got ${String(v)}`)
}

function asHex(v: AbiValue, t: AbiType): Uint8Array {
  if (typeof v === 'string' && /^0x([0-9a-fA-F]{2})*$/.test(v)) return hexToBytes(v)
  throw new Error(`ABI: want 0x hex bytes for ${formatAbiType(t)}, got ${String(v)}`)
}
