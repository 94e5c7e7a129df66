/**
 * Gives the JavaScript heap back to the system once the node is quiet, as Go's scavenger does for geth.
 *
 * Under load V8 grows the old generation well past what is live (a burst of transfers or calls left
 * about 150 MB of heap committed around 30 MB live here) and keeps it: it shrinks the heap only after a
 * full collection, which an idle process rarely gets. Every `intervalMs` this checks the event loop's
 * utilisation since the previous check; when the loop was mostly idle and the heap holds much more
 * than is live, it runs two full, compacting collections back to back (tens of ms, while nothing
 * waits): V8 unmaps some of the pages the first one frees only during the next. RSS then follows what
 * is live instead of the largest burst so far.
 *
 * Buffers (ArrayBuffers outside the JS heap) are freed only when a full collection finds them dead,
 * and an idle process runs none: after a 448 MB debug_traceCall answer, written as Buffers, RSS stayed
 * at 1 GB with nothing live. So the reducer also collects, when quiet, once the Buffers have grown
 * by `minBufferGrowthBytes` since the last collection.
 *
 * The young generation is V8's to size: it grows its semi-spaces to their maximum (16 MiB each) under
 * load and shrinks them back only in a scavenge that finds its allocation rate over the last 5 s below
 * 1 MB/s. A quiet process scavenges rarely, so every quiet check with the young generation above
 * `minYoungBytes` runs one (under a millisecond with little live): once the node has been quiet for
 * 5 s, about 30 MB a thread go back to the system.
 */
import { performance } from 'node:perf_hooks'
import v8 from 'node:v8'
import vm from 'node:vm'

export interface MemoryReducerOptions {
  /** Between two checks (default 2,000 ms). */
  intervalMs: number
  /** The loop counts as quiet below this share of busy time since the last check (default 0.25). */
  maxUtilization: number
  /**
   * Collect only when the old generation's committed − used bytes exceed this and a quarter of its used
   * bytes, and it grew by this since the last collection (default 8 MiB: RSS stays within a band of
   * about that much a thread).
   */
  minWasteBytes: number
  /**
   * Collect also when the bytes held by Buffers grew by this since the last collection (default 16 MiB:
   * a large RPC answer, a trace or eth_getLogs, is given back once sent, smaller ones wait for V8).
   */
  minBufferGrowthBytes: number
  /**
   * Scavenge on a quiet check while the young generation holds more than this (default 4 MiB: V8
   * shrinks it to 1 MiB semi-spaces, 2 MiB in all, when the allocation rate allows).
   */
  minYoungBytes: number
}

export const defaultMemoryReducerOptions: MemoryReducerOptions = {
  intervalMs: 2_000,
  maxUtilization: 0.25,
  minWasteBytes: 8 * 1024 * 1024,
  minBufferGrowthBytes: 16 * 1024 * 1024,
  minYoungBytes: 4 * 1024 * 1024,
}

/** What the reducer reads and does; the defaults are the process's own (tests inject their own). */
export interface MemoryReducerProbes {
  /** Share of time the event loop was busy since the previous call (0..1). */
  utilization(): number
  /** The heap a collection can give back: V8's old generation (see processProbes). */
  heap(): { committed: number; used: number }
  /** Full collections until the free pages are returned to the system. */
  collect(): void
  /** Bytes held by ArrayBuffers and Buffers outside the JS heap (none when absent). */
  buffers?(): number
  /** Committed bytes of the young generation (none when absent). */
  young?(): number
  /** A scavenge, in which V8 may shrink the young generation. */
  scavenge?(): void
}

export class MemoryReducer {
  private timer: NodeJS.Timeout | undefined
  /**
   * The old generation's committed bytes at start and right after the last collection: V8 keeps some
   * free pages that no collection returns, so only growth beyond them counts.
   */
  private floor = 0
  /** Bytes held by Buffers at start and right after the last collection. */
  private bufferFloor = 0
  private readonly opts: MemoryReducerOptions
  private readonly probes: MemoryReducerProbes

  constructor(
    opts: Partial<MemoryReducerOptions> = {},
    probes?: MemoryReducerProbes,
    private readonly onCollect?: (before: number, after: number) => void,
  ) {
    this.opts = { ...defaultMemoryReducerOptions, ...opts }
    this.probes = probes ?? processProbes()
  }

  start(): void {
    if (this.timer) return
    this.probes.utilization()
    // The heap a node starts with is its own: only what a load adds afterwards is given back.
    this.floor = this.probes.heap().committed
    this.bufferFloor = this.probes.buffers?.() ?? 0
    this.timer = setInterval(() => this.check(), this.opts.intervalMs)
    this.timer.unref()
  }

  stop(): void {
    clearInterval(this.timer)
    this.timer = undefined
  }

  /** One check (the timer's); returns whether it ran the full collections. */
  check(): boolean {
    if (this.probes.utilization() > this.opts.maxUtilization) return false
    if ((this.probes.young?.() ?? 0) > this.opts.minYoungBytes) this.probes.scavenge?.()
    const { committed, used } = this.probes.heap()
    const free = committed - used
    const heapWaste = free > Math.max(this.opts.minWasteBytes, used / 4) && committed > this.floor + this.opts.minWasteBytes
    const bufferGrowth = (this.probes.buffers?.() ?? 0) > this.bufferFloor + this.opts.minBufferGrowthBytes
    if (!heapWaste && !bufferGrowth) return false
    this.probes.collect()
    this.floor = this.probes.heap().committed
    this.bufferFloor = this.probes.buffers?.() ?? 0
    this.onCollect?.(committed, this.floor)
    return true
  }
}

/**
 * V8's spaces counted by `heap()`: the old generation. The young generation is left out: V8 (11.3, in
 * Node.js 20) grows its semi-spaces to their maximum under the first burst of load (32 MiB committed
 * here within the soak's first minute) and keeps them at that size through full collections, so its
 * free part, counted as waste, held the gate open while the old generation's own slack went unseen.
 */
const OLD_GENERATION = new Set(['old_space', 'code_space', 'large_object_space', 'code_large_object_space'])

/** Committed and used bytes of V8's old generation. */
export function oldGenerationHeap(): { committed: number; used: number } {
  let committed = 0
  let used = 0
  for (const space of v8.getHeapSpaceStatistics()) {
    if (!OLD_GENERATION.has(space.space_name)) continue
    committed += space.space_size
    used += space.space_used_size
  }
  return { committed, used }
}

/** Committed bytes of V8's young generation (both semi-spaces). */
export function youngGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0
}

/** The running process: event-loop utilisation, V8 heap statistics and a full collection. */
function processProbes(): MemoryReducerProbes {
  let last = performance.eventLoopUtilization()
  // Made at the first collection: the context it takes costs a few ms the node's start need not pay.
  let gc: GcFunction | undefined
  return {
    utilization() {
      const now = performance.eventLoopUtilization()
      const since = performance.eventLoopUtilization(now, last)
      last = now
      return since.utilization
    },
    heap: oldGenerationHeap,
    buffers: () => process.memoryUsage().arrayBuffers,
    young: youngGenerationBytes,
    scavenge() {
      gc ??= exposeGc()
      gc({ type: 'minor' })
    },
    collect() {
      gc ??= exposeGc()
      compactingCollections(gc)
    },
  }
}

/**
 * Two full collections that compact every fragmented page. A full collection left alone moves objects
 * only off the pages V8's heuristics pick: a quarter hour into the soak, two such collections left the
 * old space committed at 33 MB around 23 MB live, and that slack grew with each load; compacting, they
 * left 22.7 MB committed around 22.3 live (RSS 188 → 178 MB). V8 unmaps some of the pages a collection
 * frees only during the next one (after the benchmark's workloads, with the two a check apart: RSS
 * 280 → 225 MB at the first, 216 at the second), hence two.
 */
export function compactingCollections(gc: GcFunction): void {
  v8.setFlagsFromString('--compact-on-every-full-gc')
  try {
    gc()
    gc()
  } finally {
    v8.setFlagsFromString('--no-compact-on-every-full-gc')
  }
}

/** V8's `gc`: a full collection, or a scavenge with `{ type: 'minor' }`. */
export type GcFunction = (options?: { type: 'minor' | 'major' }) => void

/**
 * V8's full collection without starting Node.js with `--expose-gc`: the flag is set for a moment, a
 * fresh context picks up the `gc` function it exposes, and the flag is cleared again, so no other
 * context sees `gc`.
 */
export function exposeGc(): GcFunction {
  const existing = (globalThis as { gc?: GcFunction }).gc
  if (typeof existing === 'function') return existing
  v8.setFlagsFromString('--expose-gc')
  try {
    return vm.runInNewContext('gc') as GcFunction
  } finally {
    v8.setFlagsFromString('--no-expose-gc')
  }
}
