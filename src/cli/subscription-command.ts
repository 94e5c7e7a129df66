/**
 * Base of `nodectl subscribe ...`: opens a WebSocket subscription and prints each event (one line, or
 * one JSON line with `--json`) until Ctrl-C (SIGINT/SIGTERM: unsubscribe, close, exit 0) or `--count`
 * events. When the node goes away the client reconnects with back-off and subscribes again, saying
 * so on stderr (or as `{"reconnecting": ...}` JSON lines on stderr with `--json`). The EVM commands
 * use `eth_subscribe` at `--ws`; `subscribe events` uses CometBFT's `subscribe` (see streamFrom).
 */
import { Flags } from '@oclif/core'
import { WsRpcClient, type Subscription, type SubscriptionDialect } from '../rpc/client/index.js'
import type { ConnectionFlags } from './endpoints.js'
import { ClientCommand, connectionFlags } from './rpc-command.js'
import { durationFlag } from './duration-flag.js'

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
  /** Subscription parameters (`eth_subscribe` params, or `[query]` for CometBFT). */
  params: unknown[]
  /** The human one-line rendering of an event. */
  renderLine(event: unknown): string
}

/** Where a stream connects and which subscription protocol it speaks. */
export interface StreamTarget {
  /** WebSocket URL. */
  url: string
  /** Headers of each (re)connection (a JWT for private namespaces); none by default. */
  headers?: () => Record<string, string>
  /** Subscription protocol (default `eth_subscribe`). */
  dialect?: SubscriptionDialect
}

/** The flags of every subscribe command besides its connection flags. */
export const streamFlags = {
  json: Flags.boolean({ summary: 'Print each event as one JSON line.' }),
  count: Flags.integer({ summary: 'Stop after this many events [default: run until Ctrl-C].', min: 1 }),
  'max-reconnect-delay': durationFlag({
    name: 'max-reconnect-delay',
    summary: 'Longest wait between reconnection attempts.',
    default: '5s',
    minMs: 10,
  }),
}

/** Parsed {@link streamFlags}. */
export interface StreamFlags {
  json: boolean
  count?: number
  'max-reconnect-delay': number
}

/** A command that streams subscription events: JSON lines with `--json` instead of a final JSON document. */
export abstract class StreamCommand extends ClientCommand {
  static override enableJsonFlag = false
  static override baseFlags = streamFlags

  /** Subscribes at `target` and prints until stopped; see the file comment. */
  protected async streamFrom(target: StreamTarget, flags: StreamFlags, spec: StreamSpec): Promise<SubscribeResult> {
    const ws = target.url
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
      ...(target.headers ? { headers: target.headers } : {}),
      ...(target.dialect ? { dialect: target.dialect } : {}),
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
      onCancelled: (err) => {
        if (flags.json) this.logToStderr(JSON.stringify({ cancelled: { code: err.code, message: err.rpcMessage, data: err.data } }))
        else this.logToStderr(`subscription cancelled by the node: ${this.describeError(err) ?? err.message}`)
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

/** An `eth_subscribe` command (`--ws-url`, `--home`). */
export abstract class SubscriptionCommand extends StreamCommand {
  static override baseFlags = { ...connectionFlags, ...streamFlags }

  /** Subscribes with `eth_subscribe` at `--ws-url` and prints until stopped; see the file comment. */
  protected async stream(flags: StreamFlags & ConnectionFlags, spec: StreamSpec): Promise<SubscribeResult> {
    const { ws, home } = await this.endpoints(flags, 'ws')
    return this.streamFrom({ url: ws, headers: await this.authHeaders(ws, home, flags.home !== undefined) }, flags, spec)
  }
}
