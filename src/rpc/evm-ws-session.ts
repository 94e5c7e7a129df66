/**
 * The EVM JSON-RPC over one WebSocket connection: every message is one request or batch for the shared
 * Dispatcher (as over HTTP); the session is the `NotificationSink` of its eth_subscribe subscriptions.
 * - Requests are handled as they arrive (geth runs each in its own goroutine): a synchronous answer is
 *   written at once, an asynchronous one when ready, so replies may overtake each other (ids tell them
 *   apart); each one waiting counts against the connection's `maxConcurrentRequests`.
 * - While a message is being dispatched (and while a batch is in flight), notifications are held
 *   back and written after its reply: a subscription never notifies before the reply carrying its id
 *   (geth activates a subscription once the reply is written). Held notifications count against the
 *   connection's write bound like written ones.
 */
import type { Logger } from '../utils/logger.js'
import type { DispatchResult, Dispatcher } from './dispatcher.js'
import type { CallContext, NotificationSink } from './method-table.js'
import type { WsConnection } from './ws-connection.js'

function isBatchText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue
    return c === 0x5b // '['
  }
  return false
}

/** The EVM side of one WebSocket connection. */
export class EvmWsSession implements NotificationSink {
  private readonly ctx: CallContext
  /** Dispatches that hold notifications back: the one running now, and batches in flight. */
  private holds = 0
  private held: string[] = []
  private heldBytes = 0

  constructor(
    private readonly conn: WsConnection,
    caller: { authorized: boolean; loopback: boolean },
    private readonly dispatcher: Dispatcher,
    private readonly log: Logger,
  ) {
    this.ctx = Object.freeze({ transport: 'ws', notifications: this, authorized: caller.authorized, loopback: caller.loopback })
    conn.onClose(() => {
      this.held = []
    })
  }

  /** NotificationSink: a notification, held back while a message is dispatched or a batch is in flight. */
  send(message: string): void {
    if (this.conn.closed) return
    if (this.holds === 0) {
      this.conn.write(message)
      return
    }
    if (!this.conn.fits(this.heldBytes + message.length)) return this.conn.dropSlowClient()
    this.held.push(message)
    this.heldBytes += message.length
  }

  /** NotificationSink: runs once the connection is gone (at once if it already is). */
  onClose(callback: () => void): void {
    this.conn.onClose(callback)
  }

  /** Answers one message (a request or a batch). */
  handle(text: string): void {
    const batch = isBatchText(text)
    this.holds++
    let out: DispatchResult | Promise<DispatchResult>
    try {
      out = this.dispatcher.handle(text, this.ctx)
    } catch (err) {
      this.log.error('rpc dispatch failed', { error: err instanceof Error ? err.stack : String(err) })
      out = undefined
    }
    if (!(out instanceof Promise)) {
      if (out !== undefined) this.conn.write(out)
      return this.release()
    }
    // A single call waiting on I/O does not delay notifications; a batch might contain eth_subscribe.
    if (!batch) this.release()
    this.conn.beginRequest()
    out
      .then(
        (reply) => {
          if (reply !== undefined) this.conn.write(reply)
        },
        (err: unknown) => this.log.error('rpc dispatch failed', { error: err instanceof Error ? err.stack : String(err) }),
      )
      .finally(() => {
        this.conn.endRequest()
        if (batch) this.release()
      })
  }

  private release(): void {
    if (--this.holds > 0 || this.held.length === 0) return
    const held = this.held
    this.held = []
    this.heldBytes = 0
    for (const message of held) this.conn.write(message)
  }
}
