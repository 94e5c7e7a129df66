import { describe, expect, it } from 'vitest'
import { TraceLimiter } from '../../../../src/api/debug/trace-limiter.js'

/** A promise with its resolver, to hold traces open. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void
  const promise = new Promise<void>((resolve) => (open = resolve))
  return { promise, open }
}

describe('TraceLimiter', () => {
  it('runs at most `concurrency` traces; the others start in arrival order as slots free', async () => {
    const limiter = new TraceLimiter(2)
    const started: number[] = []
    const gates = [gate(), gate(), gate(), gate()]
    const runs = gates.map((g, i) =>
      limiter.run(async () => {
        started.push(i)
        await g.promise
        return i
      }),
    )
    await new Promise((r) => setImmediate(r))
    expect(started).toEqual([0, 1])
    expect([limiter.active, limiter.queued]).toEqual([2, 2])
    gates[1]!.open()
    await runs[1]
    await new Promise((r) => setImmediate(r))
    expect(started).toEqual([0, 1, 2])
    gates[0]!.open()
    gates[2]!.open()
    gates[3]!.open()
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3])
    expect(started).toEqual([0, 1, 2, 3])
    expect([limiter.active, limiter.queued]).toEqual([0, 0])
  })

  it('frees the slot of a trace that fails', async () => {
    const limiter = new TraceLimiter(1)
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(await limiter.run(async () => 'next')).toBe('next')
    expect(limiter.active).toBe(0)
  })

  it('refuses a concurrency below 1', () => {
    expect(() => new TraceLimiter(0)).toThrow(/≥ 1/)
  })
})
