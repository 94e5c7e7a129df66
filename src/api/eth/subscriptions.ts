/**
 * eth_subscribe over WebSocket (notification shape and names: docs/decisions.md): the
 * `SubscriptionService` the eth_subscribe methods call with the connection's `NotificationSink`.
 * - `newHeads`: the block object of eth_getBlockByNumber without `transactions` (so `hash` is the hash
 *   every other method shows — Evmos sends an emulated header hash here); with
 *   `{"includeTransactions": true}` the full transaction objects are included;
 * - `logs`: one notification per matching log of each committed block (`removed: false`), filter
 *   object as eth_getLogs (address, topics, numeric block bounds); when a dev chain goes back to a
 *   snapshot (evm_revert, anvil_reset), the matching logs of the removed blocks again, in chain order,
 *   with `removed: true`, before any block of the new chain (geth's reorg notifications);
 * - `newPendingTransactions`: hashes of transactions entering the pool (Evmos: committed ones), or the
 *   full pending transaction objects with `true`;
 * - `syncing`: the current status once, then each change between synced (`false`) and catching up
 *   (`{"syncing": true, "status": {startingBlock, currentBlock, highestBlock}}`, QUANTITY fields as
 *   eth_syncing).
 * Every notification is `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":ID,"result":...}}`,
 * its result serialized once per event whatever the number of subscribers. Subscriptions end with
 * eth_unsubscribe or when the connection closes; at most `maxPerConnection` live on one connection.
 */
import { randomBytes } from '../../crypto/random.js'
import { DecodeError, jsonKind } from '../../rpc/codecs.js'
import { RpcErrorCode } from '../../rpc/json-rpc.js'
import type { NotificationSink } from '../../rpc/method-table.js'
import { RpcError, invalidParamsError } from '../../rpc/rpc-errors.js'
import { NodeError } from '../../utils/errors.js'
import type { Logger } from '../../utils/logger.js'
import { toQuantity } from '../../primitives/quantity.js'
import type { EvmLog } from '../../evm/store/views.js'
import type { EthBackend } from './backend.js'
import type { SubscriptionService } from './eth-subscribe.js'
import { LazyListener, newRandomId, type EthBlockEvent, type EthEvents, type EthPendingTxEvent } from './events.js'
import { formatBlock, formatTransaction } from './format.js'
import { renderLogJson } from './log-json.js'
import { logFilter, type LogFilter } from './log-filter.js'
import { matchesLogFilter } from './log-match.js'

/** Options of the subscription service. */
export interface SubscriptionOptions {
  /** Live subscriptions on one connection (default 100); 0 = unlimited. */
  maxPerConnection: number
}

export const defaultSubscriptionOptions: SubscriptionOptions = {
  maxPerConnection: 100,
}

type Subscription =
  | { id: string; sink: NotificationSink; kind: 'newHeads'; includeTransactions: boolean }
  | { id: string; sink: NotificationSink; kind: 'logs'; criteria: LogFilter }
  | { id: string; sink: NotificationSink; kind: 'newPendingTransactions'; fullTransactions: boolean }
  | { id: string; sink: NotificationSink; kind: 'syncing'; lastSyncing: boolean | undefined }

/** The serialized notification for one subscription (geth's shape, in that key order). */
export function renderNotification(subscription: string, resultJson: string): string {
  return '{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"' + subscription + '","result":' + resultJson + '}}'
}

/** geth `subscriptionNotFoundError`. */
function unknownSubscriptionError(name: string): RpcError {
  return new RpcError(RpcErrorCode.methodNotFound, `no "${name}" subscription in eth namespace`)
}

/**
 * geth parses the subscription name as argument 0 together with the callback's own arguments
 * (`rpc/handler.go handleSubscribe`), so the options object is argument 1.
 */
function invalidOption(err: unknown): RpcError {
  return invalidParamsError(`invalid argument 1: ${err instanceof Error ? err.message : String(err)}`)
}

function decodeNewHeadsOptions(options: unknown): boolean {
  if (options === undefined || options === null) return false
  if (typeof options !== 'object' || Array.isArray(options)) throw invalidOption(new DecodeError(jsonKind(options), 'filters.NewHeadsArgs'))
  const include = (options as Record<string, unknown>).includeTransactions
  if (include === undefined || include === null) return false
  if (typeof include !== 'boolean')
    throw invalidOption(new DecodeError(jsonKind(include), 'bool', { struct: 'NewHeadsArgs', name: 'includeTransactions' }))
  return include
}

function decodeLogsOptions(options: unknown): LogFilter {
  if (options === undefined) throw invalidParamsError('missing value for required argument 1')
  let criteria: LogFilter
  try {
    criteria = logFilter(options)
  } catch (err) {
    throw invalidOption(err)
  }
  const { fromBlock, toBlock } = criteria
  if (typeof fromBlock === 'number' && typeof toBlock === 'number' && fromBlock > toBlock)
    throw new NodeError('invalid from and to block combination')
  return criteria
}

function decodePendingOptions(options: unknown): boolean {
  if (options === undefined || options === null) return false
  if (typeof options !== 'boolean') throw invalidOption(new DecodeError(jsonKind(options), 'bool'))
  return options
}

/** The subscriptions of every WebSocket connection of a node. */
export class SubscriptionManager implements SubscriptionService {
  private readonly bySink = new Map<NotificationSink, Map<string, Subscription>>()
  private readonly heads = new Set<Subscription & { kind: 'newHeads' }>()
  private readonly logs = new Set<Subscription & { kind: 'logs' }>()
  private readonly pending = new Set<Subscription & { kind: 'newPendingTransactions' }>()
  private readonly syncing = new Set<Subscription & { kind: 'syncing' }>()
  private readonly blockEvents: LazyListener
  private readonly removedLogEvents: LazyListener
  private readonly poolEvents: LazyListener
  private readonly opts: SubscriptionOptions

  constructor(
    private readonly backend: EthBackend,
    events: EthEvents,
    private readonly log: Logger,
    options: Partial<SubscriptionOptions> = {},
  ) {
    this.opts = { ...defaultSubscriptionOptions, ...options }
    this.blockEvents = new LazyListener(() => events.onBlock((event) => this.guard('block', () => this.onBlock(event))))
    this.removedLogEvents = new LazyListener(
      () => events.onRemovedLogs?.((logs) => this.guard('removed logs', () => this.sendLogs(logs))) ?? (() => {}),
    )
    this.poolEvents = new LazyListener(() =>
      events.onPendingTransaction((event) => this.guard('pending transaction', () => this.onPendingTx(event))),
    )
  }

  /** Live subscriptions, all connections together. */
  get size(): number {
    return this.heads.size + this.logs.size + this.pending.size + this.syncing.size
  }

  subscribe(sink: NotificationSink, name: unknown, options: unknown): string {
    if (typeof name !== 'string') throw invalidParamsError('expected subscription name as first argument')
    const sub = this.create(sink, name, options)
    let mine = this.bySink.get(sink)
    if (mine !== undefined && this.opts.maxPerConnection > 0 && mine.size >= this.opts.maxPerConnection) {
      throw new NodeError(`too many subscriptions on this connection (max ${this.opts.maxPerConnection})`)
    }
    if (mine === undefined) {
      const created = new Map<string, Subscription>()
      mine = created
      this.bySink.set(sink, created)
      sink.onClose(() => this.closeSink(sink))
    }
    while (mine.has(sub.id)) sub.id = newRandomId(randomBytes)
    mine.set(sub.id, sub)
    this.add(sub)
    return sub.id
  }

  unsubscribe(sink: NotificationSink, id: unknown): boolean {
    if (id === undefined) throw invalidParamsError('missing value for required argument 0')
    if (typeof id !== 'string') throw invalidParamsError(`invalid argument 0: ${new DecodeError(jsonKind(id), 'rpc.ID').message}`)
    const sub = this.bySink.get(sink)?.get(id)
    if (sub === undefined) return false
    this.remove(sub)
    return true
  }

  /** Ends every subscription (node shutdown). */
  close(): void {
    for (const sink of [...this.bySink.keys()]) this.closeSink(sink)
    this.blockEvents.close()
    this.removedLogEvents.close()
    this.poolEvents.close()
  }

  private create(sink: NotificationSink, name: string, options: unknown): Subscription {
    const id = newRandomId(randomBytes)
    switch (name) {
      case 'newHeads':
        return { id, sink, kind: 'newHeads', includeTransactions: decodeNewHeadsOptions(options) }
      case 'logs':
        return { id, sink, kind: 'logs', criteria: decodeLogsOptions(options) }
      case 'newPendingTransactions':
        return { id, sink, kind: 'newPendingTransactions', fullTransactions: decodePendingOptions(options) }
      case 'syncing':
        if (options !== undefined && options !== null) throw invalidParamsError('too many arguments, want at most 1')
        return { id, sink, kind: 'syncing', lastSyncing: undefined }
      default:
        throw unknownSubscriptionError(name)
    }
  }

  private add(sub: Subscription): void {
    switch (sub.kind) {
      case 'newHeads':
        this.heads.add(sub)
        break
      case 'logs':
        this.logs.add(sub)
        this.removedLogEvents.retain()
        break
      case 'newPendingTransactions':
        this.pending.add(sub)
        this.poolEvents.retain()
        return
      case 'syncing':
        this.syncing.add(sub)
        // After the reply carrying the id has been written (the transport writes it synchronously).
        setImmediate(() => this.guard('syncing', () => this.notifySyncing(sub)))
        break
    }
    this.blockEvents.retain()
  }

  private remove(sub: Subscription): void {
    this.bySink.get(sub.sink)?.delete(sub.id)
    switch (sub.kind) {
      case 'newHeads':
        if (this.heads.delete(sub)) this.blockEvents.release()
        return
      case 'logs':
        if (!this.logs.delete(sub)) return
        this.blockEvents.release()
        this.removedLogEvents.release()
        return
      case 'newPendingTransactions':
        if (this.pending.delete(sub)) this.poolEvents.release()
        return
      case 'syncing':
        if (this.syncing.delete(sub)) this.blockEvents.release()
        return
    }
  }

  private closeSink(sink: NotificationSink): void {
    const mine = this.bySink.get(sink)
    if (mine === undefined) return
    for (const sub of [...mine.values()]) this.remove(sub)
    this.bySink.delete(sink)
  }

  /** Runs an event handler; a failure is logged, never thrown into the chain's emitter. */
  private guard(what: string, fn: () => void): void {
    try {
      fn()
    } catch (err) {
      this.log.error('subscription notification failed', { event: what, err })
    }
  }

  private onBlock(event: EthBlockEvent): void {
    if (this.heads.size > 0) {
      let header: string | undefined
      let full: string | undefined
      for (const sub of this.heads) {
        let json: string
        if (sub.includeTransactions) {
          json = full ??= JSON.stringify(formatBlock(event.block, event.transactions))
        } else {
          json = header ??= JSON.stringify(formatHeader(event))
        }
        sub.sink.send(renderNotification(sub.id, json))
      }
    }
    this.sendLogs(event.logs)
    for (const sub of this.syncing) this.notifySyncing(sub)
  }

  /** Each log to every logs subscription it matches, rendered once however many it goes to. */
  private sendLogs(logs: readonly EvmLog[]): void {
    if (this.logs.size === 0 || logs.length === 0) return
    const texts = new Array<string | undefined>(logs.length)
    for (const sub of this.logs) {
      logs.forEach((log, i) => {
        if (!matchesLogFilter(log, sub.criteria)) return
        texts[i] ??= renderLogJson(log)
        sub.sink.send(renderNotification(sub.id, texts[i]))
      })
    }
  }

  private onPendingTx(event: EthPendingTxEvent): void {
    let hash: string | undefined
    let full: string | undefined
    for (const sub of this.pending) {
      if (sub.fullTransactions) full ??= JSON.stringify(formatTransaction(event.transaction()))
      else hash ??= '"0x' + Buffer.from(event.hash).toString('hex') + '"'
      sub.sink.send(renderNotification(sub.id, sub.fullTransactions ? full! : hash!))
    }
  }

  /** Sends the sync status when it differs from the last one sent to `sub` (always the first time). */
  private notifySyncing(sub: Subscription & { kind: 'syncing' }): void {
    if (!this.syncing.has(sub)) return
    const status = this.backend.syncStatus()
    const syncing = status !== undefined
    if (sub.lastSyncing === syncing) return
    sub.lastSyncing = syncing
    const result =
      status === undefined
        ? 'false'
        : JSON.stringify({
            syncing: true,
            status: {
              startingBlock: toQuantity(status.startingBlock),
              currentBlock: toQuantity(status.currentBlock),
              highestBlock: toQuantity(status.highestBlock),
            },
          })
    sub.sink.send(renderNotification(sub.id, result))
  }
}

/** The newHeads payload: the block object without `transactions` and `withdrawals`. */
function formatHeader(event: EthBlockEvent): Omit<ReturnType<typeof formatBlock>, 'transactions' | 'withdrawals'> {
  const { transactions: _transactions, withdrawals: _withdrawals, ...header } = formatBlock(event.block)
  return header
}
