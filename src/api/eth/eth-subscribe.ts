/**
 * eth_subscribe / eth_unsubscribe. Over HTTP they answer -32000 `notifications not supported` (geth
 * 1.10, as Evmos), before looking at the params (the dispatcher does it: `notificationsOnly`). The
 * WebSocket transport passes a `SubscriptionService` that implements them against its `NotificationSink`.
 */
import { NodeError } from '../../utils/errors.js'
import { any } from '../../rpc/codecs.js'
import { defineMethod, optional, type MethodTable, type NotificationSink } from '../../rpc/method-table.js'

const NOTIFICATIONS_ONLY = { notificationsOnly: true }

/** The WebSocket side of subscriptions: names `newHeads`, `logs`, `newPendingTransactions`, `syncing`. */
export interface SubscriptionService {
  /** Starts a subscription pushing to `sink`; returns its id. Params are the raw JSON values. */
  subscribe(sink: NotificationSink, name: unknown, options: unknown): string | Promise<string>
  /** Ends a subscription of this sink; false when it does not exist. */
  unsubscribe(sink: NotificationSink, id: unknown): boolean
}

export function createEthSubscribeMethods(service?: SubscriptionService): MethodTable {
  return [
    defineMethod(
      'eth_subscribe',
      [optional(any), optional(any)],
      ([name, options], ctx) => {
        if (service === undefined) throw new NodeError('subscriptions are not available')
        return service.subscribe(ctx.notifications!, name, options)
      },
      NOTIFICATIONS_ONLY,
    ),
    defineMethod(
      'eth_unsubscribe',
      [optional(any)],
      ([id], ctx) => {
        if (service === undefined) throw new NodeError('subscriptions are not available')
        return service.unsubscribe(ctx.notifications!, id)
      },
      NOTIFICATIONS_ONLY,
    ),
  ]
}
