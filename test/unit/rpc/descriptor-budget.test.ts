/**
 * The sockets an RPC listener may hold under the process's open-file limit (descriptor-budget.ts):
 * CometBFT's rule with LevelDB's fifth, shared by the three listeners, the cap lowered to fit, an eighth
 * of it for the wait queue.
 */
import { describe, expect, it } from 'vitest'
import { connectionBounds, listenerShare, parseOpenFileLimit, readOpenFileLimit } from '../../../src/rpc/descriptor-budget.js'

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            256                  4096                 files
Max locked memory         8388608              8388608              bytes
`

describe('open-file limit', () => {
  it('reads the soft limit from /proc/self/limits text; unlimited or absent is undefined', () => {
    expect(parseOpenFileLimit(LIMITS)).toBe(256)
    expect(parseOpenFileLimit(LIMITS.replace('256 ', 'unlimited '))).toBeUndefined()
    expect(parseOpenFileLimit('Max cpu time unlimited unlimited seconds\n')).toBeUndefined()
  })

  it("is this process's limit where /proc/self/limits exists", () => {
    expect(readOpenFileLimit()).toBeGreaterThan(0)
  })
})

describe('listener bounds', () => {
  it('leave a fifth of the limit for LevelDB and 100 descriptors for peers and files, a third of the rest per listener', () => {
    expect(listenerShare(256)).toBe(35) // (256 - 51 - 100) / 3
    expect(listenerShare(1024)).toBe(240) // (1024 - 204 - 100) / 3
    expect(listenerShare(20_000)).toBe(5300)
    expect(listenerShare(64)).toBe(2) // never nothing at all
  })

  it('keep the configured cap when it fits, with an eighth of it as the wait queue', () => {
    expect(connectionBounds(900, listenerShare(20_000))).toEqual({ maxConnections: 900, maxQueued: 113 })
    expect(connectionBounds(1, 100)).toEqual({ maxConnections: 1, maxQueued: 1 })
  })

  it('lower a cap that does not fit (or none, 0) so that cap and queue fit the share', () => {
    for (const limit of [64, 256, 1024, 4096]) {
      const share = listenerShare(limit)
      for (const configured of [0, 900, 10_000]) {
        const { maxConnections, maxQueued } = connectionBounds(configured, share)
        expect(maxConnections + maxQueued).toBeLessThanOrEqual(share)
        expect(maxQueued).toBeGreaterThanOrEqual(1)
      }
    }
    expect(connectionBounds(900, listenerShare(256))).toEqual({ maxConnections: 31, maxQueued: 4 })
    expect(connectionBounds(0, listenerShare(1024))).toEqual({ maxConnections: 213, maxQueued: 27 })
    // Three listeners and a full LevelDB table cache leave the node 100 descriptors.
    for (const limit of [256, 1024, 4096, 65_536]) {
      const held = 3 * listenerShare(limit) + Math.floor(limit / 5)
      expect(limit - held).toBeGreaterThanOrEqual(100)
    }
  })
})
