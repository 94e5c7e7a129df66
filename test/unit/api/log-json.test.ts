import { describe, expect, it } from 'vitest'
import { formatLog } from '../../../src/api/eth/format.js'
import { renderLogJson, renderLogsJson } from '../../../src/api/eth/log-json.js'
import type { EvmLog } from '../../../src/chain/evm/views.js'

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

describe('log JSON', () => {
  it('renders exactly what JSON.stringify(formatLog(log)) renders', () => {
    const logs = [
      log(0, new Uint8Array(0)),
      log(1, bytes(1, 0)),
      log(4, bytes(100, 0x7f), { blockNumber: 0, transactionIndex: 0, logIndex: 0 }),
      log(3, bytes(32, 0xff), { blockNumber: Number.MAX_SAFE_INTEGER, removed: true }),
    ]
    for (const l of logs) expect(renderLogJson(l)).toBe(JSON.stringify(formatLog(l)))
    expect(renderLogsJson(logs).text).toBe(JSON.stringify(logs.map(formatLog)))
    expect(renderLogsJson([]).text).toBe('[]')
  })

  it('memoises per log object', () => {
    const l = log(2, bytes(4, 1))
    expect(renderLogJson(l)).toBe(renderLogJson(l))
  })
})
