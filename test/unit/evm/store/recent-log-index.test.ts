import { describe, expect, it } from 'vitest'
import { RecentLogIndex, logIndexId } from '../../../../src/evm/store/recent-log-index.js'

const A = logIndexId(0, new Uint8Array(20).fill(1))
const B = logIndexId(0, new Uint8Array(20).fill(2))
const T = logIndexId(1, new Uint8Array(32).fill(3))

describe('RecentLogIndex', () => {
  it('matches every group, any id within a group, within the range', () => {
    const index = new RecentLogIndex()
    index.add(10, [])
    index.add(11, [A, T])
    index.add(12, [B])
    index.add(13, [B, T])
    index.add(14, [A])
    expect(index.firstHeight).toBe(10)
    expect(index.match([[A]], 0, 100)).toEqual([11, 14])
    expect(index.match([[A, B]], 12, 13)).toEqual([12, 13])
    expect(index.match([[A, B], [T]], 0, 100)).toEqual([11, 13])
    expect(index.match([[logIndexId(2, new Uint8Array(32))]], 0, 100)).toEqual([])
  })

  it('forgets the oldest heights beyond its size and restarts after a gap', () => {
    const index = new RecentLogIndex(4)
    for (let h = 1; h <= 6; h++) index.add(h, [A])
    expect(index.firstHeight).toBe(3)
    expect(index.match([[A]], 0, 100)).toEqual([3, 4, 5, 6])
    index.add(8, [B])
    expect(index.firstHeight).toBe(8)
    expect(index.match([[A]], 0, 100)).toEqual([])
    expect(index.match([[B]], 0, 100)).toEqual([8])
  })
})
