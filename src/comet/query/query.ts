/**
 * The event query language of CometBFT's pubsub and kv indexer (`libs/pubsub/query/syntax`):
 * `condition {AND condition}`, where a condition compares a
 * composite key `<event type>.<attribute key>` with a string, number, DATE or TIME, or tests it with
 * CONTAINS / EXISTS. This file holds the parsed form and its canonical text; parse-query.ts parses,
 * match-query.ts evaluates.
 */
import { NodeError } from '../../utils/errors.js'

/** Comparison operators, as written in a query. */
export const QueryOp = {
  Eq: '=',
  Lt: '<',
  Le: '<=',
  Gt: '>',
  Ge: '>=',
  Contains: 'CONTAINS',
  Exists: 'EXISTS',
} as const
export type QueryOp = (typeof QueryOp)[keyof typeof QueryOp]

/** An operand: `'text'`, a non-negative decimal, `DATE YYYY-MM-DD` or `TIME <RFC3339>` (ms since epoch). */
export type QueryValue =
  | { kind: 'string'; text: string }
  | { kind: 'number'; text: string }
  | { kind: 'date'; text: string; ms: number }
  | { kind: 'time'; text: string; ms: number }

/** One condition; `value` is absent only for EXISTS. */
export interface QueryCondition {
  /** Composite key, e.g. `tm.event`, `ethereum_tx.ethereumTxHash`. */
  tag: string
  op: QueryOp
  value?: QueryValue
}

/** A parsed query: every condition must hold. */
export interface Query {
  /** The text as given (subscriptions echo it back). */
  source: string
  conditions: QueryCondition[]
}

/** Reserved composite keys (CometBFT `types/events.go`): set by the node, never by the application. */
export const ReservedKey = {
  event: 'tm.event',
  txHash: 'tx.hash',
  txHeight: 'tx.height',
  blockHeight: 'block.height',
} as const

/** `maxQueryLength` of subscribe and tx_search (rpc/core/events.go), in bytes. */
export const MAX_QUERY_BYTES = 512

/** A query that does not parse (the caller's mistake); `offset` is the 0-based byte offset of the fault. */
export class QueryParseError extends NodeError {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(`offset ${offset}: ${reason}`)
  }
}

/** The canonical text of a value (what `formatQuery` writes). */
export function formatQueryValue(v: QueryValue): string {
  switch (v.kind) {
    case 'string':
      return `'${v.text}'`
    case 'number':
      return v.text
    case 'date':
      return `DATE ${v.text}`
    case 'time':
      return `TIME ${v.text}`
  }
}

/** The normalised text of a query (single spaces): subscriptions are keyed by it, as CometBFT keys by `query.String()`. */
export function formatQuery(q: Pick<Query, 'conditions'>): string {
  return q.conditions
    .map((c) => (c.value === undefined ? `${c.tag} ${c.op}` : `${c.tag} ${c.op} ${formatQueryValue(c.value)}`))
    .join(' AND ')
}

/** The event type of a composite key (`ethereum_tx` of `ethereum_tx.ethereumTxHash`). */
export function eventTypeOf(tag: string): string {
  const dot = tag.indexOf('.')
  return dot < 0 ? tag : tag.slice(0, dot)
}
