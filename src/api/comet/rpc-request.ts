/**
 * The JSON-RPC request envelope as CometBFT reads it (`rpc/jsonrpc/types.RPCRequest`): `jsonrpc` is
 * not checked, an absent or null id makes a notification, numeric ids become Go ints (goIntId),
 * string ids are kept, any other id type is a parse error. Field names match case-insensitively,
 * as Go's decoder does.
 */
import type { RpcId } from './errors.js'
import { RawJson } from './wire-json.js'

/** 2^63: Go's `int` (64-bit) holds integers below it. */
const TWO_POW_63 = 2 ** 63

/**
 * A numeric id as CometBFT keeps it: Go decodes it as a float64 and converts it with `int(id)`
 * (types.go `idFromInterface`), which truncates; out of range (|id| ≥ 2^63), amd64's conversion gives
 * the "integer indefinite" value, -9223372036854775808. So 2^53+1 comes back as 9007199254740992 and
 * 123456789012345678901234567890 as -9223372036854775808. Integers beyond 2^53 are written exactly
 * (Go prints the int), not in JavaScript's rounded form.
 */
function goIntId(value: number): RpcId {
  const n = Math.trunc(value)
  if (Number.isSafeInteger(n)) return n === 0 ? 0 : n
  if (n >= TWO_POW_63 || n < -TWO_POW_63) return new RawJson('-9223372036854775808')
  return new RawJson(BigInt(n).toString())
}

/** A decoded request; `id` undefined = notification (no reply). */
export interface RpcRequest {
  id?: RpcId
  method: string
  /** Raw params; undefined when absent. */
  params: unknown
}

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array'
  return v === null ? 'null' : typeof v === 'object' ? 'object' : typeof v
}

/** Go's `%v` and `%T` of an id of the wrong type, for `json-rpc ID (%v) is of unknown type (%T)`. */
function describeBadId(v: unknown): [string, string] {
  if (typeof v === 'boolean') return [String(v), 'bool']
  if (Array.isArray(v)) return [`[${v.map((x) => String(x)).join(' ')}]`, '[]interface {}']
  const entries = Object.entries(v as Record<string, unknown>).map(([k, x]) => `${k}:${String(x)}`)
  return [`map[${entries.join(' ')}]`, 'map[string]interface {}']
}

/** The member named `name`: exact match first, then case-insensitive (Go `encoding/json`). */
function member(obj: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(obj, name)) return obj[name]
  const key = Object.keys(obj).find((k) => k.toLowerCase() === name)
  return key === undefined ? undefined : obj[key]
}

/** Decodes one request object; throws Error with Go's text (the caller answers -32700). */
export function parseRpcRequest(value: unknown): RpcRequest {
  if (value === null) return { method: '', params: undefined }
  if (typeof value !== 'object' || Array.isArray(value))
    throw new Error(`json: cannot unmarshal ${jsonType(value)} into Go value of type types.RPCRequest`)
  const obj = value as Record<string, unknown>
  for (const field of ['jsonrpc', 'method']) {
    const v = member(obj, field)
    if (v !== undefined && v !== null && typeof v !== 'string')
      throw new Error(`json: cannot unmarshal ${jsonType(v)} into Go struct field .${field} of type string`)
  }
  const rawId = member(obj, 'id')
  const method = (member(obj, 'method') as string | null | undefined) ?? ''
  const params = member(obj, 'params')
  if (rawId === undefined || rawId === null) return { method, params }
  let id: RpcId
  if (typeof rawId === 'string') id = rawId
  else if (typeof rawId === 'number') id = goIntId(rawId)
  else {
    const [v, t] = describeBadId(rawId)
    throw new Error(`json-rpc ID (${v}) is of unknown type (${t})`)
  }
  return { id, method, params }
}
