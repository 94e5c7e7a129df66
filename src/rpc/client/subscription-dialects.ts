/**
 * The two subscription protocols {@link WsRpcClient} speaks, as data: how a subscription is opened
 * and closed, which key its pushes carry, and how a pushed message is recognised.
 *
 * - EVM (`eth_subscribe`, geth/Evmos): the result is a subscription id; events arrive as
 *   notifications `{"method":"eth_subscription","params":{"subscription","result"}}`.
 * - Consensus (CometBFT `subscribe`, `rpc/core/events.go`): params `{query}`, the
 *   result is `{}`; events arrive as responses carrying the subscribe request's own id, with result
 *   `{query, data, events}`; an error with that id later means the node cancelled the subscription
 *   (-32000 `subscription was canceled (reason: ...)`).
 */
import type { JsonRpcParams } from './http-client.js'

/** A message pushed for a subscription: an event, or the node cancelling it. */
export type PushedMessage = { key: string; event: unknown } | { key: string; error: { code: number; message: string; data?: unknown } }

/** One subscription protocol. */
export interface SubscriptionDialect {
  /** The request that opens a subscription with the caller's parameters. */
  subscribeRequest(params: unknown[]): { method: string; params: JsonRpcParams }
  /** The key the subscription's pushes carry, from the subscribe result and request id; undefined if unusable. */
  keyOf(result: unknown, requestId: number): string | undefined
  /** The request that closes subscription `key` opened with `params`. */
  unsubscribeRequest(key: string, params: unknown[]): { method: string; params: JsonRpcParams }
  /** A pushed message's key and content; undefined when `msg` is not a push (e.g. a call's reply). */
  pushOf(msg: Record<string, unknown>): PushedMessage | undefined
}

/** geth's `eth_subscribe` / `eth_subscription` / `eth_unsubscribe`. */
export const ethSubscriptions: SubscriptionDialect = {
  subscribeRequest: (params) => ({ method: 'eth_subscribe', params }),
  keyOf: (result) => (typeof result === 'string' ? result : undefined),
  unsubscribeRequest: (key) => ({ method: 'eth_unsubscribe', params: [key] }),
  pushOf(msg) {
    if (msg.method !== 'eth_subscription') return undefined
    const params = msg.params as { subscription?: unknown; result?: unknown } | undefined
    return typeof params?.subscription === 'string' ? { key: params.subscription, event: params.result } : undefined
  },
}

/** CometBFT's `subscribe` / `unsubscribe` with params `{query}`; params[0] is the query. */
export const cometSubscriptions: SubscriptionDialect = {
  subscribeRequest: (params) => ({ method: 'subscribe', params: { query: params[0] } }),
  keyOf: (_result, requestId) => String(requestId),
  unsubscribeRequest: (_key, params) => ({ method: 'unsubscribe', params: { query: params[0] } }),
  pushOf(msg) {
    if (typeof msg.id !== 'number' && typeof msg.id !== 'string') return undefined
    const key = String(msg.id)
    const error = msg.error as { code: number; message: string; data?: unknown } | undefined
    if (error) return { key, error }
    // The subscribe acknowledgement `{}` has no `query`: it is the call's reply, not an event.
    const result = msg.result as { query?: unknown } | undefined
    return typeof result === 'object' && result !== null && typeof result.query === 'string' ? { key, event: result } : undefined
  },
}
