/**
 * The eviction order of the pool, as geth's `pricedList`: a min-heap of all pooled transactions by
 * effective tip at the next base fee (negative when the fee cap is below it), then fee cap, then tip;
 * among equals the higher nonce goes first. Removed transactions stay in the heap as stale entries
 * and are skipped when popped; the heap is rebuilt when a quarter of it is stale or the base fee
 * changes. geth splits the heap into urgent and floating parts to anticipate base fee moves; one heap
 * at the next base fee is enough here because the pool is re-priced after every block.
 */
import { BinaryHeap } from './binary-heap.js'
import type { PooledTx } from './sender-account.js'

/** geth `EffectiveGasTip` without the error: min(tip, feeCap − baseFee), negative below the base fee. */
export function effectiveTipOrNegative(p: PooledTx, baseFee: bigint): bigint {
  const room = p.tx.maxFeePerGas - baseFee
  return room < p.tx.maxPriorityFeePerGas ? room : p.tx.maxPriorityFeePerGas
}

/** geth `priceHeap.cmp`: negative when `a` pays less than `b` at `baseFee`. */
export function comparePrice(a: PooledTx, b: PooledTx, baseFee: bigint): number {
  const ta = effectiveTipOrNegative(a, baseFee)
  const tb = effectiveTipOrNegative(b, baseFee)
  if (ta !== tb) return ta < tb ? -1 : 1
  if (a.tx.maxFeePerGas !== b.tx.maxFeePerGas) return a.tx.maxFeePerGas < b.tx.maxFeePerGas ? -1 : 1
  if (a.tx.maxPriorityFeePerGas !== b.tx.maxPriorityFeePerGas) return a.tx.maxPriorityFeePerGas < b.tx.maxPriorityFeePerGas ? -1 : 1
  return 0
}

export class PricedList {
  private baseFee: bigint
  private readonly heap: BinaryHeap<PooledTx>
  private stales = 0

  constructor(
    /** True while `p` is still in the pool (stale heap entries are skipped). */
    private readonly isLive: (p: PooledTx) => boolean,
    baseFee: bigint,
  ) {
    this.baseFee = baseFee
    this.heap = new BinaryHeap<PooledTx>((a, b) => {
      const c = comparePrice(a, b, this.baseFee)
      return c < 0 || (c === 0 && a.tx.nonce > b.tx.nonce)
    })
  }

  put(p: PooledTx): void {
    this.heap.push(p)
  }

  /** Counts transactions removed from the pool; rebuilds from `live()` once a quarter of the heap is stale. */
  removed(count: number, live: () => Iterable<PooledTx>): void {
    this.stales += count
    if (this.stales > 0 && this.stales * 4 > this.heap.size) this.reheap(live(), this.baseFee)
  }

  /** Rebuilds the heap from the live transactions, priced at `baseFee`. */
  reheap(live: Iterable<PooledTx>, baseFee: bigint): void {
    this.baseFee = baseFee
    this.stales = 0
    this.heap.reset([...live])
  }

  /** geth `Underpriced`: true when the cheapest pooled transaction pays at least as much as `p`. */
  underpriced(p: PooledTx): boolean {
    const cheapest = this.peekLive()
    return cheapest !== undefined && comparePrice(cheapest, p, this.baseFee) >= 0
  }

  /**
   * geth `Discard`: takes the cheapest transactions until they free `slots` slots. Returns them
   * (still in the pool: the caller removes them), or undefined, with the heap unchanged, when the
   * pool does not hold enough.
   */
  discard(slots: number): PooledTx[] | undefined {
    const drop: PooledTx[] = []
    let freed = 0
    while (freed < slots) {
      const p = this.heap.pop()
      if (p === undefined) {
        for (const d of drop) this.heap.push(d)
        return undefined
      }
      if (!this.isLive(p)) {
        this.stales = Math.max(0, this.stales - 1)
        continue
      }
      drop.push(p)
      freed += p.slots
    }
    return drop
  }

  /** Puts back transactions returned by `discard` that were not removed after all. */
  restore(drop: PooledTx[]): void {
    for (const d of drop) this.heap.push(d)
  }

  private peekLive(): PooledTx | undefined {
    for (;;) {
      const p = this.heap.peek()
      if (p === undefined || this.isLive(p)) return p
      this.heap.pop()
      this.stales = Math.max(0, this.stales - 1)
    }
  }
}
