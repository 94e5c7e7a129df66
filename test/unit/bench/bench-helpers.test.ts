import { describe, expect, it } from 'vitest'
import { measureHeadDelivery } from '../../bench/head-delivery.js'
import { parseWorkloads, WORKLOADS } from '../../bench/options.js'
import { BUSY_LOGS_PER_TX, PLANNED_SHARE, planRangeLogs } from '../../bench/range-plan.js'
import { percentiles, rssBand, startupSummary, summarize } from '../../bench/stats.js'
import { holderWord } from '../../bench/workloads/eth-call.js'
import { isSingleMatch } from '../../bench/workloads/tx-search.js'

describe('percentiles', () => {
  it('takes nearest-rank values of 1..100', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i)
    expect(percentiles(values)).toEqual({ p50Ms: 51, p95Ms: 96, p99Ms: 100 })
  })

  it('is 0 for an empty sample and the value for one', () => {
    expect(percentiles([])).toEqual({ p50Ms: 0, p95Ms: 0, p99Ms: 0 })
    expect(summarize([1.23456])).toEqual({ count: 1, p50Ms: 1.235, p95Ms: 1.235, p99Ms: 1.235, maxMs: 1.235 })
  })
})

describe('parseWorkloads', () => {
  it('accepts a subset and rejects unknown names', () => {
    expect([...parseWorkloads('ws-heads, tx-search')]).toEqual(['ws-heads', 'tx-search'])
    expect(parseWorkloads(WORKLOADS.join(',')).size).toBe(WORKLOADS.length)
    expect(() => parseWorkloads('reads,nope')).toThrow('unknown nope')
  })
})

describe('planRangeLogs', () => {
  const plan = planRangeLogs({ blocks: 10_000, hits: 5, busyLogs: 10_005, noiseEvery: 2, noiseContracts: 8 })
  const of = (role: string) => plan.filter((e) => e.role === role)

  it('spreads the target logs over the range', () => {
    expect(of('target').map((e) => e.offset)).toEqual([950, 2850, 4750, 6650, 8550])
  })

  it('gives the busy contract exactly busyLogs logs', () => {
    const busy = of('busy')
    expect(busy).toHaveLength(Math.ceil(10_005 / BUSY_LOGS_PER_TX))
    expect(busy.reduce((n, e) => n + e.logs, 0)).toBe(10_005)
  })

  it('puts noise every noiseEvery blocks, all inside the planned share, in offset order', () => {
    expect(of('noise')).toHaveLength((10_000 * PLANNED_SHARE) / 2)
    expect(new Set(of('noise').map((e) => e.contract)).size).toBe(8)
    expect(plan.every((e, i) => e.offset < 10_000 * PLANNED_SHARE && (i === 0 || plan[i - 1]!.offset <= e.offset))).toBe(true)
  })
})

describe('measureHeadDelivery', () => {
  it('measures spread and lag per block, and counts missing deliveries', () => {
    const a = new Map([
      [5, 100],
      [6, 200],
      [7, 300],
    ])
    const b = new Map([
      [5, 101],
      [6, 204],
      [7, 300],
    ])
    const c = new Map([
      [5, 103],
      [7, 301],
    ])
    expect(measureHeadDelivery([a, b, c], 5, 7)).toEqual({ spreads: [1], lags: [0, 0, 1], missing: 1 })
  })
})

describe('isSingleMatch', () => {
  const hash = '0xABCDEF'
  const result = (value: string, total = '1') => ({
    total_count: total,
    txs: [{ tx_result: { events: [{ type: 'ethereum_tx', attributes: [{ key: 'ethereumTxHash', value }] }] } }],
  })

  it('accepts the one tx with the hash, in any letter case', () => {
    expect(isSingleMatch(result('0xabcdef'), hash)).toBe(true)
  })

  it('rejects another hash or a count other than 1', () => {
    expect(isSingleMatch(result('0xabcdee'), hash)).toBe(false)
    expect(isSingleMatch(result('0xabcdef', '2'), hash)).toBe(false)
  })

  it('reads base64 attributes (CometBFT 0.34)', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64')
    const r = {
      total_count: '1',
      txs: [{ tx_result: { events: [{ type: 'ethereum_tx', attributes: [{ key: b64('ethereumTxHash'), value: b64('0xabcdef') }] }] } }],
    }
    expect(isSingleMatch(r, hash)).toBe(true)
  })
})

describe('holderWord', () => {
  it('gives each call its own holder, an ABI-encoded address', () => {
    expect(holderWord(0)).toBe(`${'0'.repeat(24)}b${'0'.repeat(39)}`)
    expect(holderWord(255)).toMatch(/^0{24}b0{37}ff$/)
    expect(new Set([0, 1, 2, 1000].map(holderWord)).size).toBe(4)
  })
})

describe('rssBand', () => {
  const readings = [
    { seconds: 60, rssMb: 100 },
    { seconds: 300, rssMb: 180 },
    { seconds: 360, rssMb: 200 },
    { seconds: 420, rssMb: 220 },
  ]

  it('leaves out the warm-up and measures the readings against their mean', () => {
    expect(rssBand(readings, 300)).toEqual({ readings: 3, minMb: 180, maxMb: 220, meanMb: 200, belowPct: -10, abovePct: 10 })
  })

  it('is undefined when every reading is warm-up', () => {
    expect(rssBand(readings, 600)).toBeUndefined()
  })
})

describe('startupSummary', () => {
  it('gives the median of each figure over the spawns, and every spawn', () => {
    const samples = [410, 390, 650, 400, 420].map((ms) => ({ msToFirstAnswer: ms - 10, msToEthCall: ms }))
    expect(startupSummary(samples)).toEqual({
      msToFirstAnswer: 400,
      msToEthCall: 410,
      spawns: 5,
      msToEthCallSamples: [410, 390, 650, 400, 420],
    })
  })
})
