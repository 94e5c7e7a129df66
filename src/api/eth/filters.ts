/**
 * Polling filters (spec "Filter" state table; geth `eth/filters/api.go`): eth_newFilter,
 * eth_newBlockFilter and eth_newPendingTransactionFilter install a filter under a random id; each
 * collects its entries from the chain events until eth_getFilterChanges takes them:
 * - block filters: hashes of committed blocks (the same hash eth_getBlockByNumber shows — Evmos stores
 *   CometBFT header hashes instead);
 * - pending-transaction filters: hashes of transactions that entered the pool (Evmos reports
 *   committed transactions);
 * - log filters: matching logs of committed blocks; the block range is kept (numeric bounds apply to
 *   new logs; eth_getFilterLogs resolves `latest` at each call).
 * A filter not polled by eth_getFilterChanges for `timeout` is removed (geth's deadline; only
 * eth_getFilterChanges resets it). At most `cap` filters of all kinds exist (`filter-cap`); beyond it
 * creation fails with geth's -32000 `error creating filter: max limit reached` (Evmos returns that text
 * as the filter id).
 */
import type { EvmLog } from '../../evm/store/views.js'
import { randomBytes } from '../../crypto/random.js'
import { NodeError } from '../../utils/errors.js'
import type { EthBackend } from './backend.js'
import { getLogs } from './eth-logs.js'
import { LazyListener, newRandomId, type EthBlockEvent, type EthEvents, type EthPendingTxEvent } from './events.js'
import { encodeData, type LogJson } from './format.js'
import type { LogFilter } from './log-filter.js'
import { matchesLogFilter } from './log-match.js'
import type { EthApiOptions } from './options.js'

/** Options of the filter system (`[json-rpc]` filter-cap, plus timings fixed in docs/decisions.md). */
export interface FilterOptions {
  /** Installed filters, all kinds together (`filter-cap`, default 200); 0 = unlimited. */
  cap: number
  /** A filter not polled for this long is removed (ms, default 5 minutes: geth's `deadline`). */
  timeout: number
  /**
   * Entries one filter keeps between two polls; beyond it the oldest are dropped, so a filter that is
   * never polled cannot grow the node's memory until it expires (default 10,000, as `logs-cap`).
   */
  maxEntries: number
}

/** Defaults: 200 filters, each dropped 5 minutes after its last poll (docs/decisions.md). */
export const defaultFilterOptions: FilterOptions = {
  cap: 200,
  timeout: 5 * 60_000,
  maxEntries: 10_000,
}

/** Longest pause between two sweeps for expired filters (ms); shorter when `timeout` is shorter. */
const MAX_SWEEP_INTERVAL = 30_000

/** What eth_getFilterChanges returns: hashes, or logs (rendered by the method table). */
export type FilterChanges = { kind: 'hashes'; hashes: string[] } | { kind: 'logs'; logs: EvmLog[] }

type Filter =
  | { kind: 'logs'; criteria: LogFilter; entries: EvmLog[]; lastPoll: number }
  | { kind: 'blocks'; entries: { hash: Uint8Array; number: number }[]; lastPoll: number }
  | { kind: 'pendingTransactions'; entries: Uint8Array[]; lastPoll: number }

/** geth `errFilterNotFound` (its text, without Evmos' `filter <id> not found`). */
function filterNotFoundError(): NodeError {
  return new NodeError('filter not found')
}

/** The installed polling filters of one node, shared by the HTTP and WebSocket transports. */
export class FilterSystem {
  private readonly filters = new Map<string, Filter>()
  private readonly logFilters = new Set<Filter & { kind: 'logs' }>()
  private readonly blockFilters = new Set<Filter & { kind: 'blocks' }>()
  private readonly pendingFilters = new Set<Filter & { kind: 'pendingTransactions' }>()
  private readonly blocks: LazyListener
  private readonly pending: LazyListener
  private readonly opts: FilterOptions
  private sweeper: NodeJS.Timeout | undefined

  constructor(
    private readonly backend: EthBackend,
    events: EthEvents,
    private readonly apiOptions: EthApiOptions,
    options: Partial<FilterOptions> = {},
    private readonly now: () => number = () => performance.now(),
  ) {
    this.opts = { ...defaultFilterOptions, ...options }
    this.blocks = new LazyListener(() => {
      const offBlock = events.onBlock((event) => this.onBlock(event))
      const offRewind = events.onRewind?.((height) => this.onRewind(height))
      return () => {
        offBlock()
        offRewind?.()
      }
    })
    this.pending = new LazyListener(() => events.onPendingTransaction((event) => this.onPendingTx(event)))
  }

  /** Installed filters (all kinds). */
  get size(): number {
    return this.filters.size
  }

  /** eth_newFilter. */
  newLogFilter(criteria: LogFilter): string {
    const { fromBlock, toBlock } = criteria
    if (typeof fromBlock === 'number' && typeof toBlock === 'number' && fromBlock > toBlock) {
      throw new NodeError('invalid from and to block combination')
    }
    const filter: Filter = { kind: 'logs', criteria, entries: [], lastPoll: this.now() }
    const id = this.install(filter)
    this.logFilters.add(filter)
    this.blocks.retain()
    return id
  }

  /** eth_newBlockFilter. */
  newBlockFilter(): string {
    const filter: Filter = { kind: 'blocks', entries: [], lastPoll: this.now() }
    const id = this.install(filter)
    this.blockFilters.add(filter)
    this.blocks.retain()
    return id
  }

  /** eth_newPendingTransactionFilter. */
  newPendingTransactionFilter(): string {
    const filter: Filter = { kind: 'pendingTransactions', entries: [], lastPoll: this.now() }
    const id = this.install(filter)
    this.pendingFilters.add(filter)
    this.pending.retain()
    return id
  }

  /** eth_getFilterChanges: the entries since the last poll; resets the filter's deadline. */
  getFilterChanges(id: string): FilterChanges {
    const filter = this.lookup(id)
    filter.lastPoll = this.now()
    if (filter.kind === 'logs') {
      const logs = filter.entries
      filter.entries = []
      return { kind: 'logs', logs }
    }
    const hashes = filter.kind === 'blocks' ? filter.entries.map((e) => encodeData(e.hash)) : filter.entries.map(encodeData)
    filter.entries = []
    return { kind: 'hashes', hashes }
  }

  /** eth_getFilterLogs: every log the filter's criteria select, with the eth_getLogs caps. */
  getFilterLogs(id: string): Promise<LogJson[]> {
    const filter = this.lookup(id)
    if (filter.kind !== 'logs') throw new NodeError(`filter ${id} doesn't have a LogsSubscription type`)
    return getLogs(this.backend, filter.criteria, this.apiOptions)
  }

  /** eth_uninstallFilter: true when the filter existed. */
  uninstall(id: string): boolean {
    const filter = this.filters.get(id)
    if (filter === undefined) return false
    this.remove(id, filter)
    return true
  }

  /** Removes every filter and detaches from the chain (node shutdown). */
  stop(): void {
    for (const [id, filter] of this.filters) this.remove(id, filter)
    this.blocks.close()
    this.pending.close()
  }

  private install(filter: Filter): string {
    this.sweep()
    if (this.opts.cap > 0 && this.filters.size >= this.opts.cap) throw new NodeError('error creating filter: max limit reached')
    let id = newRandomId(randomBytes)
    while (this.filters.has(id)) id = newRandomId(randomBytes)
    this.filters.set(id, filter)
    if (this.sweeper === undefined) {
      this.sweeper = setInterval(() => this.sweep(), Math.max(1, Math.min(this.opts.timeout, MAX_SWEEP_INTERVAL)))
      this.sweeper.unref()
    }
    return id
  }

  /** The live filter with this id; an expired one is removed first. */
  private lookup(id: string): Filter {
    const filter = this.filters.get(id)
    if (filter === undefined) throw filterNotFoundError()
    if (this.isExpired(filter)) {
      this.remove(id, filter)
      throw filterNotFoundError()
    }
    return filter
  }

  private isExpired(filter: Filter): boolean {
    return this.now() - filter.lastPoll >= this.opts.timeout
  }

  private sweep(): void {
    for (const [id, filter] of this.filters) if (this.isExpired(filter)) this.remove(id, filter)
  }

  private remove(id: string, filter: Filter): void {
    this.filters.delete(id)
    if (filter.kind === 'logs') {
      this.logFilters.delete(filter)
      this.blocks.release()
    } else if (filter.kind === 'blocks') {
      this.blockFilters.delete(filter)
      this.blocks.release()
    } else {
      this.pendingFilters.delete(filter)
      this.pending.release()
    }
    if (this.filters.size === 0 && this.sweeper !== undefined) {
      clearInterval(this.sweeper)
      this.sweeper = undefined
    }
  }

  private onBlock(event: EthBlockEvent): void {
    for (const filter of this.blockFilters) this.append(filter.entries, { hash: event.block.hash, number: event.block.number })
    if (this.logFilters.size === 0 || event.logs.length === 0) return
    for (const filter of this.logFilters) {
      for (const log of event.logs) if (matchesLogFilter(log, filter.criteria)) this.append(filter.entries, log)
    }
  }

  /** A dev chain went back to `height`: what the filters collected from the removed blocks is gone with them. */
  private onRewind(height: number): void {
    for (const filter of this.blockFilters) filter.entries = filter.entries.filter((e) => e.number <= height)
    for (const filter of this.logFilters) filter.entries = filter.entries.filter((log) => log.blockNumber <= height)
  }

  private onPendingTx(event: EthPendingTxEvent): void {
    for (const filter of this.pendingFilters) this.append(filter.entries, event.hash)
  }

  private append<T>(entries: T[], entry: T): void {
    if (entries.length >= this.opts.maxEntries) entries.shift()
    entries.push(entry)
  }
}
