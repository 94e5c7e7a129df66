/**
 * Route parameter codecs: each decodes a JSON-RPC value (cmtjson rules: 64-bit integers as strings,
 * `[]byte` base64, `HexBytes` hex) and a URI query value (`http_uri_handler.go`: bare integers,
 * `0x` hex, `"quoted"` raw bytes, otherwise JSON), so validation cannot drift between transports.
 * Error texts follow Go's (`invalid 64-bit integer encoding "5", expected string`, ...).
 */
import { base64ToBytes, hexToBytes, utf8ToBytes, bytesToUtf8 } from '../../primitives/hex.js'
import type { DuplicateVoteEvidence } from '../../comet/types.js'
import { decodeEvidenceJson } from './evidence-json.js'
import { parseJsonGo } from './go-json-error.js'

/** How a URI value is pre-parsed (Go `_nonJSONStringToArg`: by the reflect kind of the argument). */
type UriClass = 'int' | 'string' | 'bytes' | 'other'

/** One named parameter of a route. */
export interface Param<N extends string = string, T = unknown> {
  readonly name: N
  /** Go reflect kind, for `got a hex string arg, but expected '<kind>'`. */
  readonly goKind: string
  readonly uriClass: UriClass
  /** Value when the parameter is missing, empty or null (Go's zero value; undefined for pointers). */
  readonly absent: T
  /** Decodes a JSON value (cmtjson); `source` is its text when known (Go quotes it in errors). Throws Error with Go's text. */
  decodeJson(value: unknown, source?: string): T
  /** Builds the value from raw bytes (URI `0x…` hex or `"quoted"` text) for string and byte kinds. */
  fromBytes?(bytes: Uint8Array): T
}

/** The value type of a Param. */
export type ParamValue<P> = P extends Param<string, infer T> ? T : never

/** The typed argument object of a parameter list. */
export type ArgsOf<P extends readonly Param[]> = { [K in P[number] as K['name']]: ParamValue<K> }

const INT64_MIN = -(1n << 63n)
const INT64_MAX = (1n << 63n) - 1n
const UINT64_MAX = (1n << 64n) - 1n

/** The JSON type name Go uses in `json: cannot unmarshal <type> into Go value of type …`. */
function jsonTypeName(v: unknown): string {
  if (Array.isArray(v)) return 'array'
  if (v === null) return 'null'
  return typeof v === 'object' ? 'object' : typeof v
}

function cannotUnmarshal(v: unknown, goType: string): Error {
  return new Error(`json: cannot unmarshal ${jsonTypeName(v)} into Go value of type ${goType}`)
}

/**
 * int64/int/uint: cmtjson wants a decimal string (libs/json/decoder.go: `invalid 64-bit integer
 * encoding %q, expected string` for anything unquoted, the JSON number 5 and `1e3` included), whose
 * text Go's decoder then reads as the integer type.
 */
function integerParam<N extends string, T extends bigint | undefined>(
  name: N,
  goType: 'int64' | 'int' | 'uint',
  absent: T,
): Param<N, bigint | T> {
  const [min, max] = goType === 'uint' ? [0n, UINT64_MAX] : [INT64_MIN, INT64_MAX]
  const check = (text: string): bigint => {
    const n = BigInt(text)
    if (n < min || n > max) throw new Error(`json: cannot unmarshal number ${text} into Go value of type ${goType}`)
    return n
  }
  return {
    name,
    goKind: goType,
    uriClass: 'int',
    absent,
    decodeJson(value, source) {
      if (value === null || value === undefined) return absent
      if (typeof value !== 'string')
        throw new Error(`invalid 64-bit integer encoding ${JSON.stringify(source ?? JSON.stringify(value))}, expected string`)
      const inner = parseJsonGo(value.trim() === '' ? '' : value)
      if (typeof inner !== 'number') throw cannotUnmarshal(inner, goType)
      const text = value.trim()
      if (!/^-?[0-9]+$/.test(text)) throw new Error(`json: cannot unmarshal number ${text} into Go value of type ${goType}`)
      return check(text)
    },
  }
}

/** A `*int64` (nil = default) such as `height`. */
export function int64Ptr<N extends string>(name: N): Param<N, bigint | undefined> {
  return integerParam(name, 'int64', undefined)
}

/** A plain `int64` (zero = default) such as `minHeight`. */
export function int64<N extends string>(name: N): Param<N, bigint> {
  return integerParam(name, 'int64', 0n)
}

/** A `*int` (nil = default) such as `page`, `per_page`, `limit`. */
export function intPtr<N extends string>(name: N): Param<N, bigint | undefined> {
  return integerParam(name, 'int', undefined)
}

/** A `uint` (zero = default) such as `chunk`. */
export function uint<N extends string>(name: N): Param<N, bigint> {
  return integerParam(name, 'uint', 0n)
}

/** A `bool` (false = default) such as `prove`. */
export function bool<N extends string>(name: N): Param<N, boolean> {
  return {
    name,
    goKind: 'bool',
    uriClass: 'other',
    absent: false,
    decodeJson(value) {
      if (value === null || value === undefined) return false
      if (typeof value !== 'boolean') throw cannotUnmarshal(value, 'bool')
      return value
    },
  }
}

/** A `string` ("" = default) such as `query`, `path`, `order_by`. */
export function string<N extends string>(name: N): Param<N, string> {
  return {
    name,
    goKind: 'string',
    uriClass: 'string',
    absent: '',
    decodeJson(value) {
      if (value === null || value === undefined) return ''
      if (typeof value !== 'string') throw cannotUnmarshal(value, 'string')
      return value
    },
    fromBytes: (b) => bytesToUtf8(b),
  }
}

/** Go's `base64.StdEncoding` (padded; CR and LF ignored); the error names the quantum Go stops at. */
function decodeStdBase64(s: string): Uint8Array {
  const clean = s.replace(/[\r\n]/g, '')
  const bad = /[^A-Za-z0-9+/=]|=[^=]/.exec(clean)
  if (bad) throw new Error(`illegal base64 data at input byte ${bad.index}`)
  if (clean.length % 4 !== 0 || /={3,}$/.test(clean))
    throw new Error(`illegal base64 data at input byte ${clean.length - (clean.length % 4)}`)
  return base64ToBytes(clean)
}

/** A `[]byte` (empty = default) such as `tx` or the `tx` route's `hash`: base64 in JSON-RPC. */
export function bytes<N extends string>(name: N): Param<N, Uint8Array> {
  return {
    name,
    goKind: 'slice',
    uriClass: 'bytes',
    absent: new Uint8Array(0),
    decodeJson(value) {
      if (value === null || value === undefined) return new Uint8Array(0)
      if (typeof value !== 'string') throw cannotUnmarshal(value, '[]uint8')
      return decodeStdBase64(value)
    },
    fromBytes: (b) => b,
  }
}

/** Go `hex.DecodeString` errors. */
function decodeGoHex(s: string): Uint8Array {
  const bad = /[^0-9a-fA-F]/.exec(s)
  if (bad) {
    const c = bad[0]
    throw new Error(
      `encoding/hex: invalid byte: U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} ${JSON.stringify(c).replace(/^"|"$/g, "'")}`,
    )
  }
  if (s.length % 2 !== 0) throw new Error('encoding/hex: odd length hex string')
  return hexToBytes(s)
}

/** A `bytes.HexBytes` (empty = default) such as `header_by_hash.hash`, `abci_query.data`: hex in JSON-RPC (a 0x prefix is tolerated). */
export function hexBytes<N extends string>(name: N): Param<N, Uint8Array> {
  return {
    name,
    goKind: 'slice',
    uriClass: 'bytes',
    absent: new Uint8Array(0),
    decodeJson(value) {
      if (value === null || value === undefined) return new Uint8Array(0)
      if (typeof value !== 'string') throw new Error(`invalid hex string: ${JSON.stringify(value)}`)
      return decodeGoHex(value.startsWith('0x') || value.startsWith('0X') ? value.slice(2) : value)
    },
    fromBytes: (b) => b,
  }
}

/** A `types.Evidence` (typed JSON `{"type":"tendermint/DuplicateVoteEvidence","value":…}`). */
export function evidence<N extends string>(name: N): Param<N, DuplicateVoteEvidence | undefined> {
  return {
    name,
    goKind: 'interface',
    uriClass: 'other',
    absent: undefined,
    decodeJson(value) {
      if (value === null || value === undefined) return undefined
      return decodeEvidenceJson(value)
    },
  }
}

/**
 * Decodes JSON-RPC `params`: an object by name (missing names → defaults) or an array with exactly
 * one element per parameter. Absent or null params mean all defaults.
 */
export function decodeJsonParams<P extends readonly Param[]>(params: readonly [...P], raw: unknown): ArgsOf<P> {
  const out: Record<string, unknown> = {}
  if (raw === undefined || raw === null) {
    for (const p of params) out[p.name] = p.absent
  } else if (Array.isArray(raw)) {
    if (raw.length !== params.length) {
      const got = raw.map((v) => `[${[...utf8ToBytes(JSON.stringify(v) ?? 'null')].join(' ')}]`).join(' ')
      throw new Error(`expected ${params.length} parameters ([${params.map((p) => p.name).join(' ')}]), got ${raw.length} ([${got}])`)
    }
    params.forEach((p, i) => {
      out[p.name] = p.decodeJson(raw[i])
    })
  } else if (typeof raw === 'object') {
    const obj = raw as Record<string, unknown>
    for (const p of params) out[p.name] = Object.hasOwn(obj, p.name) ? p.decodeJson(obj[p.name]) : p.absent
  } else {
    throw new Error(
      `unknown type for JSON params: json: cannot unmarshal ${jsonTypeName(raw)} into Go value of type []json.RawMessage. Expected map or array`,
    )
  }
  return out as ArgsOf<P>
}

/**
 * Decodes URI query values (`httpParamsToArgs`). `get` returns the first value of a name, or "" when
 * missing; "" means the default.
 */
export function decodeUriParams<P extends readonly Param[]>(params: readonly [...P], get: (name: string) => string): ArgsOf<P> {
  const out: Record<string, unknown> = {}
  for (const p of params) {
    const arg = get(p.name)
    out[p.name] = arg === '' ? p.absent : decodeUriValue(p, arg)
  }
  return out as ArgsOf<P>
}

function decodeUriValue<T>(p: Param<string, T>, arg: string): T {
  const isInt = /^-?[0-9]+$/.test(arg)
  const isQuoted = arg.startsWith('"') && arg.endsWith('"')
  const isHex = arg.toLowerCase().startsWith('0x')
  if (isInt && p.uriClass === 'int') return p.decodeJson(arg)
  if (isHex) {
    if (!p.fromBytes) throw new Error(`got a hex string arg, but expected '${p.goKind}'`)
    return p.fromBytes(decodeGoHex(arg.slice(2)))
  }
  if (isQuoted && p.uriClass === 'bytes') {
    const s = parseJsonGo(arg)
    if (typeof s !== 'string') throw cannotUnmarshal(s, 'string')
    return p.fromBytes!(utf8ToBytes(s))
  }
  return p.decodeJson(parseJsonGo(arg), arg)
}
