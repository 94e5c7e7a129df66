/**
 * Parser of the event query language (after CometBFT `libs/pubsub/query/syntax/{scanner,parser}.go`):
 *
 *   query     = condition { "AND" condition }
 *   condition = tag ( "=" (string|number|date|time) | ("<"|"<="|">"|">=") (number|date|time)
 *                   | "CONTAINS" string | "EXISTS" )
 *
 * Keywords are case-sensitive; strings are single-quoted without escapes; numbers are unsigned
 * `digits[.digits]`. Errors name the byte offset of the fault.
 */
import { MAX_QUERY_BYTES, QueryOp, QueryParseError, type Query, type QueryCondition, type QueryValue } from './query.js'

/** DATE and TIME years CometBFT accepts (`syntax.ParseDate/ParseTime` reject years outside 1900–2999). */
const MIN_YEAR = 1900
const MAX_YEAR = 2999
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/
const TIME_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/
const TAG_FIRST = /[A-Za-z0-9_]/
const TAG_REST = /[A-Za-z0-9_.-]/
const NUMBER_RE = /^\d+(\.\d+)?/
/** A bare word: keywords, DATE/TIME operands. */
const WORD_RE = /^[^\s']+/

/** Parses a query; throws QueryParseError with the offset of the first fault. */
export function parseQuery(source: string): Query {
  if (Buffer.byteLength(source, 'utf8') > MAX_QUERY_BYTES)
    throw new QueryParseError(MAX_QUERY_BYTES, `query is longer than ${MAX_QUERY_BYTES} bytes`)
  const p = new Parser(source)
  const conditions: QueryCondition[] = [p.condition()]
  for (;;) {
    p.skipSpace()
    if (p.atEnd()) break
    const word = p.word()
    if (word !== 'AND') p.fail(`expected "AND" or end of query, found ${quote(word)}`)
    p.advance(word.length)
    conditions.push(p.condition())
  }
  return { source, conditions }
}

function quote(s: string): string {
  return s === '' ? 'end of query' : JSON.stringify(s)
}

class Parser {
  private pos = 0

  constructor(private readonly s: string) {}

  atEnd(): boolean {
    return this.pos >= this.s.length
  }

  advance(n: number): void {
    this.pos += n
  }

  skipSpace(): void {
    while (!this.atEnd() && /\s/.test(this.s[this.pos]!)) this.pos++
  }

  fail(reason: string, at = this.pos): never {
    throw new QueryParseError(at, reason)
  }

  /** The next run of non-space, non-quote characters (empty at the end or before a quote). */
  word(): string {
    return WORD_RE.exec(this.s.slice(this.pos))?.[0] ?? (this.atEnd() ? '' : this.s[this.pos]!)
  }

  condition(): QueryCondition {
    this.skipSpace()
    const tag = this.tag()
    this.skipSpace()
    const op = this.operator()
    if (op === QueryOp.Exists) return { tag, op }
    this.skipSpace()
    const at = this.pos
    const value = this.value()
    if (op === QueryOp.Contains && value.kind !== 'string') this.fail(`CONTAINS needs a string operand, found ${value.kind}`, at)
    if (op !== QueryOp.Eq && op !== QueryOp.Contains && value.kind === 'string')
      this.fail(`operator ${op} needs a number, DATE or TIME operand, found a string`, at)
    return { tag, op, value }
  }

  private tag(): string {
    const start = this.pos
    if (this.atEnd() || !TAG_FIRST.test(this.s[this.pos]!)) this.fail(`expected a tag (e.g. tm.event), found ${quote(this.word())}`)
    this.pos++
    while (!this.atEnd() && TAG_REST.test(this.s[this.pos]!)) this.pos++
    const tag = this.s.slice(start, this.pos)
    if (tag === 'AND' || tag === 'CONTAINS' || tag === 'EXISTS') this.fail(`expected a tag, found keyword ${tag}`, start)
    return tag
  }

  private operator(): QueryOp {
    const rest = this.s.slice(this.pos)
    for (const op of [QueryOp.Le, QueryOp.Ge, QueryOp.Eq, QueryOp.Lt, QueryOp.Gt] as const) {
      if (rest.startsWith(op)) {
        this.pos += op.length
        return op
      }
    }
    const word = this.word()
    if (word === QueryOp.Contains || word === QueryOp.Exists) {
      this.pos += word.length
      return word
    }
    return this.fail(`expected an operator (=, <, <=, >, >=, CONTAINS, EXISTS), found ${quote(word)}`)
  }

  private value(): QueryValue {
    const rest = this.s.slice(this.pos)
    if (rest.startsWith("'")) {
      const end = this.s.indexOf("'", this.pos + 1)
      if (end < 0) this.fail('unterminated string: missing closing quote')
      const text = this.s.slice(this.pos + 1, end)
      this.pos = end + 1
      return { kind: 'string', text }
    }
    const num = NUMBER_RE.exec(rest)
    if (num) {
      this.pos += num[0].length
      if (!this.atEnd() && !/\s/.test(this.s[this.pos]!)) this.fail(`invalid number: unexpected ${quote(this.s[this.pos]!)}`)
      return { kind: 'number', text: num[0] }
    }
    const keyword = this.word()
    if (keyword === 'DATE' || keyword === 'TIME') {
      this.pos += keyword.length
      this.skipSpace()
      const at = this.pos
      const text = this.word()
      this.pos += text.length
      return keyword === 'DATE' ? { kind: 'date', text, ms: parseDate(text, at) } : { kind: 'time', text, ms: parseTime(text, at) }
    }
    if (keyword.startsWith('-')) this.fail('negative numbers are not supported')
    return this.fail(`expected a value ('string', number, DATE or TIME), found ${quote(keyword)}`)
  }
}

function checkYear(year: number, at: number): void {
  if (year < MIN_YEAR || year > MAX_YEAR) throw new QueryParseError(at, `year ${year} is outside ${MIN_YEAR}–${MAX_YEAR}`)
}

/** `DATE YYYY-MM-DD` (UTC midnight). */
function parseDate(text: string, at: number): number {
  const m = DATE_RE.exec(text)
  if (!m) throw new QueryParseError(at, `invalid date ${quote(text)}: expected YYYY-MM-DD`)
  checkYear(Number(m[1]), at)
  const ms = Date.parse(`${text}T00:00:00Z`)
  if (Number.isNaN(ms) || new Date(ms).getUTCDate() !== Number(m[3])) throw new QueryParseError(at, `invalid date ${quote(text)}`)
  return ms
}

/** `TIME <RFC3339>`, e.g. 2013-05-03T14:45:00Z or 2013-05-03T14:45:00+07:00. */
function parseTime(text: string, at: number): number {
  const m = TIME_RE.exec(text)
  if (!m) throw new QueryParseError(at, `invalid time ${quote(text)}: expected RFC3339, e.g. 2013-05-03T14:45:00Z`)
  checkYear(Number(m[1]), at)
  const ms = Date.parse(text)
  if (Number.isNaN(ms)) throw new QueryParseError(at, `invalid time ${quote(text)}`)
  return ms
}

/** Parses an event attribute as a date or an RFC3339 time (undefined when it is neither). */
export function parseAttributeTime(value: string): number | undefined {
  if (!DATE_RE.test(value) && !TIME_RE.test(value)) return undefined
  const ms = Date.parse(DATE_RE.test(value) ? `${value}T00:00:00Z` : value)
  return Number.isNaN(ms) ? undefined : ms
}
