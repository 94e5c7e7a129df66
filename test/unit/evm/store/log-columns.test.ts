import { describe, expect, it } from 'vitest'
import { LogColumns, matchesLog, packCriteria, type LogCriteria } from '../../../../src/evm/store/log-columns.js'
import { LogMatches } from '../../../../src/evm/store/log-matches.js'
import type { EvmLog } from '../../../../src/evm/store/views.js'

const value = (n: number, fill: number) => new Uint8Array(n).fill(fill)
const address = (k: number) => value(20, k)
const topic = (k: number) => value(32, k)

function log(i: number, addr: Uint8Array, topics: Uint8Array[]): EvmLog {
  return {
    address: addr,
    topics,
    data: new Uint8Array(0),
    blockNumber: 1,
    blockHash: value(32, 0),
    transactionHash: value(32, i),
    transactionIndex: i,
    logIndex: i,
    removed: false,
  }
}

/** A block of logs from two addresses, with 0..4 topics drawn from three values. */
const block: EvmLog[] = Array.from({ length: 40 }, (_, i) =>
  log(
    i,
    address(1 + (i % 2)),
    Array.from({ length: i % 5 }, (_, p) => topic(1 + ((i + p) % 3))),
  ),
)

const criteria: LogCriteria[] = [
  { addresses: [], topics: [] },
  { addresses: [address(1)], topics: [] },
  { addresses: [address(2), address(1)], topics: [] },
  { addresses: [address(9)], topics: [] },
  { addresses: [value(19, 1)], topics: [] },
  { addresses: [], topics: [[topic(1)]] },
  { addresses: [address(1)], topics: [[topic(2), topic(3)]] },
  { addresses: [], topics: [null, [topic(3)]] },
  { addresses: [], topics: [[], null, null] },
  { addresses: [address(2)], topics: [null, null, null, [topic(1), topic(2), topic(3)]] },
  { addresses: [], topics: [[topic(1)], [value(31, 2)]] },
  { addresses: [], topics: [null, null, null, null] },
]

/** The positions `collect` finds. */
function collected(columns: LogColumns, c: LogCriteria): number[] {
  const out = new LogMatches()
  columns.collect(packCriteria(c), out)
  return out.blocks.flatMap((b) => b.indexes)
}

/** The positions the per-log rule accepts. */
const perLog = (logs: EvmLog[], c: LogCriteria) => logs.flatMap((l, i) => (matchesLog(l, c) ? [i] : []))

describe('LogColumns', () => {
  it('matches exactly as the per-log rule, for every kind of criteria', () => {
    const columns = new LogColumns(block)
    for (const c of criteria) expect(collected(columns, c), JSON.stringify(c)).toEqual(perLog(block, c))
    // again, now that the columns are packed
    for (const c of criteria) expect(collected(columns, c)).toEqual(perLog(block, c))
    expect(collected(columns, { addresses: [address(1)], topics: [[topic(1)]] }).length).toBeGreaterThan(0)
  })

  it('matches a block holding a value of another size log by log', () => {
    const odd = [...block.slice(0, 5), log(5, value(19, 1), [topic(1)]), log(6, address(1), [value(33, 1)])]
    for (const c of criteria) expect(collected(new LogColumns(odd), c)).toEqual(perLog(odd, c))
  })

  it('adds nothing for a block without a match', () => {
    const out = new LogMatches()
    new LogColumns(block).collect(packCriteria({ addresses: [address(9)], topics: [] }), out)
    expect(out.blocks).toEqual([])
    expect(out.count).toBe(0)
  })
})
