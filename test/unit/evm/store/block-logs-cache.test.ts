import { describe, expect, it } from 'vitest'
import { BlockLogsCache } from '../../../../src/evm/store/block-logs.js'
import { LogColumns } from '../../../../src/evm/store/log-columns.js'
import type { EvmLog } from '../../../../src/evm/store/views.js'

/** A block of `n` logs (their fields do not matter to the cache). */
const blockOf = (n: number) => new LogColumns(Array.from({ length: n }, () => ({}) as EvmLog))

describe('BlockLogsCache', () => {
  it('forgets the oldest blocks beyond its count of logs', () => {
    const cache = new BlockLogsCache(10, 100)
    for (let h = 1; h <= 4; h++) cache.set(h, blockOf(3))
    expect(cache.get(1)).toBeUndefined()
    expect([2, 3, 4].every((h) => cache.get(h) !== undefined)).toBe(true)
    cache.set(5, blockOf(11))
    expect(cache.get(5)).toBeUndefined()
  })

  it('forgets the oldest blocks beyond its count of blocks, however few logs they hold', () => {
    const cache = new BlockLogsCache(1_000, 3)
    for (let h = 1; h <= 5; h++) cache.set(h, blockOf(1))
    expect([1, 2].map((h) => cache.get(h))).toEqual([undefined, undefined])
    expect([3, 4, 5].every((h) => cache.get(h) !== undefined)).toBe(true)
    cache.set(6, blockOf(0))
    expect(cache.get(3)).toBeDefined()
  })
})
