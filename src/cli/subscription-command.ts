/**
 * Base of `nodectl subscribe ...`: opens a WebSocket subscription and prints each event (one line, or
 * one JSON line with `--json`) until Ctrl-C (SIGINT/SIGTERM: unsubscribe, close, exit 0) or `--count`
 * events. When the node goes away the client reconnects with back-off and subscribes again, saying
 * so on stderr (or as `{"reconnecting": ...}` JSON lines on stderr with `--json`).
 */
import { Flags } from '@oclif/core'
import { WsRpcClient, type Subscription } from '../rpc/client/index.js'
import { ClientCommand, endpointFlags } from './rpc-command.js'

/** Result of a subscribe command (returned to callers; the stream itself is what is printed). */
export interface SubscribeResult {
  /** The last server-side subscription id. */
  subscription: string
  /** Events printed. */
  events: number
  /** Successful reconnections. */
  reconnects: number
  /** Why the stream ended. */
  stoppedBy: 'signal' | 'count'
}

/** What a concrete subscribe command supplies. */
export interface StreamSpec {
  /** `eth_subscribe` parameters. */
  params: unknown[]
  /** The human one-line rendering of an event. */
  renderLine(event: unknown): string
}

/** A subscribe command: JSON lines with `--json` instead of a final JSON document. */
export abstract class SubscriptionCommand extends ClientCommand {
  static override enableJsonFlag = false
  static override baseFlags = {
    ws: endpointFlags.ws,
    home: endpointFlags.home,
    json: Flags.boolean({ summary: 'Print each event as one JSON line.' }),
    count: Flags.integer({ summary: 'Stop after this many events [default: run until Ctrl-C].', min: 1 }),
    'max-reconnect-delay': Flags.integer({ summary: 'Longest wait between reconnection attempts, in ms.', default: 5_000, min: 10 }),
  }

  /** Subscribes and prints until stopped; see the file comment. */
  protected async stream(flags: { ws?: string; home?: string; json: boolean; count?: number; 'max-reconnect-delay': number }, spec: StreamSpec): Promise<SubscribeResult> {
    const { ws, home } = await this.endpoints(flags)
    let events = 0
    let reconnects = 0
    let subscription: Subscription | undefined
    let finish: (by: SubscribeResult['stoppedBy']) => void = () => {}
    let fail: (err: Error) => void = () => {}
    const stopped = new Promise<SubscribeResult['stoppedBy']>((resolve, reject) => {
      finish = resolve
      fail = reject
    })
    const client = await WsRpcClient.connect(ws, {
      headers: await this.authHeaders(ws, home, flags.home !== undefined),
      reconnect: { maxDelayMs: flags['max-reconnect-delay'] },
      onReconnecting: (attempt, delayMs, reason) => {
        if (flags.json) this.logToStderr(JSON.stringify({ reconnecting: { attempt, delayMs, reason } }))
        else this.logToStderr(`${reason}: reconnecting to ${ws} in ${delayMs} ms (attempt ${attempt})`)
      },
      onReconnected: (attempt) => {
        reconnects++
        if (flags.json) this.logToStderr(JSON.stringify({ reconnected: { attempt, subscription: subscription?.id } }))
        else this.logToStderr(`reconnected to ${ws}; subscribed again as ${subscription?.id}`)
      },
      onFatal: (err) => fail(err),
    })
    const onSignal = (): void => finish('signal')
    process.once('SIGINT', onSignal)
    process.once('SIGTERM', onSignal)
    try {
      subscription = await client.subscribe(spec.params, (event) => {
        if (flags.count !== undefined && events >= flags.count) return
        events++
        this.log(flags.json ? JSON.stringify(event) : spec.renderLine(event))
        if (flags.count !== undefined && events >= flags.count) finish('count')
      })
      if (!flags.json) this.logToStderr(`subscribed to ${String(spec.params[0])} at ${ws} (id ${subscription.id}); Ctrl-C to stop`)
      const stoppedBy = await stopped
      return { subscription: subscription.id, events, reconnects, stoppedBy }
    } finally {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      await subscription?.unsubscribe().catch(() => undefined)
      await client.close()
    }
  }
}
