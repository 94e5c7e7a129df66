/**
 * What a route is (one entry of the table in routes.ts) and what its handler receives, plus the
 * height and pagination rules every handler shares (CometBFT `rpc/core/env.go`).
 */
import type { Logger } from '../../utils/logger.js'
import type { Validator } from '../../comet/types.js'
import type { CometBackend } from './backend.js'
import type { RpcId, RpcResponse } from './errors.js'
import type { ArgsOf, Param } from './params.js'
import type { Json } from './wire-json.js'

/** A WebSocket client as subscriptions see it (one per connection, as CometBFT keys them by `ip:port`). */
export interface WsClient {
  /** `ip:port` of the peer: the subscriber identity. */
  readonly remoteAddr: string
  /** Queues a message; false when the connection is closed or its write buffer is full. */
  send(response: RpcResponse): boolean
  /** True once the socket has closed. */
  readonly closed: boolean
}

/**
 * Event subscriptions for `subscribe`, `unsubscribe` and `unsubscribe_all` (implemented with the
 * query language over the node's events). Each event is pushed to the client with the subscribe
 * request's id, as `{"query", "data", "events"}`. Errors thrown carry CometBFT's texts
 * (`already subscribed`, `subscription not found`, `max_subscriptions_per_client 5 reached`, …).
 */
export interface EventSubscriptions {
  subscribe(client: WsClient, requestId: RpcId, query: string): Promise<void>
  unsubscribe(client: WsClient, query: string): Promise<void>
  unsubscribeAll(client: WsClient): Promise<void>
}

/** Route options the handlers read (a slice of CometRpcOptions). */
export interface RouteOptions {
  /** How long broadcast_tx_commit waits for inclusion (ms). */
  timeoutBroadcastTxCommit: number
}

/** What a handler receives besides its arguments. */
export interface RouteContext {
  readonly backend: CometBackend
  readonly options: RouteOptions
  readonly log: Logger
  /** Aborted when the server closes (long waits give up). */
  readonly signal: AbortSignal
  /** Set over WebSocket. */
  readonly ws?: WsClient
  /** Set over WebSocket: the request's id (subscriptions push events with it). */
  readonly requestId?: RpcId
  /** Undefined until the event system is wired. */
  readonly subscriptions?: EventSubscriptions
}

/** One route of the table, type-erased. */
export interface RouteDef {
  readonly name: string
  readonly params: readonly Param[]
  /** Returns the `result` value; throws to answer with an error. */
  readonly handler: (ctx: RouteContext, args: Record<string, unknown>) => Promise<Json>
  /**
   * `Cache-Control: public, max-age=86400` on success: true always, or the name of the argument
   * that must be given and non-zero (`rpc.Cacheable("height")`).
   */
  readonly cacheable?: true | string
  /** Served over WebSocket only (subscribe, unsubscribe, unsubscribe_all). */
  readonly wsOnly?: true
}

/** Declares a route with typed arguments. */
export function defineRoute<const P extends readonly Param[]>(def: {
  name: string
  params: P
  handler: (ctx: RouteContext, args: ArgsOf<P>) => Promise<Json>
  cacheable?: true | string
  wsOnly?: true
}): RouteDef {
  return def as unknown as RouteDef
}

/** Whether a successful call with these arguments may be cached (`RPCFunc.cacheableWithArgs`). */
export function isCacheable(route: RouteDef, args: Record<string, unknown>): boolean {
  if (route.cacheable === undefined) return false
  if (route.cacheable === true) return true
  const v = args[route.cacheable]
  return v !== undefined && v !== 0n
}

/** `defaultPerPage`, `maxPerPage` (rpc/core/env.go). */
export const DEFAULT_PER_PAGE = 30
export const MAX_PER_PAGE = 100

/**
 * `getHeight`: the given height must be > 0, ≤ `latest` and ≥ the store base; none = `latest`.
 */
export async function resolveHeight(ctx: RouteContext, latest: number, height: bigint | undefined): Promise<number> {
  if (height === undefined) return latest
  if (height <= 0n) throw new Error(`height must be greater than 0, but got ${height}`)
  if (height > BigInt(latest)) throw new Error(`height ${height} must be less than or equal to the current blockchain height ${latest}`)
  const base = await ctx.backend.baseHeight()
  if (height < BigInt(base)) throw new Error(`height ${height} is not available, lowest height is ${base}`)
  return Number(height)
}

/** `latestUncommittedHeight`: store height + 1, or the store height while catching up. */
export async function latestUncommittedHeight(ctx: RouteContext): Promise<number> {
  const height = await ctx.backend.latestHeight()
  return (await ctx.backend.isCatchingUp()) ? height : height + 1
}

/** `validatePerPage`: none or < 1 → 30, > 100 → 100. */
export function validatePerPage(perPage: bigint | undefined): number {
  if (perPage === undefined || perPage < 1n) return DEFAULT_PER_PAGE
  return perPage > BigInt(MAX_PER_PAGE) ? MAX_PER_PAGE : Number(perPage)
}

/** `validatePage`: none → 1; otherwise within [1, pages] where pages = max(1, ceil(total / perPage)). */
export function validatePage(page: bigint | undefined, perPage: number, totalCount: number): number {
  if (page === undefined) return 1
  // Go: ((totalCount - 1) / perPage) + 1 with truncating division, so 0 items still make one page.
  const pages = Math.max(1, Math.trunc((totalCount - 1) / perPage) + 1)
  if (page <= 0n || page > BigInt(pages)) throw new Error(`page should be within [1, ${pages}] range, given ${page}`)
  return Number(page)
}

/** The slice of `items` a page shows (`validateSkipCount` + `MinInt(perPage, total - skip)`). */
export function pageOf<T>(items: readonly T[], page: number, perPage: number): T[] {
  const skip = Math.max(0, (page - 1) * perPage)
  return items.slice(skip, skip + perPage)
}

/** The validators of what `CometBackend.loadValidators` returned (a ValidatorSet or a list). */
export function validatorsOf(set: { readonly validators: readonly Validator[] } | readonly Validator[]): readonly Validator[] {
  return 'validators' in set ? set.validators : set
}
