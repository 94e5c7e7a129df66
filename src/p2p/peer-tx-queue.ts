/**
 * The transactions peers gossiped that wait for admission, admitted a slice at a time. A frame carries
 * every transaction that entered a peer's pool within one turn of its event loop, often hundreds under
 * load, and admitting one costs its decoding and the pool's checks on this thread (a fraction of a ms).
 * Admitting a whole frame at once would hold the event loop for tens of ms while a block executes
 * (execution hands the loop over every few ms so that votes and timers get through) and while votes
 * wait to be counted; so each turn admits at most {@link ADMIT_SLICE_MS} of them and leaves the rest
 * for the next turn (CometBFT's connections likewise weight the consensus channels above the mempool's).
 * A transaction waits once, however many peers send it, and at most {@link MAX_WAITING} wait: beyond
 * that a peer's transaction is dropped (the pool would have no room for it either).
 */

/** Time a turn of the event loop spends admitting gossiped transactions, at most (ms). */
export const ADMIT_SLICE_MS = 2

/** Transactions waiting at most: four times the pool's 5,120 pending slots. */
export const MAX_WAITING = 20_480

/** Admitted entries kept at the head of the array before it is cut (so arrivals that never let it empty do not grow it). */
const COMPACT_AFTER = 4096

export interface PeerTxQueueOptions {
  /** Starts a transaction's admission (what runs synchronously counts against the slice). */
  submit(raw: Uint8Array): void
  /** A clock in ms (default performance.now). */
  now?: () => number
  /** Runs `fn` on a later turn of the event loop (default setImmediate). */
  defer?: (fn: () => void) => void
}

export class PeerTxQueue {
  private waiting: Array<{ raw: Uint8Array; hash: string }> = []
  private next = 0
  private readonly hashes = new Set<string>()
  private scheduled = false
  private readonly now: () => number
  private readonly defer: (fn: () => void) => void

  constructor(private readonly opts: PeerTxQueueOptions) {
    this.now = opts.now ?? (() => performance.now())
    this.defer = opts.defer ?? ((fn) => void setImmediate(fn))
  }

  /** Queues a transaction (its EVM hash as 0x hex); false when it already waits or the queue is full. */
  push(raw: Uint8Array, hash: string): boolean {
    if (this.hashes.has(hash) || this.full) return false
    this.hashes.add(hash)
    this.waiting.push({ raw, hash })
    this.schedule()
    return true
  }

  /** Transactions waiting. */
  get size(): number {
    return this.hashes.size
  }

  /** Whether {@link MAX_WAITING} transactions wait (a new one is refused). */
  get full(): boolean {
    return this.hashes.size >= MAX_WAITING
  }

  private schedule(): void {
    if (this.scheduled) return
    this.scheduled = true
    this.defer(() => this.drain())
  }

  /** Admits waiting transactions in arrival order for at most ADMIT_SLICE_MS, then yields the turn. */
  private drain(): void {
    this.scheduled = false
    const started = this.now()
    while (this.next < this.waiting.length) {
      const { raw, hash } = this.waiting[this.next++]!
      this.hashes.delete(hash)
      this.opts.submit(raw)
      if (this.now() - started >= ADMIT_SLICE_MS) break
    }
    if (this.next === this.waiting.length) {
      this.waiting = []
      this.next = 0
      return
    }
    if (this.next >= COMPACT_AFTER) {
      this.waiting = this.waiting.slice(this.next)
      this.next = 0
    }
    this.schedule()
  }
}
