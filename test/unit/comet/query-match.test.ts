/** The query matcher over flattened events (CometBFT `libs/pubsub/query` semantics plus hex case folding). */
import { describe, expect, it } from 'vitest'
import { compareDecimal, flattenEvents, matchQuery, parseQuery, type EventMap } from '../../../src/comet/query/index.js'

const events: EventMap = flattenEvents(
  [
    {
      type: 'transfer',
      attributes: [
        { key: 'amount', value: '8stake', index: true },
        { key: 'sender', value: 'alice', index: true },
      ],
    },
    { type: 'transfer', attributes: [{ key: 'amount', value: '120000000000000000000001', index: true }] },
    {
      type: 'ethereum_tx',
      attributes: [{ key: 'ethereumTxHash', value: '0xabcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789', index: true }],
    },
    {
      type: 'account',
      attributes: [
        { key: 'created', value: '2024-03-01T10:00:00Z', index: true },
        { key: 'day', value: '2024-03-01', index: true },
      ],
    },
    { type: '', attributes: [{ key: 'ignored', value: 'x', index: true }] },
  ],
  new Map([
    ['tm.event', ['Tx']],
    ['tx.hash', ['D1A5C0FFEE00112233445566778899AABBCCDDEEFF00112233445566778899AA']],
    ['tx.height', ['42']],
  ]),
)
const match = (q: string): boolean => matchQuery(parseQuery(q), events)

describe('matchQuery', () => {
  it('= on strings is exact; any value of the key may match', () => {
    expect(match("tm.event='Tx'")).toBe(true)
    expect(match("tm.event='tx'")).toBe(false)
    expect(match("transfer.sender='alice'")).toBe(true)
    expect(match("transfer.sender='Alice'")).toBe(false)
    expect(match("nothing.here='x'")).toBe(false)
  })

  it('numbers compare as numbers on the leading number of a value', () => {
    expect(match('transfer.amount > 5')).toBe(true)
    expect(match('transfer.amount = 8')).toBe(true)
    expect(match('transfer.amount = 8.0')).toBe(true)
    expect(match('transfer.amount < 8')).toBe(false)
    expect(match('transfer.amount <= 8')).toBe(true)
    expect(match('transfer.amount >= 120000000000000000000001')).toBe(true)
    expect(match('transfer.amount > 120000000000000000000001')).toBe(false)
    expect(match('tx.height = 42 AND tx.height > 41.5 AND tx.height < 43')).toBe(true)
    expect(match('transfer.sender > 1')).toBe(false)
  })

  it('DATE and TIME compare as instants', () => {
    expect(match('account.created >= TIME 2024-03-01T09:00:00Z')).toBe(true)
    expect(match('account.created > TIME 2024-03-01T12:00:00+01:00')).toBe(false)
    expect(match('account.day = DATE 2024-03-01')).toBe(true)
    expect(match('account.day < DATE 2024-03-01')).toBe(false)
  })

  it('CONTAINS is a substring test, EXISTS a key (or event type) test', () => {
    expect(match("transfer.amount CONTAINS 'stake'")).toBe(true)
    expect(match("transfer.amount CONTAINS 'atom'")).toBe(false)
    expect(match('transfer.amount EXISTS')).toBe(true)
    expect(match('transfer EXISTS')).toBe(true)
    expect(match('transfer.fee EXISTS')).toBe(false)
    expect(events.has('.ignored')).toBe(false)
  })

  it('hex values match regardless of letter case', () => {
    expect(match("ethereum_tx.ethereumTxHash='0xABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789'")).toBe(true)
    expect(match("tx.hash='d1a5c0ffee00112233445566778899aabbccddeeff00112233445566778899aa'")).toBe(true)
    expect(match("ethereum_tx.ethereumTxHash CONTAINS '0xABCDEF'")).toBe(true)
  })

  it('all conditions must hold', () => {
    expect(match("tm.event='Tx' AND transfer.sender='alice' AND tx.height=42")).toBe(true)
    expect(match("tm.event='Tx' AND transfer.sender='bob'")).toBe(false)
  })

  it('compareDecimal is exact', () => {
    expect(compareDecimal('007', '7')).toBe(0)
    expect(compareDecimal('7.10', '7.1')).toBe(0)
    expect(compareDecimal('7.01', '7.1')).toBe(-1)
    expect(compareDecimal('100000000000000000001', '100000000000000000000')).toBe(1)
  })
})
