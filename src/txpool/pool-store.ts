/**
 * Where the pool's transactions live and the moves that keep geth's invariants: every sender's
 * `pending` is the executable run of nonces from its state nonce, `queued` holds only nonces after a
 * gap, and the counters and price heap agree with the lookup. Admission policy is in `TxPool`; this
 * file holds geth's list mechanics (`promoteExecutables`, `removeTx`, `truncatePending`,
 * `truncateQueue`, `demoteUnexecutables`).
 */
import type { Logger } from '../utils/logger.js'
import type { TxPoolOptions } from './options.js'
import { PricedList } from './priced-list.js'
import type { SenderAccount, PooledTx } from './sender-account.js'

const byNonce = (a: PooledTx, b: PooledTx): number => (a.tx.nonce < b.tx.nonce ? -1 : a.tx.nonce > b.tx.nonce ? 1 : 0)

export class PoolStore {
  /** Every pooled transaction by lower-case 0x EVM hash. */
  readonly all = new Map<string, PooledTx>()
  /** Senders with transactions in the pool (and, until the next block, senders whose last tx left). */
  readonly accounts = new Map<string, SenderAccount>()
  /** The eviction order. */
  readonly priced: PricedList
  pendingCount = 0
  queuedCount = 0
  slotCount = 0
  /** Logical clock of the senders' heartbeats. */
  private clock = 0

  constructor(
    private readonly options: Pick<TxPoolOptions, 'globalSlots' | 'globalQueue' | 'accountSlots' | 'accountQueue'>,
    baseFee: bigint,
    private readonly log: Logger,
  ) {
    this.priced = new PricedList(this.isPooled, baseFee)
  }

  /** True while `p` is the pooled transaction of its hash. */
  readonly isPooled = (p: PooledTx): boolean => this.all.get(p.tx.hashHex) === p

  /** Puts an admitted tx in its sender's pending run (promoting what it unblocks) or queue, replacing a same-nonce tx. */
  place(account: SenderAccount, pooled: PooledTx): void {
    const nonce = pooled.tx.nonce
    this.accounts.set(account.address, account)
    this.all.set(pooled.tx.hashHex, pooled)
    this.slotCount += pooled.slots
    this.priced.put(pooled)
    const old = account.getPending(nonce)
    if (old !== undefined) {
      account.pending[Number(nonce - account.nonce)] = pooled
      account.pendingCost += pooled.cost - old.cost
      this.forget(old)
      return
    }
    const oldQueued = account.queued.get(nonce)
    if (oldQueued !== undefined) this.forget(oldQueued)
    if (nonce === account.nextNonce()) {
      if (oldQueued !== undefined) {
        account.queued.delete(nonce)
        this.queuedCount--
      }
      this.appendPending(account, pooled)
      this.promote(account)
      return
    }
    if (oldQueued === undefined) this.enqueue(account, pooled)
    else account.queued.set(nonce, pooled)
  }

  /** Moves queued transactions that continue the pending run into it (geth `promoteExecutables`). */
  private promote(account: SenderAccount): void {
    let moved = false
    for (let next = account.nextNonce(), p = account.queued.get(next); p !== undefined; next++, p = account.queued.get(next)) {
      account.queued.delete(next)
      this.queuedCount--
      this.appendPending(account, p)
      moved = true
    }
    if (moved) account.beat = ++this.clock
  }

  private appendPending(account: SenderAccount, p: PooledTx): void {
    account.pending.push(p)
    account.pendingCost += p.cost
    this.pendingCount++
  }

  private enqueue(account: SenderAccount, p: PooledTx): void {
    if (account.queued.size === 0) account.beat = ++this.clock
    account.queued.set(p.tx.nonce, p)
    this.queuedCount++
  }

  /** Removes a tx from the lookup, the slot count and the price heap only. */
  private forget(p: PooledTx): void {
    this.all.delete(p.tx.hashHex)
    this.slotCount -= p.slots
    this.priced.removed(1, () => this.all.values())
  }

  /**
   * geth `removeTx`: removes one transaction; if it was pending, the sender's later pending nonces
   * move to the queue. Returns how many pending transactions were removed or demoted.
   */
  removeTx(p: PooledTx): number {
    const account = this.accounts.get(p.tx.fromHex)
    this.forget(p)
    if (account === undefined) return 0
    const i = account.pendingIndexOf(p)
    if (i >= 0) {
      const tail = account.pending.splice(i)
      this.pendingCount -= tail.length
      for (const t of tail) account.pendingCost -= t.cost
      for (const t of tail.slice(1)) this.enqueue(account, t)
      return tail.length
    }
    if (account.queued.get(p.tx.nonce) === p) {
      account.queued.delete(p.tx.nonce)
      this.queuedCount--
    }
    return 0
  }

  /** True when `p` is in its sender's pending run. */
  isPending(p: PooledTx): boolean {
    const account = this.accounts.get(p.tx.fromHex)
    return account !== undefined && account.pendingIndexOf(p) >= 0
  }

  /** Drops the highest queued nonces above `accountQueue` (geth `list.Cap`). */
  capQueue(account: SenderAccount): void {
    const queued = account.sortedQueued()
    for (let i = queued.length - 1; i >= this.options.accountQueue; i--) this.removeTx(queued[i]!)
  }

  /** Removes the sender's highest pending nonce (geth `list.Cap(len - 1)` on a pending list). */
  private dropLastPending(account: SenderAccount): void {
    const p = account.pending.pop()
    if (p === undefined) return
    account.pendingCost -= p.cost
    this.pendingCount--
    this.forget(p)
  }

  /**
   * geth `truncatePending`: above `globalSlots`, takes transactions from the senders with more than
   * `accountSlots` pending, the largest first, equalising them down towards `accountSlots`.
   */
  truncatePending(): void {
    const { globalSlots, accountSlots } = this.options
    const before = this.pendingCount
    let pending = before
    if (pending <= globalSlots) return
    const spammers = [...this.accounts.values()]
      .filter((a) => a.pending.length > accountSlots)
      .sort((a, b) => b.pending.length - a.pending.length)
    const offenders: SenderAccount[] = []
    for (const offender of spammers) {
      if (pending <= globalSlots) break
      offenders.push(offender)
      if (offenders.length < 2) continue
      const threshold = offender.pending.length
      while (pending > globalSlots && offenders[offenders.length - 2]!.pending.length > threshold) {
        for (let i = 0; i < offenders.length - 1; i++) {
          this.dropLastPending(offenders[i]!)
          pending--
        }
      }
    }
    if (pending > globalSlots && offenders.length > 0) {
      while (pending > globalSlots && offenders[offenders.length - 1]!.pending.length > accountSlots) {
        for (const offender of offenders) {
          this.dropLastPending(offender)
          pending--
        }
      }
    }
    this.log.debug('truncated pending transactions', { dropped: before - this.pendingCount, pending: this.pendingCount })
  }

  /** geth `truncateQueue`: above `globalQueue`, drops the highest queued nonces of the senders idle longest. */
  truncateQueue(): void {
    let drop = this.queuedCount - this.options.globalQueue
    if (drop <= 0) return
    const oldestFirst = [...this.accounts.values()].filter((a) => a.queued.size > 0).sort((a, b) => a.beat - b.beat)
    for (const account of oldestFirst) {
      if (drop <= 0) break
      const queued = account.sortedQueued()
      for (let i = queued.length - 1; i >= 0 && drop > 0; i--, drop--) this.removeTx(queued[i]!)
    }
  }

  /**
   * After a block: removes the included transactions, re-forms each of `senders` against its new
   * nonce and balance (dropping stale, unaffordable and over-the-gas-limit transactions, queueing
   * those behind a gap, as geth `demoteUnexecutables` + `promoteExecutables`), forgets the other
   * senders and re-prices. Returns the number of transactions dropped (included ones not counted).
   */
  reset(
    includedHashes: string[],
    senders: SenderAccount[],
    fresh: { nonce: bigint; balance: bigint }[],
    blockGasLimit: bigint,
    baseFee: bigint,
  ): { included: number; dropped: number } {
    let included = 0
    for (const hash of includedHashes) if (this.all.delete(hash)) included++
    const refreshed = new Set(senders)
    for (const [address, account] of this.accounts) if (!refreshed.has(account)) this.accounts.delete(address)
    this.pendingCount = 0
    this.queuedCount = 0
    let dropped = 0
    senders.forEach((account, i) => {
      dropped += this.resetAccount(account, fresh[i]!.nonce, fresh[i]!.balance, blockGasLimit)
    })
    this.slotCount = 0
    for (const p of this.all.values()) this.slotCount += p.slots
    const before = this.all.size
    this.truncatePending()
    this.truncateQueue()
    dropped += before - this.all.size
    this.priced.reheap(this.all.values(), baseFee)
    return { included, dropped }
  }

  private resetAccount(account: SenderAccount, nonce: bigint, balance: bigint, blockGasLimit: bigint): number {
    const txs = [...account.pending, ...account.queued.values()].filter(this.isPooled).sort(byNonce)
    const hadQueue = account.queued.size > 0
    account.nonce = nonce
    account.balance = balance
    account.pending = []
    account.pendingCost = 0n
    account.queued.clear()
    let dropped = 0
    for (const p of txs) {
      if (p.tx.nonce < nonce || p.cost > balance || p.tx.gasLimit > blockGasLimit) {
        this.all.delete(p.tx.hashHex)
        dropped++
      } else if (p.tx.nonce === account.nextNonce()) {
        this.appendPending(account, p)
      } else {
        account.queued.set(p.tx.nonce, p)
        this.queuedCount++
      }
    }
    if (account.queued.size > 0 && !hadQueue) account.beat = ++this.clock
    const queued = account.sortedQueued()
    for (let i = queued.length - 1; i >= this.options.accountQueue; i--) {
      account.queued.delete(queued[i]!.tx.nonce)
      this.all.delete(queued[i]!.tx.hashHex)
      this.queuedCount--
      dropped++
    }
    if (account.txCount === 0) this.accounts.delete(account.address)
    return dropped
  }

  /** Removes every transaction. */
  clear(baseFee: bigint): void {
    this.all.clear()
    this.accounts.clear()
    this.pendingCount = 0
    this.queuedCount = 0
    this.slotCount = 0
    this.priced.reheap([], baseFee)
  }
}
