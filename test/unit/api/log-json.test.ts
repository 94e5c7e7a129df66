import { describe, expect, it } from 'vitest'
import { formatLog } from '../../../src/api/eth/format.js'
import { renderLogJson, renderLogsJson } from '../../../src/api/eth/log-json.js'
import { LogMatches } from '../../../src/evm/store/log-matches.js'
import type { EvmLog } from '../../../src/evm/store/views.js'

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill)

function log(topics: number, data: Uint8Array, over: Partial<EvmLog> = {}): EvmLog {
  return {
    address: bytes(20, 0xab),
    topics: Array.from({ length: topics }, (_, i) => bytes(32, i + 1)),
    data,
    blockNumber: 123_456,
    blockHash: bytes(32, 0xcd),
    transactionHash: bytes(32, 0xef),
    transactionIndex: 7,
    logIndex: 300,
    removed: false,
    ...over,
  }
}

/** `count` logs of block `height`, as the chain hands them out (0..4 topics, data of 0.. bytes). */
function blockLogs(height: number, count: number): EvmLog[] {
  return Array.from({ length: count }, (_, i) =>
    log(i % 5, bytes(i * 7, i), { blockNumber: height, logIndex: i, transactionIndex: i >> 1 }),
  )
}

/** Matches of `picks`: per block, its logs and the positions picked. */
function matchesOf(...picks: [EvmLog[], number[]][]): LogMatches {
  const out = new LogMatches()
  for (const [logs, indexes] of picks) out.add(logs, indexes)
  return out
}

/** The raw result as the dispatcher splices it, as text. */
const rawText = (m: LogMatches) => renderLogsJson(m).wrap('', '').toString('utf8')
/** What JSON.stringify of the formatted logs gives. */
const expected = (m: LogMatches) => JSON.stringify(m.toArray().map(formatLog))
const all = (logs: EvmLog[]) => logs.map((_, i) => i)

describe('log JSON', () => {
  it('renders one log exactly as JSON.stringify(formatLog(log))', () => {
    const logs = [
      ...[0, 1, 2, 3, 4].map((topics) => log(topics, new Uint8Array(0))),
      log(1, bytes(1, 0)),
      log(4, bytes(100, 0x7f), { blockNumber: 0, transactionIndex: 0, logIndex: 0 }),
      log(3, bytes(32, 0xff), { blockNumber: Number.MAX_SAFE_INTEGER, removed: true }),
      log(2, bytes(5000, 0x01), { address: bytes(20, 0) }),
    ]
    for (const l of logs) expect(renderLogJson(l)).toBe(JSON.stringify(formatLog(l)))
  })

  it('splices a result byte for byte as JSON.stringify of the formatted logs', () => {
    const a = blockLogs(10, 6)
    const b = blockLogs(11, 4)
    const one = blockLogs(12, 1)
    const cases = [
      matchesOf(),
      matchesOf([a, all(a)]),
      matchesOf([a, all(a)], [b, all(b)], [one, [0]]),
      matchesOf([a, [0, 1, 3, 5]], [b, [1, 2]]),
      matchesOf([a, [5]], [one, [0]], [b, [0, 3]]),
    ]
    for (const m of cases) {
      expect(rawText(m)).toBe(expected(m))
      expect(renderLogsJson(m).byteLength).toBe(expected(m).length)
    }
    expect(rawText(matchesOf())).toBe('[]')
  })

  it('copies a run of neighbouring logs as one chunk, a whole block when all of it matched', () => {
    const a = blockLogs(20, 6)
    const b = blockLogs(21, 4)
    // '[', one chunk per block, ',' between them, ']'
    expect(renderLogsJson(matchesOf([a, all(a)], [b, all(b)])).chunks).toHaveLength(5)
    // runs [0,1], [3], [5] of a and [1,2] of b, with commas between
    expect(renderLogsJson(matchesOf([a, [0, 1, 3, 5]], [b, [1, 2]])).chunks).toHaveLength(1 + 4 + 3 + 1)
  })

  it("renders a block once, against the block's array of logs", () => {
    const a = blockLogs(30, 3)
    const first = renderLogsJson(matchesOf([a, [0]])).chunks[1]!
    const again = renderLogsJson(matchesOf([a, [2]])).chunks[1]!
    expect(again.buffer).toBe(first.buffer)
    // the same logs in another array (the block read back after leaving the cache) render the same bytes
    const copy = blockLogs(30, 3)
    expect(renderLogsJson(matchesOf([copy, [2]])).chunks[1]!.buffer).not.toBe(first.buffer)
    expect(rawText(matchesOf([copy, all(copy)]))).toBe(rawText(matchesOf([a, all(a)])))
  })
})
