import { describe, expect, it } from 'vitest'
import { blockIntervals, finalityLatencies, summarizeBlockTimes } from '../../bench/block-times.js'

describe('blockIntervals', () => {
  it('takes the gap between consecutive heads of the window, the head before it included', () => {
    const arrivals = new Map([
      [10, 1000],
      [11, 1600],
      [12, 2500],
      [13, 3000],
    ])
    expect(blockIntervals(arrivals, 10, 13)).toEqual([600, 900, 500])
    expect(blockIntervals(arrivals, 11, 12)).toEqual([900])
    expect(blockIntervals(arrivals, 13, 13)).toEqual([])
  })

  it('skips a pair with a head that never arrived rather than bridging it', () => {
    const arrivals = new Map([
      [1, 0],
      [2, 700],
      [4, 2100],
      [5, 2800],
    ])
    expect(blockIntervals(arrivals, 1, 5)).toEqual([700, 700])
  })
})

describe('summarizeBlockTimes', () => {
  it('adds the mean to the nearest-rank summary', () => {
    expect(summarizeBlockTimes([600, 900, 500, 800])).toEqual({ count: 4, meanMs: 700, p50Ms: 800, p95Ms: 900, p99Ms: 900, maxMs: 900 })
  })

  it('is all zeros for no interval', () => {
    expect(summarizeBlockTimes([])).toEqual({ count: 0, meanMs: 0, p50Ms: 0, p95Ms: 0, p99Ms: 0, maxMs: 0 })
  })
})

describe('finalityLatencies', () => {
  it("measures send → the arrival of the tx's head and counts heads that never came", () => {
    const arrivals = new Map([
      [5, 1200],
      [6, 1900],
    ])
    const samples = [
      { sentAt: 1000, block: 5 },
      { sentAt: 1100, block: 6 },
      { sentAt: 1150, block: 7 },
    ]
    expect(finalityLatencies(samples, arrivals)).toEqual({ latencies: [200, 800], missing: 1 })
  })
})
