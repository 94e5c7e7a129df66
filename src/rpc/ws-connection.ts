/**
 * One EVM JSON-RPC WebSocket connection: every text (or binary) frame is one message for the shared
 * Dispatcher (single request or batch, as over HTTP); the connection is the `NotificationSink` of its
 * eth_subscribe subscriptions.
 * - Requests are handled as they arrive (geth runs each in its own goroutine): a synchronous answer is
 *   written at once, an asynchronous one when ready, so replies may overtake each other (ids tell them
 *   apart). At most `maxConcurrentRequests` wait at once; beyond that the socket is not read, so a
 *   client that floods requests is slowed by TCP instead of queueing in the node.
 * - While a message is being dispatched (and while a batch is in flight), notifications are held
 *   back and written after its reply: a subscription never notifies before the reply carrying its id
 *   (geth activates a subscription once the reply is written).
 * - A client that does not read is disconnected: before anything is written, the bytes already queued
 *   for the socket plus the new message must stay within `maxBufferedBytes` (a single message larger
 *   than the bound is written only to an idle socket).
 * - Keepalive: a ping every `pingInterval`; no pong (nor any frame) before the next ping closes it.
 */
import type { RawData, WebSocket } from 'ws'
import type { Logger } from '../utils/logger.js'
import type { DispatchResult, Dispatcher } from './dispatcher.js'
import type { CallContext, NotificationSink } from './method-table.js'

/** Limits of one connection (set by the server). */
export interface WsConnectionLimits {
  maxBufferedBytes: number
  maxConcurrentRequests: number
  pingInterval: number
}

function isBatchText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue
    return c === 0x5b // '['
  }
  return false
}

function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8')
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8')
  return Buffer.from(data).toString('utf8')
}

export class WsRpcConnection implements NotificationSink {
  private readonly ctx: CallContext
  private readonly closeCallbacks: (() => void)[] = []
  private readonly pingTimer: NodeJS.Timeout
  private alive = true
  private closed = false
  private inFlight = 0
  /** Dispatches that hold notifications back: the one running now, and batches in flight. */
  private holds = 0
  private held: string[] = []
  private heldBytes = 0

  constructor(
    private readonly socket: WebSocket,
    readonly remote: string,
    caller: { authorized: boolean; loopback: boolean },
    private readonly dispatcher: Dispatcher,
    private readonly limits: WsConnectionLimits,
    private readonly log: Logger,
  ) {
    this.ctx = Object.freeze({ transport: 'ws', notifications: this, authorized: caller.authorized, loopback: caller.loopback })
    socket.on('message', (data) => this.onMessage(data))
    socket.on('pong', () => {
      this.alive = true
    })
    socket.on('close', () => this.onClosed())
    socket.on('error', (err) => this.log.debug('websocket error', { remote, err: err.message }))
    this.pingTimer = setInterval(() => this.keepalive(), limits.pingInterval)
    this.pingTimer.unref()
  }

  /** NotificationSink: a notification, held back while a message is dispatched or a batch is in flight. */
  send(message: string): void {
    if (this.closed) return
    if (this.holds === 0) return this.write(message)
    if (!this.fits(this.heldBytes + message.length)) return this.dropSlowClient()
    this.held.push(message)
    this.heldBytes += message.length
  }

  /** NotificationSink: runs once the connection is gone (at once if it already is). */
  onClose(callback: () => void): void {
    if (this.closed) callback()
    else this.closeCallbacks.push(callback)
  }

  /** Starts a clean close (server shutdown). */
  close(code: number, reason: string): void {
    if (!this.closed) this.socket.close(code, reason)
  }

  /** Drops the socket at once. */
  terminate(): void {
    this.socket.terminate()
    this.onClosed()
  }

  private onMessage(data: RawData): void {
    this.alive = true
    if (this.closed) return
    const text = textOf(data)
    const batch = isBatchText(text)
    this.holds++
    let out: DispatchResult | Promise<DispatchResult>
    try {
      out = this.dispatcher.handle(text, this.ctx)
    } catch (err) {
      this.log.error('rpc dispatch failed', { error: err instanceof Error ? err.stack : String(err) })
      out = undefined
    }
    if (typeof out !== 'object') {
      if (out !== undefined) this.write(out)
      return this.release()
    }
    // A single call waiting on I/O does not delay notifications; a batch might contain eth_subscribe.
    if (!batch) this.release()
    if (++this.inFlight >= this.limits.maxConcurrentRequests) this.socket.pause()
    out
      .then(
        (reply) => {
          if (reply !== undefined) this.write(reply)
        },
        (err: unknown) => this.log.error('rpc dispatch failed', { error: err instanceof Error ? err.stack : String(err) }),
      )
      .finally(() => {
        if (--this.inFlight < this.limits.maxConcurrentRequests && !this.closed) this.socket.resume()
        if (batch) this.release()
      })
  }

  private release(): void {
    if (--this.holds > 0 || this.held.length === 0) return
    const held = this.held
    this.held = []
    this.heldBytes = 0
    for (const message of held) this.write(message)
  }

  /** True when `extra` more bytes may be queued for the socket. */
  private fits(extra: number): boolean {
    const buffered = this.socket.bufferedAmount
    return buffered === 0 || buffered + extra <= this.limits.maxBufferedBytes
  }

  private write(message: string): void {
    if (this.closed) return
    if (!this.fits(message.length)) return this.dropSlowClient()
    this.socket.send(message)
  }

  private dropSlowClient(): void {
    this.log.warn('websocket client too slow, disconnecting', { remote: this.remote, buffered: this.socket.bufferedAmount })
    // No close frame: a client that does not read would never complete the closing handshake.
    this.terminate()
  }

  private keepalive(): void {
    // While reading is paused (too many requests in flight) a pong cannot be read: not a dead peer.
    if (this.socket.isPaused) return
    if (!this.alive) {
      this.log.debug('websocket pong timeout', { remote: this.remote })
      this.terminate()
      return
    }
    this.alive = false
    this.socket.ping()
  }

  private onClosed(): void {
    if (this.closed) return
    this.closed = true
    clearInterval(this.pingTimer)
    this.held = []
    for (const callback of this.closeCallbacks.splice(0)) {
      try {
        callback()
      } catch (err) {
        this.log.error('websocket close callback failed', { err })
      }
    }
  }
}
