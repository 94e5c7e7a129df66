/**
 * Handlers of the WebSocket-only event routes (CometBFT `rpc/core/events.go`). They check what needs
 * no state and delegate to the EventSubscriptions the node wires in (query language, limits, event
 * pushing); without it nothing can be subscribed to yet.
 */
import { MethodNotFoundError } from './errors.js'
import type { RouteContext, WsClient } from './route.js'
import { MAX_QUERY_LENGTH } from './routes-txs.js'
import type { Json } from './wire-json.js'

/** `pubsub.ErrSubscriptionNotFound`. */
const SUBSCRIPTION_NOT_FOUND = 'subscription not found'

function wsClientOf(ctx: RouteContext): WsClient {
  // The server only routes these over WebSocket; this guards direct calls.
  if (!ctx.ws) throw new MethodNotFoundError()
  return ctx.ws
}

/** `subscribe`: `{}` now, then one message per matching event, all with this request's id. */
export async function subscribe(ctx: RouteContext, args: { query: string }): Promise<Json> {
  const client = wsClientOf(ctx)
  if (args.query.length > MAX_QUERY_LENGTH) throw new Error('maximum query length exceeded')
  if (!ctx.subscriptions) throw new Error('event subscriptions are not available on this node')
  await ctx.subscriptions.subscribe(client, ctx.requestId ?? -1, args.query)
  return {}
}

/** `unsubscribe`: removes the subscription with this query string. */
export async function unsubscribe(ctx: RouteContext, args: { query: string }): Promise<Json> {
  const client = wsClientOf(ctx)
  if (!ctx.subscriptions) throw new Error(SUBSCRIPTION_NOT_FOUND)
  await ctx.subscriptions.unsubscribe(client, args.query)
  return {}
}

/** `unsubscribe_all`: removes every subscription of this connection. */
export async function unsubscribeAll(ctx: RouteContext): Promise<Json> {
  const client = wsClientOf(ctx)
  if (!ctx.subscriptions) throw new Error(SUBSCRIPTION_NOT_FOUND)
  await ctx.subscriptions.unsubscribeAll(client)
  return {}
}
