/** The event query parser: every operator and operand kind, the canonical text, and faults with their offsets. */
import { describe, expect, it } from 'vitest'
import { QueryParseError, formatQuery, parseQuery } from '../../../src/comet/query/index.js'

function faultOf(text: string): { offset: number; reason: string } {
  try {
    parseQuery(text)
  } catch (err) {
    expect(err).toBeInstanceOf(QueryParseError)
    const e = err as QueryParseError
    expect(e.message).toBe(`offset ${e.offset}: ${e.reason}`)
    return { offset: e.offset, reason: e.reason }
  }
  throw new Error(`parsed: ${text}`)
}

describe('parseQuery', () => {
  it('parses each operator', () => {
    const q = parseQuery("tm.event='Tx' AND tx.height<5 AND tx.height<=6 AND a.b>7 AND a.c>=8.5 AND t.x CONTAINS 'stake' AND e.f EXISTS")
    expect(q.conditions).toEqual([
      { tag: 'tm.event', op: '=', value: { kind: 'string', text: 'Tx' } },
      { tag: 'tx.height', op: '<', value: { kind: 'number', text: '5' } },
      { tag: 'tx.height', op: '<=', value: { kind: 'number', text: '6' } },
      { tag: 'a.b', op: '>', value: { kind: 'number', text: '7' } },
      { tag: 'a.c', op: '>=', value: { kind: 'number', text: '8.5' } },
      { tag: 't.x', op: 'CONTAINS', value: { kind: 'string', text: 'stake' } },
      { tag: 'e.f', op: 'EXISTS' },
    ])
  })

  it('parses DATE and TIME operands', () => {
    const q = parseQuery('a.d >= DATE 2024-01-02 AND a.t < TIME 2013-05-03T14:45:00Z AND a.u = TIME 2013-05-03T14:45:00.123+07:00')
    expect(q.conditions[0]!.value).toEqual({ kind: 'date', text: '2024-01-02', ms: Date.UTC(2024, 0, 2) })
    expect(q.conditions[1]!.value).toEqual({ kind: 'time', text: '2013-05-03T14:45:00Z', ms: Date.UTC(2013, 4, 3, 14, 45) })
    expect(q.conditions[2]!.value).toMatchObject({ kind: 'time', ms: Date.UTC(2013, 4, 3, 7, 45, 0, 123) })
  })

  it('keeps the source, allows free whitespace and formats canonically', () => {
    const text = "  tm.event =   'Tx'AND ethereum.recipient='0xAbC'  "
    const q = parseQuery(text)
    expect(q.source).toBe(text)
    expect(formatQuery(q)).toBe("tm.event = 'Tx' AND ethereum.recipient = '0xAbC'")
    expect(formatQuery(parseQuery('a.b EXISTS AND c.d>=DATE 2020-01-01'))).toBe('a.b EXISTS AND c.d >= DATE 2020-01-01')
  })

  it('takes strings verbatim (no escapes) and tags with digits, dashes and underscores', () => {
    expect(parseQuery("a-1.b_2='x AND y = 3'").conditions).toEqual([
      { tag: 'a-1.b_2', op: '=', value: { kind: 'string', text: 'x AND y = 3' } },
    ])
  })

  it('reports faults with their offsets', () => {
    expect(faultOf('')).toEqual({ offset: 0, reason: 'expected a tag (e.g. tm.event), found end of query' })
    expect(faultOf("tm.event 'Tx'").offset).toBe(9)
    expect(faultOf("tm.event != 'Tx'")).toMatchObject({ offset: 9 })
    expect(faultOf("tm.event='Tx' OR tx.height=1")).toEqual({ offset: 14, reason: 'expected "AND" or end of query, found "OR"' })
    expect(faultOf("tm.event='Tx' and tx.height=1").offset).toBe(14)
    expect(faultOf("tm.event='Tx")).toEqual({ offset: 9, reason: 'unterminated string: missing closing quote' })
    expect(faultOf("a.b < 'x'")).toMatchObject({ offset: 6, reason: expect.stringContaining('needs a number') })
    expect(faultOf('a.b CONTAINS 5')).toMatchObject({ offset: 13, reason: expect.stringContaining('CONTAINS needs a string') })
    expect(faultOf('a.b = -5')).toMatchObject({ offset: 6, reason: 'negative numbers are not supported' })
    expect(faultOf('a.b = 5x')).toMatchObject({ offset: 7 })
    expect(faultOf('a.b = 1.')).toMatchObject({ offset: 7 })
    expect(faultOf('a.b = foo')).toMatchObject({ offset: 6 })
    expect(faultOf('a.b = DATE 2024-13-01')).toMatchObject({ offset: 11, reason: expect.stringContaining('invalid date') })
    expect(faultOf('a.b = DATE 1899-01-01')).toMatchObject({ offset: 11, reason: expect.stringContaining('year 1899') })
    expect(faultOf('a.b = TIME 2024-01-01')).toMatchObject({ offset: 11, reason: expect.stringContaining('RFC3339') })
    expect(faultOf("a.b = 'x' AND")).toMatchObject({ offset: 13 })
    expect(faultOf("AND a.b = 'x'")).toMatchObject({ offset: 0, reason: 'expected a tag, found keyword AND' })
    expect(faultOf("(a.b = 'x')")).toMatchObject({ offset: 0 })
    expect(faultOf('a.b contains 5')).toMatchObject({ offset: 4 })
  })

  it('refuses queries longer than 512 bytes', () => {
    const long = `a.b = '${'x'.repeat(510)}'`
    expect(faultOf(long)).toMatchObject({ offset: 512 })
    expect(() => parseQuery(`a.b = '${'x'.repeat(503)}'`)).not.toThrow()
  })
})
