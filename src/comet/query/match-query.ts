/**
 * Evaluates a parsed query against events flattened CometBFT's way (`libs/pubsub/query/query.go`):
 * `"<type>.<key>" → [values]`. A condition holds when ANY value of its key satisfies it; a query
 * holds when every condition does. Numbers compare as decimals on the value's leading number (so
 * `amount > 5` holds for `"8stake"`); DATE/TIME compare as instants; CONTAINS is a substring test;
 * EXISTS asks for the key (or, for a bare event type, any key of that type).
 *
 * One addition for EVM chains: hex values (`0x…`, or 40+ hex digits such as addresses and hashes)
 * compare regardless of letter case, so `ethereum_tx.ethereumTxHash='0xABC…'` finds `0xabc…`.
 */
import type { AbciEvent } from '../../abci/types.js'
import { parseAttributeTime } from './parse-query.js'
import { QueryOp, type Query, type QueryCondition } from './query.js'

/** Composite key → values, in emission order. */
export type EventMap = Map<string, string[]>

const LEADING_NUMBER = /^\d+(\.\d+)?/
/** `0x`-prefixed hex, or bare hex of at least an address's 40 digits (upper-case consensus hashes). */
const HEX_VALUE = /^(0[xX][0-9a-fA-F]*|[0-9a-fA-F]{40,})$/

/** Lower-cases hex values (addresses, hashes) so their comparison ignores letter case; other text is unchanged. */
export function foldHex(value: string): string {
  return HEX_VALUE.test(value) ? value.toLowerCase() : value
}

/** Adds `type.key → value` for every attribute of `events` (empty types and keys skipped, as CometBFT). */
export function flattenEvents(events: readonly AbciEvent[], into: EventMap = new Map()): EventMap {
  for (const e of events) {
    if (e.type === '') continue
    for (const a of e.attributes) {
      if (a.key === '') continue
      addEvent(into, `${e.type}.${a.key}`, a.value)
    }
  }
  return into
}

/** Appends one value to a key. */
export function addEvent(map: EventMap, key: string, value: string): void {
  const values = map.get(key)
  if (values) values.push(value)
  else map.set(key, [value])
}

/** Whether every condition holds for the map. */
export function matchQuery(query: Pick<Query, 'conditions'>, events: EventMap): boolean {
  return query.conditions.every((c) => matchCondition(c, events))
}

/** Whether one condition holds for the map. */
export function matchCondition(c: QueryCondition, events: EventMap): boolean {
  if (c.op === QueryOp.Exists) {
    if (events.has(c.tag)) return true
    const prefix = `${c.tag}.`
    for (const key of events.keys()) if (key.startsWith(prefix)) return true
    return false
  }
  const values = events.get(c.tag)
  return values?.some((v) => matchValue(c, v)) === true
}

/** Whether an attribute value satisfies the condition. */
export function matchValue(c: QueryCondition, value: string): boolean {
  const q = c.value
  if (q === undefined) return true
  switch (q.kind) {
    case 'string':
      return c.op === QueryOp.Contains ? containsFolded(value, q.text) : foldHex(value) === foldHex(q.text)
    case 'number': {
      const m = LEADING_NUMBER.exec(value)
      return m !== null && compareResult(c.op, compareDecimal(m[0], q.text))
    }
    case 'date':
    case 'time': {
      const ms = parseAttributeTime(value)
      return ms !== undefined && compareResult(c.op, Math.sign(ms - q.ms))
    }
  }
}

function containsFolded(value: string, part: string): boolean {
  if (value.includes(part)) return true
  return HEX_VALUE.test(value) && value.toLowerCase().includes(part.toLowerCase())
}

function compareResult(op: QueryOp, cmp: number): boolean {
  switch (op) {
    case QueryOp.Eq:
      return cmp === 0
    case QueryOp.Lt:
      return cmp < 0
    case QueryOp.Le:
      return cmp <= 0
    case QueryOp.Gt:
      return cmp > 0
    case QueryOp.Ge:
      return cmp >= 0
    default:
      return false
  }
}

/**
 * Exact comparison of two unsigned decimals `digits[.digits]` (-1, 0, 1): CometBFT compares with
 * big.Float, so 256-bit amounts must not lose precision as JS numbers would.
 */
export function compareDecimal(a: string, b: string): number {
  const [ai = '', af = ''] = a.split('.')
  const [bi = '', bf = ''] = b.split('.')
  const aInt = ai.replace(/^0+/, '')
  const bInt = bi.replace(/^0+/, '')
  if (aInt.length !== bInt.length) return aInt.length < bInt.length ? -1 : 1
  if (aInt !== bInt) return aInt < bInt ? -1 : 1
  const len = Math.max(af.length, bf.length)
  const aFrac = af.padEnd(len, '0')
  const bFrac = bf.padEnd(len, '0')
  return aFrac === bFrac ? 0 : aFrac < bFrac ? -1 : 1
}
