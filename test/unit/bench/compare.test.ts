import { describe, expect, it } from 'vitest'
import { COMPARE_METRICS, compareLines, compareRecord, formatCompareTable, formatFigure, ratioOf, type Line } from '../../bench/compare.js'
import { parseBenchArgs } from '../../bench/options.js'

const anvil: Line[] = [
  { workload: 'startup', msToFirstAnswer: 40, msToEthCall: 77 },
  { workload: 'erc20_transfers', txPerSec: 504 },
  { workload: 'ws-heads', txToHead: { p50Ms: 615 } },
]
const nodectl: Line[] = [
  { workload: 'startup', msToFirstAnswer: 1100, msToEthCall: 1130, nodeJsMs: 130, extraCaCerts: true },
  { workload: 'erc20_transfers', txPerSec: 368 },
  { workload: 'ws-heads', txToHead: { p50Ms: 36 } },
  { workload: 'memory', rssMb: 306 },
]

describe('ratioOf', () => {
  it('is ours/theirs for a throughput and theirs/ours for a time, to 3 significant digits', () => {
    expect(ratioOf('higher', 504, 368)).toBe(0.73)
    expect(ratioOf('lower', 615, 36)).toBe(17.1)
    expect(ratioOf('higher', 9720, 1019)).toBe(0.105)
  })

  it('is undefined without both figures', () => {
    expect(ratioOf('higher', undefined, 1)).toBeUndefined()
    expect(ratioOf('lower', 1, 0)).toBeUndefined()
  })
})

describe('compareLines', () => {
  const rows = compareLines(COMPARE_METRICS, anvil, nodectl)
  const row = (key: string) => rows.find((r) => r.metric.key === key)!

  it('reads each figure from its line, nested ones included', () => {
    expect(row('startupMs')).toMatchObject({ theirs: 77, ours: 1130, ratio: 0.0681 })
    expect(row('txToHeadMs')).toMatchObject({ theirs: 615, ours: 36, ratio: 17.1 })
  })

  it('leaves a figure undefined when its line is missing', () => {
    expect(row('rssMb')).toMatchObject({ theirs: undefined, ours: 306, ratio: undefined })
  })

  it("shows Node.js's own start under nodectl's, with no ratio (Anvil has none)", () => {
    expect(row('nodeJsMs')).toMatchObject({ theirs: undefined, ours: 130, ratio: undefined })
  })

  it('makes the compare line: both figures, the ratio and its direction per metric', () => {
    const record = compareRecord(rows, 'anvil', 'nodectl')
    expect(record.against).toBe('anvil')
    expect(record.erc20TxPerSec).toEqual({ anvil: 504, nodectl: 368, ratio: 0.73, ratioOf: 'nodectl/anvil' })
    expect(record.startupMs).toEqual({ anvil: 77, nodectl: 1130, ratio: 0.0681, ratioOf: 'anvil/nodectl' })
    expect(record.rssMb).toEqual({ anvil: null, nodectl: 306, ratio: null, ratioOf: 'anvil/nodectl' })
  })
})

describe('formatCompareTable', () => {
  it('prints an aligned Markdown table with the ratio direction and the better node', () => {
    const rows = compareLines(COMPARE_METRICS.slice(0, 1), anvil, nodectl)
    expect(formatCompareTable(rows, parseBenchArgs([]), 'anvil', 'nodectl')).toBe(
      [
        '| workload                                                   | anvil | nodectl | ratio               | better |',
        '|------------------------------------------------------------|------:|--------:|---------------------|--------|',
        '| committed ERC-20 transfers/s (3,000 from 10 senders, c=64) |   504 |     368 | nodectl/anvil ×0.73 | anvil  |',
        '',
      ].join('\n'),
    )
  })

  it('formats figures with thousands separators, one decimal below 100, a dash when missing', () => {
    expect([formatFigure(18967.4), formatFigure(42.96), formatFigure(7), formatFigure(undefined)]).toEqual(['18,967', '43', '7', '–'])
    expect(formatFigure(1.234)).toBe('1.2')
  })
})
