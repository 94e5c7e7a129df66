import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import {
  MemoryReducer,
  compactingCollections,
  exposeGc,
  oldGenerationHeap,
  youngGenerationBytes,
  type MemoryReducerProbes,
} from '../../../src/utils/memory-reducer.js'

const MB = 1024 * 1024

/**
 * A heap and loop the test sets by hand; `collect` leaves the heap committed at `leaves` (default its
 * used size + 4 MB).
 */
function fakeProbes(
  state: { utilization: number; committed: number; used: number },
  leaves?: number,
): MemoryReducerProbes & { collections: number } {
  const probes = {
    collections: 0,
    utilization: () => state.utilization,
    heap: () => ({ committed: state.committed, used: state.used }),
    collect: () => {
      probes.collections++
      state.committed = leaves ?? state.used + 4 * MB
    },
  }
  return probes
}

describe('MemoryReducer', () => {
  it('collects once when the loop was quiet and the heap holds far more than is live', () => {
    const state = { utilization: 0.05, committed: 180 * MB, used: 35 * MB }
    const probes = fakeProbes(state)
    const reported: number[][] = []
    const reducer = new MemoryReducer({ minWasteBytes: 64 * MB }, probes, (before, after) => reported.push([before / MB, after / MB]))
    expect(reducer.check()).toBe(true)
    expect(reported).toEqual([[180, 39]])
    // Nothing left to give back: no further collection.
    expect(reducer.check()).toBe(false)
    expect(reducer.check()).toBe(false)
    expect(probes.collections).toBe(1)
  })

  it('after a collection, waits until the heap has grown by minWasteBytes again', () => {
    const state = { utilization: 0, committed: 200 * MB, used: 30 * MB }
    const probes = fakeProbes(state, 40 * MB)
    const reducer = new MemoryReducer({ minWasteBytes: 64 * MB }, probes)
    expect(reducer.check()).toBe(true)
    state.committed = 100 * MB
    expect(reducer.check()).toBe(false)
    state.committed = 110 * MB
    expect(reducer.check()).toBe(true)
    expect(probes.collections).toBe(2)
  })

  it('counts growth from the heap the node started with', () => {
    const state = { utilization: 0, committed: 60 * MB, used: 20 * MB }
    const probes = fakeProbes(state)
    const reducer = new MemoryReducer({ minWasteBytes: 24 * MB }, probes)
    reducer.start()
    reducer.stop()
    expect(reducer.check()).toBe(false)
    state.committed = 90 * MB
    expect(reducer.check()).toBe(true)
  })

  it('leaves a busy loop alone, however much heap is free', () => {
    const probes = fakeProbes({ utilization: 0.9, committed: 500 * MB, used: 40 * MB })
    expect(new MemoryReducer({ maxUtilization: 0.25 }, probes).check()).toBe(false)
    expect(probes.collections).toBe(0)
  })

  it('leaves a heap whose free part is small, or smaller than a quarter of what is live', () => {
    const small = fakeProbes({ utilization: 0, committed: 90 * MB, used: 40 * MB })
    expect(new MemoryReducer({ minWasteBytes: 64 * MB }, small).check()).toBe(false)
    const mostlyLive = fakeProbes({ utilization: 0, committed: 370 * MB, used: 300 * MB })
    expect(new MemoryReducer({ minWasteBytes: 64 * MB }, mostlyLive).check()).toBe(false)
    expect(small.collections + mostlyLive.collections).toBe(0)
  })

  it('collects when Buffers outside the heap grew by minBufferGrowthBytes (a large answer sent), then waits for more growth', () => {
    // the JS heap holds nothing to give back: only the Buffers can open the gate
    const state = { utilization: 0, committed: 40 * MB, used: 38 * MB, buffers: 20 * MB }
    const probes = {
      ...fakeProbes(state, 40 * MB),
      buffers: () => state.buffers,
    }
    probes.collect = () => {
      probes.collections++
      state.buffers = 22 * MB
    }
    const reducer = new MemoryReducer({ minBufferGrowthBytes: 16 * MB }, probes)
    reducer.start()
    reducer.stop()
    state.buffers = 30 * MB
    expect(reducer.check()).toBe(false)
    // a 448 MB trace answer written and sent: its Buffers are dead, but only a full collection frees them
    state.buffers = 468 * MB
    expect(reducer.check()).toBe(true)
    expect(reducer.check()).toBe(false)
    state.buffers = 39 * MB
    expect(reducer.check()).toBe(true)
    expect(probes.collections).toBe(2)
  })

  it('scavenges on each quiet check while the young generation is above minYoungBytes, so V8 can shrink it', () => {
    const state = { utilization: 0.05, committed: 30 * MB, used: 28 * MB, young: 32 * MB }
    let scavenges = 0
    const probes = {
      ...fakeProbes(state),
      young: () => state.young,
      scavenge: () => {
        scavenges++
      },
    }
    const reducer = new MemoryReducer({ minYoungBytes: 4 * MB }, probes)
    // V8 keeps it while the allocation rate of its last 5 s is high: the next quiet check asks again.
    reducer.check()
    reducer.check()
    expect(scavenges).toBe(2)
    state.utilization = 0.9
    reducer.check()
    expect(scavenges).toBe(2)
    state.utilization = 0
    state.young = 2 * MB
    reducer.check()
    expect(scavenges).toBe(2)
    expect(probes.collections).toBe(0)
  })

  it("runs V8's scavenge, which empties the young generation", () => {
    const gc = exposeGc()
    const youngUsed = (): number => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_used_size
    let garbage: number[][] = []
    for (let i = 0; i < 20_000; i++) garbage.push([i, i])
    garbage = []
    const before = youngUsed()
    gc({ type: 'minor' })
    expect(before).toBeGreaterThan(MB)
    expect(youngUsed()).toBeLessThan(before / 2)
    expect(youngGenerationBytes()).toBeGreaterThanOrEqual(youngUsed())
    expect(garbage).toHaveLength(0)
  })

  it("measures V8's old generation, not its young one, which collections do not shrink", () => {
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!
    const heap = oldGenerationHeap()
    expect(heap.used).toBeGreaterThan(0)
    expect(heap.committed).toBeGreaterThanOrEqual(heap.used)
    expect(heap.committed).toBeLessThanOrEqual(getHeapStatistics().total_heap_size - young.space_size)
  })

  it('compacts the fragmented pages that a full collection leaves committed', () => {
    const gc = exposeGc()
    const slack = (): number => {
      const old = getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!
      return old.space_size - old.space_used_size
    }
    let objects = Array.from({ length: 400_000 }, (_, i) => ({ i, list: [i, i + 1, i + 2] }))
    gc()
    gc()
    // Every other object stays live: each page the objects fill is left half used.
    objects = objects.filter((o) => o.i % 2 === 0)
    gc()
    gc()
    const plain = slack()
    compactingCollections(gc)
    expect(plain).toBeGreaterThan(8 * MB)
    expect(slack()).toBeLessThan(plain / 4)
    expect(objects).toHaveLength(200_000)
  })

  it("exposes V8's full collection without --expose-gc, and only to its own context", () => {
    const gc = exposeGc()
    expect(typeof gc).toBe('function')
    gc()
    // The flag is cleared again: a context made afterwards has no `gc` (unless Node.js was started with it).
    const started = typeof (globalThis as { gc?: unknown }).gc === 'function'
    expect(runInNewContext('typeof gc')).toBe(started ? 'function' : 'undefined')
  })
})
