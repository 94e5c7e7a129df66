/**
 * The transaction pool, with go-ethereum's legacypool semantics (the pool rules of docs/decisions.md):
 * `pending` holds each sender's executable run of
 * nonces, `queued` the transactions behind a nonce gap; a queued transaction is promoted when the gap
 * fills; a same-nonce replacement needs `priceBump`% more on both fee cap and tip; when the pool is
 * full the cheapest transactions are evicted; after every block the pool is re-checked against the
 * new state. Unlike geth, which promotes in a background reorg, every change here is applied before
 * `add` returns, so a caller sees its transaction's final place at once.
 *
 * Admission is CometBFT's: the pool asks the application's CheckTx about the transaction itself
 * (decoding, size, gas, fees: every rule the application owns) and keeps only its own rules (nonce
 * order, funds against the sender's pooled spending, replacement, limits, eviction). Every way in
 * (eth_sendRawTransaction, eth_sendTransaction, broadcast_tx_*, p2p gossip) goes through `admit`, so
 * each surface gives the same answer; docs/admission.md lists the order of the checks.
 *
 * It implements the consensus engine's `Mempool` (consensus/mempool.ts; structurally, so the engine
 * needs nothing from here) and is the RPC's view of pending transactions.
 */
import type { Application, CheckTxResponse } from '../abci/application.js'
import type { DecodedTx } from '../evm/txs/tx.js'
import type { ExecTxResult } from '../abci/types.js'
import { keccak256 } from '../crypto/index.js'
import { bytesToHex } from '../primitives/hex.js'
import { TypedEmitter } from '../utils/events.js'
import type { Logger } from '../utils/logger.js'
import { TX_SLOT_SIZE, type TxPoolOptions } from './options.js'
import type { TxPoolMetrics } from './pool-metrics.js'
import { PoolStore } from './pool-store.js'
import { countIncludable, reapByPriceAndNonce } from './reap.js'
import { SenderAccount, type PooledTx } from './sender-account.js'
import { TxPoolError, txPoolErrors } from './tx-pool-error.js'
import { checkTxFee, checkTxSize, computeTxCost } from './validate-tx.js'

/** The latest committed state, as far as the pool reads it. */
export interface TxPoolState {
  /** Nonce and balance (wei) of a lower-case 0x address; zeros for an absent account. */
  getAccount(address: string): Promise<{ nonce: bigint; balance: bigint }>
}

export interface TxPoolDeps {
  /**
   * Decodes raw bytes and recovers the sender (perhaps off the main thread) through the cache CheckTx
   * reads too, so a transaction is decoded once; throws `TxDecodeError`.
   */
  decode: (raw: Uint8Array) => DecodedTx | Promise<DecodedTx>
  /** The application, whose CheckTx judges the transaction itself. */
  app: Pick<Application, 'checkTx'>
  state: TxPoolState
  /** Base fee of the next block, in wei: prices proposals when reaped and evictions as of the last `update`. */
  nextBaseFee: () => bigint
  options: TxPoolOptions
  logger: Logger
  /** Where admissions, refusals, evictions and re-checks are counted (the node's metrics); none by default. */
  metrics?: TxPoolMetrics
}

/** The pool's typed events. */
export interface TxPoolEvents extends Record<string, unknown> {
  /** A transaction entered the pool (pending or queued), including a replacement. */
  newPendingTx: DecodedTx
  /**
   * Transactions a proposal can include are available: executable and able to pay the next block's
   * base fee. At most once per height, as CometBFT's `TxsAvailable`.
   */
  txsAvailable: undefined
}

/** Pending and queued counts (txpool_status). */
export interface TxPoolStatus {
  pending: number
  queued: number
}

/** Checks of one submission path on top of the pool's own (eth_sendRawTransaction's, not the consensus RPC's). */
export interface AddOptions {
  /** `[json-rpc] txfee-cap` in ether (geth `checkTxFee`); 0 or absent = none. */
  txFeeCap?: number
}

const NO_ADD_OPTIONS: AddOptions = {}

/** An admitted transaction and the application's CheckTx answer for it. */
export interface AdmittedTx {
  tx: DecodedTx
  check: CheckTxResponse
}

export class TxPool {
  readonly events = new TypedEmitter<TxPoolEvents>()
  private readonly decode: (raw: Uint8Array) => DecodedTx | Promise<DecodedTx>
  private readonly app: Pick<Application, 'checkTx'>
  private readonly state: TxPoolState
  private readonly nextBaseFee: () => bigint
  private readonly options: TxPoolOptions
  private readonly log: Logger
  private readonly metrics: TxPoolMetrics | undefined
  private readonly store: PoolStore
  private seq = 0
  /** Pending txs evicted since the last block; geth refuses evictions beyond globalSlots / 4 between reorgs. */
  private changesSinceUpdate = 0
  private notifiedTxsAvailable = false
  private minGasPrice: bigint
  private blockGasLimit: bigint
  /** Tail of the chain that serialises the state-reading parts of `add` and `update`. */
  private exclusive: Promise<unknown> = Promise.resolve()
  /** Operations in that chain; while any runs, `add` joins the chain instead of taking the fast path. */
  private running = 0
  /** While the consensus engine holds the pool (`lock`): settles at the release. */
  private held: Promise<void> | undefined

  constructor(deps: TxPoolDeps) {
    this.decode = deps.decode
    this.app = deps.app
    this.state = deps.state
    this.nextBaseFee = deps.nextBaseFee
    this.options = { ...deps.options }
    this.log = deps.logger
    this.metrics = deps.metrics
    this.minGasPrice = deps.options.minGasPrice
    this.blockGasLimit = deps.options.blockGasLimit
    this.store = new PoolStore(this.options, deps.nextBaseFee(), deps.logger)
  }

  // ---- Admission ----

  /** `admit`, for callers that need only the transaction. */
  async add(raw: Uint8Array, opts: AddOptions = NO_ADD_OPTIONS): Promise<DecodedTx> {
    return (await this.admit(raw, opts)).tx
  }

  /**
   * The one entry of every transaction: decode (cached), the caller's fee cap, already known, the
   * application's CheckTx, then the pool's own rules: nonce, funds (including the sender's pending
   * spending), replacement bump, the sender's queue limit, room in the pool. Throws `TxPoolError`.
   */
  async admit(raw: Uint8Array, opts: AddOptions = NO_ADD_OPTIONS): Promise<AdmittedTx> {
    if (this.metrics === undefined) return this.tryAdmit(raw, opts)
    try {
      return await this.tryAdmit(raw, opts)
    } catch (err) {
      if (err instanceof TxPoolError) this.metrics.refused(err.reason)
      throw err
    }
  }

  private async tryAdmit(raw: Uint8Array, opts: AddOptions): Promise<AdmittedTx> {
    const decoded = await this.tryDecode(raw)
    while (this.held !== undefined) await this.held
    if (decoded !== undefined) {
      if (opts.txFeeCap !== undefined) checkTxFee(decoded, opts.txFeeCap)
      if (this.store.all.has(decoded.hashHex)) throw txPoolErrors.alreadyKnown()
    }
    const check = await this.app.checkTx(raw, 'new')
    if (check.code !== 0) throw txPoolErrors.checkTx(check)
    // CheckTx accepts what decodes; a decoding it accepted after the pool's failed is tried once more.
    const tx = decoded ?? (await this.decode(raw))
    // The engine may have taken the pool while CheckTx ran; `insert` checks "already known" again.
    while (this.held !== undefined) await this.held
    try {
      return { tx: await this.place(tx), check }
    } catch (err) {
      if (err instanceof TxPoolError) err.checkTx = check
      throw err
    }
  }

  /** The decoded transaction, or undefined when the bytes do not decode (CheckTx then says why). */
  private async tryDecode(raw: Uint8Array): Promise<DecodedTx | undefined> {
    try {
      return await this.decode(raw)
    } catch {
      return undefined
    }
  }

  /** The pool's own rules and the placement (`insert`), reading the sender's state once if the pool has none. */
  private async place(tx: DecodedTx): Promise<DecodedTx> {
    const account = this.store.accounts.get(tx.fromHex)
    // Fast path: a known sender needs no state read, so no turn in the serialising chain either.
    if (account !== undefined && this.running === 0) {
      this.insert(tx, account)
      return tx
    }
    return this.runExclusive(async () => {
      const sender = this.store.accounts.get(tx.fromHex) ?? (await this.loadAccount(tx.fromHex))
      try {
        this.insert(tx, sender)
      } catch (err) {
        // Keep no state cache for a sender the pool holds nothing of.
        if (sender.txCount === 0) this.store.accounts.delete(sender.address)
        throw err
      }
      return tx
    })
  }

  /**
   * Throws `TxTooLargeError` when `raw` is larger than the pool accepts (`[mempool] max_tx_bytes`), as
   * CometBFT's mempool does before CheckTx (the consensus RPC's broadcast_tx_*). The other paths get
   * the same limit from CheckTx, after decoding, as geth.
   */
  checkSize(raw: Uint8Array): void {
    checkTxSize(raw.length, this.options.maxTxSize)
  }

  /** The state-dependent part of admission; synchronous, so it sees and leaves the pool consistent. */
  private insert(tx: DecodedTx, account: SenderAccount): void {
    const store = this.store
    if (store.all.has(tx.hashHex)) throw txPoolErrors.alreadyKnown()
    if (tx.nonce < account.nonce) throw txPoolErrors.nonceTooLow(tx.fromHex, tx.nonce, account.nonce)
    const cost = computeTxCost(tx)
    if (account.balance < cost) throw txPoolErrors.insufficientFunds(tx.fromHex, account.balance, cost)
    const replacedPending = account.getPending(tx.nonce)
    const need = account.pendingCost + cost - (replacedPending?.cost ?? 0n)
    if (account.balance < need) throw txPoolErrors.insufficientFunds(tx.fromHex, account.balance, need)
    const replaced = replacedPending ?? account.queued.get(tx.nonce)
    if (replaced !== undefined && !this.isReplacement(replaced.tx, tx)) throw txPoolErrors.replaceUnderpriced()
    if (replaced === undefined && tx.nonce > account.nextNonce() && account.queued.size >= this.options.accountQueue) {
      // geth caps each queue at accountQueue, dropping the highest nonces: a tx above them all would go at once.
      const highest = account.maxQueuedNonce()
      if (highest === undefined || tx.nonce > highest) throw txPoolErrors.accountLimit(account.txCount)
    }
    const sizeBefore = store.all.size
    const pooled: PooledTx = { tx, cost, slots: Math.max(1, Math.ceil(tx.size / TX_SLOT_SIZE)), seq: ++this.seq }
    const extraSlots = pooled.slots - (replaced?.slots ?? 0)
    if (extraSlots > 0 && store.slotCount + extraSlots > this.options.globalSlots + this.options.globalQueue) {
      this.makeRoom(pooled, extraSlots, this.isGapped(account, tx.nonce))
    }
    store.place(account, pooled)
    if (account.queued.size > this.options.accountQueue) store.capQueue(account)
    if (store.pendingCount > this.options.globalSlots) store.truncatePending()
    if (store.queuedCount > this.options.globalQueue) store.truncateQueue()
    // The limits may have taken the newcomer itself (highest nonce of the largest or idlest sender).
    const kept = store.isPooled(pooled)
    if (this.metrics) {
      // What left the pool beyond the replaced transaction, the newcomer counted in when it stayed.
      const evicted = sizeBefore - store.all.size - (replaced ? 1 : 0) + (kept ? 1 : 0)
      if (evicted > 0) this.metrics.evicted(evicted)
      if (kept) this.metrics.added(tx.size)
    }
    if (!kept) throw txPoolErrors.poolFull()
    this.events.emit('newPendingTx', tx)
    // Only this sender's run changed, and it is includable exactly when its first transaction is.
    const head = account.pending[0]
    if (head !== undefined && head.tx.maxFeePerGas >= this.nextBaseFee()) this.notifyTxsAvailable()
  }

  /** geth `list.Add`: both fee cap and tip strictly higher, and at least `priceBump`% higher. */
  private isReplacement(old: DecodedTx, tx: DecodedTx): boolean {
    if (old.maxFeePerGas >= tx.maxFeePerGas || old.maxPriorityFeePerGas >= tx.maxPriorityFeePerGas) return false
    const bump = BigInt(100 + this.options.priceBump)
    return tx.maxFeePerGas >= (old.maxFeePerGas * bump) / 100n && tx.maxPriorityFeePerGas >= (old.maxPriorityFeePerGas * bump) / 100n
  }

  /** geth `isGapped`: the tx would not be executable even with the sender's queued txs. */
  private isGapped(account: SenderAccount, nonce: bigint): boolean {
    const next = account.nextNonce()
    if (nonce <= next) return false
    for (let n = next; n < nonce; n++) if (!account.queued.has(n)) return true
    return false
  }

  /** geth's full-pool branch of `add`: evict the cheapest transactions to free `slots`, or refuse. */
  private makeRoom(pooled: PooledTx, slots: number, gapped: boolean): void {
    const { priced } = this.store
    if (priced.underpriced(pooled)) throw txPoolErrors.poolFull()
    if (this.changesSinceUpdate > Math.floor(this.options.globalSlots / 4)) throw txPoolErrors.poolFull()
    const drop = priced.discard(this.store.slotCount + slots - (this.options.globalSlots + this.options.globalQueue))
    if (drop === undefined) throw txPoolErrors.poolFull()
    if (gapped && drop.some((d) => this.store.isPending(d))) {
      priced.restore(drop)
      throw txPoolErrors.futureReplacePending()
    }
    for (const d of drop) this.changesSinceUpdate += this.store.removeTx(d)
    this.log.debug('evicted underpriced transactions', { count: drop.length, for: pooled.tx.hashHex })
  }

  // ---- Blocks ----

  /**
   * After a committed block: drops the included transactions, refreshes every pooled sender's nonce
   * and balance from the new state, drops what is now stale (nonce too low), unaffordable (cost above
   * the balance) or above the block gas limit, re-forms each sender's pending run (promoting queued
   * transactions whose gap filled, demoting those behind a new gap), applies the limits and re-prices
   * at the next base fee. Then announces txs-available if transactions a proposal can include remain
   * (a lower base fee may have made some includable).
   * `results` is not needed: a tx leaves the pool once included, whatever its outcome.
   */
  async update(height: number, txs: Uint8Array[], results: ExecTxResult[] = []): Promise<void> {
    void results
    await this.runExclusive(async () => {
      const includedHashes = txs.map((raw) => bytesToHex(keccak256(raw)))
      const senders = [...this.store.accounts.values()].filter((a) => a.txCount > 0)
      const fresh = await Promise.all(senders.map((a) => this.state.getAccount(a.address)))
      // From here on synchronous: no reader sees a half-updated pool.
      const pooledBefore = this.store.all.size
      const { included, dropped } = this.store.reset(includedHashes, senders, fresh, this.blockGasLimit, this.nextBaseFee())
      this.metrics?.rechecked(pooledBefore - included)
      this.changesSinceUpdate = 0
      this.notifiedTxsAvailable = false
      this.log.debug('pool updated', { height, included, dropped, ...this.status() })
    })
    if (this.size() > 0) this.notifyTxsAvailable()
  }

  /**
   * CometBFT's mempool `Lock`: from when it resolves until the release it returns, admissions wait once
   * decoded. The engine holds it from the application's Commit to `update`, so no admission sees a
   * committed block's state before the pool has been updated for it (a tx the block included, sent
   * again, is refused as "nonce too low", never as already known).
   */
  async lock(): Promise<() => void> {
    while (this.held !== undefined) await this.held
    let release!: () => void
    this.held = new Promise<void>((resolve) => {
      release = resolve
    })
    return () => {
      this.held = undefined
      release()
    }
  }

  // ---- Proposals ----

  /**
   * Executable transactions in proposal order (effective tip at the next base fee across senders,
   * nonce order within one), raw, stopping at the first that would pass `maxBytes` (protobuf size of
   * the block's txs, as CometBFT counts it; -1 = none) or `maxGas` (sum of gas limits; -1 = none).
   */
  reapMaxBytesMaxGas(maxBytes: number, maxGas: bigint): Uint8Array[] {
    return reapByPriceAndNonce(this.pendingLists(), this.nextBaseFee(), { maxBytes, maxGas, maxTxs: -1 })
  }

  /** Up to `max` executable transactions in proposal order (-1 = all); CometBFT `ReapMaxTxs`. */
  reapMaxTxs(max: number): Uint8Array[] {
    return reapByPriceAndNonce(this.pendingLists(), this.nextBaseFee(), { maxBytes: -1, maxGas: -1n, maxTxs: max })
  }

  /**
   * Up to `max` pooled transactions (raw), as CometBFT's unconfirmed_txs lists its mempool: first those
   * a proposal would take, in proposal order, then the others the pool holds (pending ones that cannot
   * pay the next base fee, queued ones behind a nonce gap) by sender and nonce. Every one of them
   * passed CheckTx and waits for a block, so every one is unconfirmed; `count()` and `sizeBytes()`
   * count the same set.
   */
  unconfirmedTxs(max: number): Uint8Array[] {
    const out = this.reapMaxTxs(max)
    const listed = new Set(out)
    for (const account of this.store.accounts.values()) {
      for (const p of [...account.pending, ...account.sortedQueued()]) {
        if (out.length >= max) return out
        if (!listed.has(p.tx.raw)) out.push(p.tx.raw)
      }
    }
    return out
  }

  private *pendingLists(): Iterable<readonly PooledTx[]> {
    for (const account of this.store.accounts.values()) if (account.pending.length > 0) yield account.pending
  }

  /** Subscribes to txs-available (at most once per height); returns the unsubscribe function. */
  onTxsAvailable(listener: () => void): () => void {
    return this.events.on('txsAvailable', listener)
  }

  /** Subscribes to a pool event; returns the unsubscribe function. */
  on<K extends keyof TxPoolEvents>(event: K, listener: (payload: TxPoolEvents[K]) => void): () => void {
    return this.events.on(event, listener)
  }

  private notifyTxsAvailable(): void {
    if (this.notifiedTxsAvailable) return
    this.notifiedTxsAvailable = true
    this.events.emit('txsAvailable', undefined)
  }

  // ---- Queries ----

  /** The pooled transaction with this EVM (Keccak-256) hash, as bytes or 0x hex. */
  get(hash: Uint8Array | string): DecodedTx | undefined {
    return this.store.all.get(normalizeHash(hash))?.tx
  }

  has(hash: Uint8Array | string): boolean {
    return this.store.all.has(normalizeHash(hash))
  }

  /** State nonce plus the sender's executable run: eth_getTransactionCount(address, 'pending'). */
  async pendingNonce(address: string): Promise<bigint> {
    const account = this.store.accounts.get(address.toLowerCase())
    if (account !== undefined) return account.nextNonce()
    return (await this.state.getAccount(address.toLowerCase())).nonce
  }

  /** Executable transactions by sender (lower-case address), in nonce order (txpool_content `pending`). */
  pending(): Map<string, DecodedTx[]> {
    const out = new Map<string, DecodedTx[]>()
    for (const account of this.store.accounts.values())
      if (account.pending.length > 0)
        out.set(
          account.address,
          account.pending.map((p) => p.tx),
        )
    return out
  }

  /** Transactions behind a nonce gap by sender (lower-case address), in nonce order (txpool_content `queued`). */
  queued(): Map<string, DecodedTx[]> {
    const out = new Map<string, DecodedTx[]>()
    for (const account of this.store.accounts.values())
      if (account.queued.size > 0)
        out.set(
          account.address,
          account.sortedQueued().map((p) => p.tx),
        )
    return out
  }

  /** One sender's pending and queued transactions in nonce order (txpool_contentFrom). */
  contentFrom(address: string): { pending: DecodedTx[]; queued: DecodedTx[] } {
    const account = this.store.accounts.get(address.toLowerCase())
    return { pending: account?.pending.map((p) => p.tx) ?? [], queued: account?.sortedQueued().map((p) => p.tx) ?? [] }
  }

  status(): TxPoolStatus {
    return { pending: this.store.pendingCount, queued: this.store.queuedCount }
  }

  /**
   * Number of transactions a proposal could include now: pending, and each able to pay the next block's
   * base fee (a sender's run counts up to its first that cannot). The consensus engine reads it to
   * decide whether transactions wait (CometBFT `Size`). A pending transaction whose fee cap is below
   * the base fee stays in the pool, as in geth, whose miner skips it, but makes no block: where the
   * base fee cannot fall to it (an idle EIP-1559 chain stops at 7 wei: its decrease, 7 / 8, rounds to 0) it
   * would make empty blocks back to back (issue 27). `status().pending` counts every pending one.
   */
  size(): number {
    return countIncludable(this.pendingLists(), this.nextBaseFee())
  }

  /** Number of pooled transactions, pending and queued (CometBFT num_unconfirmed_txs `total`). */
  count(): number {
    return this.store.all.size
  }

  /** Encoded bytes of all pooled transactions, pending and queued (CometBFT num_unconfirmed_txs `total_bytes`). */
  sizeBytes(): number {
    let bytes = 0
    for (const p of this.store.all.values()) bytes += p.tx.size
    return bytes
  }

  /** The minimum tip cap (legacy: gas price) in wei; CheckTx enforces it at admission. */
  getMinGasPrice(): bigint {
    return this.minGasPrice
  }

  /** Changes the minimum tip cap; when it rises, pooled transactions below it are dropped (geth `SetGasTip`). */
  setMinGasPrice(wei: bigint): void {
    const old = this.minGasPrice
    this.minGasPrice = wei
    if (wei <= old) return
    const below = [...this.store.all.values()].filter((p) => p.tx.maxPriorityFeePerGas < wei)
    for (const p of below) this.store.removeTx(p)
    if (below.length > 0) this.log.info('dropped transactions below the new minimum gas price', { count: below.length, minGasPrice: wei })
  }

  /** Sets the gas limit of the next block; larger transactions are refused, and dropped at the next update. */
  setBlockGasLimit(gas: bigint): void {
    this.blockGasLimit = gas
  }

  /**
   * Removes one transaction (a dev chain's anvil_dropTransaction): out of the lookup, the price heap and
   * the counters; a pending one's later nonces move to the queue, as geth's `removeTx` leaves them (they
   * run once the nonce is sent again). Returns whether the pool held it.
   */
  drop(hash: Uint8Array | string): boolean {
    const pooled = this.store.all.get(normalizeHash(hash))
    if (pooled === undefined) return false
    this.store.removeTx(pooled)
    this.log.debug('dropped transaction', { hash: pooled.tx.hashHex, ...this.status() })
    return true
  }

  /** Empties the pool (CometBFT unsafe_flush_mempool). */
  flush(): void {
    this.store.clear(this.nextBaseFee())
  }

  // ---- Serialisation of state reads ----

  private runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    this.running++
    const run = this.exclusive.then(fn).finally(() => this.running--)
    this.exclusive = run.catch(() => undefined)
    return run
  }

  private async loadAccount(address: string): Promise<SenderAccount> {
    const { nonce, balance } = await this.state.getAccount(address)
    const account = new SenderAccount(address, nonce, balance)
    this.store.accounts.set(address, account)
    return account
  }
}

function normalizeHash(hash: Uint8Array | string): string {
  return typeof hash === 'string' ? hash.toLowerCase() : bytesToHex(hash)
}
