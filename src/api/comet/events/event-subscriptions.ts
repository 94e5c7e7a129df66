/**
 * `subscribe` / `unsubscribe` / `unsubscribe_all` over the consensus engine's typed events
 * (CometBFT `rpc/core/events.go` + `libs/pubsub`). Each
 * WebSocket connection is a client; its subscriptions are keyed by the normalised query text. A
 * matching event is pushed as `{query, data, events}` with the subscribe request's id.
 *
 * Memory stays bounded: the connection's write buffer is the only queue. When it is full (a client
 * that does not read), the subscription is cancelled with -32000 `subscription was canceled
 * (reason: slow client)` instead of buffering more, as CometBFT does with
 * `experimental_close_on_slow_client`.
 */
import { formatQuery, matchQuery, parseQuery as parseQueryText, type Query } from '../../../comet/query/index.js'

/** The query of subscribe/unsubscribe; a bad one is CometBFT's handler error `failed to parse query: …` (rpc/core/events.go), -32603. */
function parseQuery(text: string): Query {
  try {
    return parseQueryText(text)
  } catch (err) {
    throw new Error(`failed to parse query: ${(err as Error).message}`)
  }
}
import type { ConsensusEventName, ConsensusEvents } from '../../../consensus/events.js'
import type { TypedEmitter } from '../../../utils/events.js'
import { silentLogger, type Logger } from '../../../utils/logger.js'
import { CometErrorCode, errorResponse, successResponse, type RpcId } from '../errors.js'
import type { EventSubscriptions, WsClient } from '../route.js'
import type { JsonObject } from '../wire-json.js'
import { SUBSCRIBABLE_EVENTS, encodeEventData, encodeEventMap, eventMapOf } from './event-payloads.js'

/** Limits from `[rpc]` of config.toml. */
export interface EventSubscriptionsOptions {
  /** `max_subscription_clients` (default 100): distinct connections with at least one subscription. */
  maxSubscriptionClients: number
  /** `max_subscriptions_per_client` (default 5). */
  maxSubscriptionsPerClient: number
  /** Retry period of a cancellation notice the client's full buffer refused, in ms (default 50). */
  noticeRetryMs: number
  /** How many times a refused cancellation notice is retried before it is dropped (default 200: 10 s at 50 ms). */
  noticeRetries: number
}

export const defaultEventSubscriptionsOptions: EventSubscriptionsOptions = {
  maxSubscriptionClients: 100,
  maxSubscriptionsPerClient: 5,
  noticeRetryMs: 50,
  noticeRetries: 200,
}

/** Cancellation reasons (CometBFT's texts). */
export const CancelReason = {
  slowClient: 'slow client',
  exited: 'CometBFT exited',
} as const

interface Subscription {
  client: WsClient
  requestId: RpcId
  query: Query
}

export class CometEventSubscriptions implements EventSubscriptions {
  private readonly options: EventSubscriptionsOptions
  private readonly clients = new Map<WsClient, Map<string, Subscription>>()
  private readonly offs: (() => void)[] = []
  private readonly timers = new Set<NodeJS.Timeout>()
  private closed = false

  constructor(
    events: TypedEmitter<ConsensusEvents>,
    options: Partial<EventSubscriptionsOptions> = {},
    private readonly log: Logger = silentLogger,
  ) {
    this.options = { ...defaultEventSubscriptionsOptions, ...options }
    for (const name of SUBSCRIBABLE_EVENTS) this.offs.push(events.on(name, (payload) => this.publish(name, payload)))
  }

  async subscribe(client: WsClient, requestId: RpcId, text: string): Promise<void> {
    if (this.closed) throw new Error('subscription was canceled (reason: CometBFT exited)')
    const query = parseQuery(text)
    const key = formatQuery(query)
    const subs = this.clients.get(client)
    const { maxSubscriptionClients, maxSubscriptionsPerClient } = this.options
    if (!subs && this.clients.size >= maxSubscriptionClients) throw new Error(`max_subscription_clients ${maxSubscriptionClients} reached`)
    if (subs && subs.size >= maxSubscriptionsPerClient) throw new Error(`max_subscriptions_per_client ${maxSubscriptionsPerClient} reached`)
    if (subs?.has(key)) throw new Error('already subscribed')
    if (client.closed) throw new Error('client is closed')
    const entry: Subscription = { client, requestId, query }
    if (subs) subs.set(key, entry)
    else this.clients.set(client, new Map([[key, entry]]))
    this.log.debug('subscribed', { remote: client.remoteAddr, query: text })
  }

  async unsubscribe(client: WsClient, text: string): Promise<void> {
    const key = formatQuery(parseQuery(text))
    const subs = this.clients.get(client)
    if (!subs?.delete(key)) throw new Error('subscription not found')
    if (subs.size === 0) this.clients.delete(client)
  }

  async unsubscribeAll(client: WsClient): Promise<void> {
    if (!this.clients.delete(client)) throw new Error('subscription not found')
  }

  /** Distinct clients with subscriptions, and subscriptions in all. */
  stats(): { clients: number; subscriptions: number } {
    let subscriptions = 0
    for (const subs of this.clients.values()) subscriptions += subs.size
    return { clients: this.clients.size, subscriptions }
  }

  /** Node shutdown: every subscriber is told `CometBFT exited` (best effort) and the engine is let go. */
  close(): void {
    if (this.closed) return
    this.closed = true
    for (const off of this.offs.splice(0)) off()
    for (const subs of this.clients.values()) for (const sub of subs.values()) sub.client.send(this.cancelNotice(sub, CancelReason.exited))
    this.clients.clear()
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
  }

  private publish<K extends ConsensusEventName>(name: K, payload: ConsensusEvents[K]): void {
    if (this.clients.size === 0) return
    const map = eventMapOf(name, payload)
    let data: JsonObject | undefined
    let events: JsonObject | undefined
    for (const [client, subs] of [...this.clients]) {
      if (client.closed) {
        this.clients.delete(client)
        continue
      }
      for (const [key, sub] of [...subs]) {
        if (!matchQuery(sub.query, map)) continue
        data ??= encodeEventData(name, payload)
        events ??= encodeEventMap(map)
        if (client.send(successResponse(sub.requestId, { query: sub.query.source, data, events }))) continue
        if (client.closed) {
          this.clients.delete(client)
          break
        }
        this.cancel(key, sub, CancelReason.slowClient)
      }
    }
  }

  /** Removes a subscription and tells the client why, retrying while its buffer is still full. */
  private cancel(key: string, sub: Subscription, reason: string): void {
    const subs = this.clients.get(sub.client)
    subs?.delete(key)
    if (subs?.size === 0) this.clients.delete(sub.client)
    this.log.info('subscription canceled', { remote: sub.client.remoteAddr, query: sub.query.source, reason })
    const notice = this.cancelNotice(sub, reason)
    let tries = 0
    const attempt = (): void => {
      if (sub.client.closed || sub.client.send(notice) || ++tries > this.options.noticeRetries) return
      const t = setTimeout(() => {
        this.timers.delete(t)
        attempt()
      }, this.options.noticeRetryMs)
      this.timers.add(t)
    }
    attempt()
  }

  private cancelNotice(sub: Subscription, reason: string) {
    return errorResponse(sub.requestId, CometErrorCode.ServerError, `subscription was canceled (reason: ${reason})`)
  }
}
