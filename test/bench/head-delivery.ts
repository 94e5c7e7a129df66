/** How one block's newHeads notification reached many subscribers: spread and lag behind the first. */

export interface HeadDelivery {
  /** Per block received by every client: last arrival − first arrival (ms). */
  spreads: number[]
  /** Per (block, client): arrival − the block's first arrival (ms). */
  lags: number[]
  /** (block, client) pairs in the window that never arrived. */
  missing: number
}

/**
 * Delivery figures of the blocks in (`after`, `upTo`], from each client's block → arrival-time map.
 * A block some client never got counts in `missing` and not in the spreads.
 */
export function measureHeadDelivery(arrivals: readonly ReadonlyMap<number, number>[], after: number, upTo: number): HeadDelivery {
  const out: HeadDelivery = { spreads: [], lags: [], missing: 0 }
  for (let n = after + 1; n <= upTo; n++) {
    const times = arrivals.map((m) => m.get(n)).filter((t): t is number => t !== undefined)
    out.missing += arrivals.length - times.length
    if (times.length === 0 || times.length < arrivals.length) continue
    const first = Math.min(...times)
    out.spreads.push(Math.max(...times) - first)
    for (const t of times) out.lags.push(t - first)
  }
  return out
}
