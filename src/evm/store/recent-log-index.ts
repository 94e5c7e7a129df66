/**
 * The log index of the heights committed since start-up, in memory: for each (kind, value) — kind 0 a
 * log address, 1..4 a topic position — the ascending heights with such a log. It answers eth_getLogs
 * for recent ranges without scanning the on-disk index, which LevelDB walks at a few µs per key
 * (~20 ms for 5,000 matching heights here). It covers a contiguous run of heights ending at the head;
 * the oldest heights are forgotten beyond MAX_ENTRIES, and older ranges go to the on-disk index.
 */
import { latin1 } from '../../primitives/hex.js'

/**
 * (kind, value) pairs remembered, summed over heights: about 4.5 MB when full (46 bytes an entry, measured
 * with the soak's logs; 131 when each height kept its own copies of the id strings).
 */
export const RECENT_LOG_INDEX_ENTRIES = 100_000

/** The id of a (kind, value) pair: the kind digit, then the value bytes as a one-byte string. */
export function logIndexId(kind: number, value: Uint8Array): string {
  return kind + latin1(value)
}

/** Criteria in index form: every group must match, each group by any of its ids. */
export type IndexGroups = readonly (readonly string[])[]

/** The heights of one (kind, value) pair, under the one copy of its id the index keeps. */
interface HeightList {
  id: string
  heights: number[]
}

export class RecentLogIndex {
  private readonly lists = new Map<string, HeightList>()
  /** Heights with their lists, oldest first, for eviction (the lists, not the callers' id strings, so each id is kept once). */
  private readonly queue: { height: number; lists: readonly HeightList[] }[] = []
  private head = 0
  private entries = 0
  /** Lowest height covered; Infinity while nothing is. */
  private from = Infinity
  private last = -1

  constructor(private readonly maxEntries = RECENT_LOG_INDEX_ENTRIES) {}

  /** The lowest height from which every committed height is indexed here (Infinity when none). */
  get firstHeight(): number {
    return this.from
  }

  /** Records a committed height (call for every height, with or without logs, in order). */
  add(height: number, ids: readonly string[]): void {
    if (height !== this.last + 1 || this.from === Infinity) this.reset(height)
    this.last = height
    if (ids.length === 0) return
    const lists = ids.map((id) => {
      let list = this.lists.get(id)
      if (list) list.heights.push(height)
      else {
        list = { id, heights: [height] }
        this.lists.set(id, list)
      }
      return list
    })
    this.queue.push({ height, lists })
    this.entries += ids.length
    while (this.entries > this.maxEntries) this.evictOldest()
  }

  /** Ascending heights in [from, to] (within the covered run) with a log matching every group. */
  match(groups: IndexGroups, from: number, to: number): number[] {
    let result: Set<number> | undefined
    for (const ids of groups) {
      const set = new Set<number>()
      for (const id of ids) {
        const list = this.lists.get(id)?.heights
        if (!list) continue
        for (let i = lowerBound(list, from); i < list.length && list[i]! <= to; i++) {
          const height = list[i]!
          if (!result || result.has(height)) set.add(height)
        }
      }
      result = set
      if (result.size === 0) break
    }
    return result ? [...result].sort((a, b) => a - b) : []
  }

  private evictOldest(): void {
    const oldest = this.queue[this.head++]!
    for (const list of oldest.lists) {
      list.heights.shift()
      if (list.heights.length === 0) this.lists.delete(list.id)
    }
    this.entries -= oldest.lists.length
    this.from = oldest.height + 1
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head)
      this.head = 0
    }
  }

  private reset(height: number): void {
    this.lists.clear()
    this.queue.length = 0
    this.head = 0
    this.entries = 0
    this.from = height
  }
}

/** First index of ascending `list` whose value is ≥ `x`. */
function lowerBound(list: readonly number[], x: number): number {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (list[mid]! < x) lo = mid + 1
    else hi = mid
  }
  return lo
}
