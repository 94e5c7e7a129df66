/**
 * One WebSocket connection of an RPC listener, whatever its dialect: every text (or binary) frame goes to
 * the dialect's message handler, and what a connection may cost is bounded the same way on every surface:
 * - writing: before a message is written, the bytes already queued for the socket plus the message must
 *   stay within `maxBufferedBytes` (a single larger message is written only to an idle socket); a client
 *   past the bound does not read, and is disconnected instead of being buffered for; and while messages
 *   (answers and notifications alike) wait to be written, one of them must reach the kernel every
 *   `writeWait`, else the client is disconnected too (geth's and CometBFT's 10 s write deadline): a
 *   client that pipelines many small requests and never reads fills the kernel's buffers and then a
 *   queue below the byte bound, which would otherwise hold its answers for as long as it stays;
 * - reading: the dialect counts the requests it is answering (`beginRequest` / `endRequest`); with
 *   `maxConcurrentRequests` of them the socket is no longer read, so a client that floods requests is
 *   slowed by TCP instead of queueing in the node;
 * - keepalive: a ping every `pingInterval`; the connection is dropped when nothing, not even a pong, has
 *   arrived for `readWait` (not counted while reading is paused: a pong cannot be read then).
 */
import type { RawData, WebSocket } from 'ws'
import type { Logger } from '../utils/logger.js'

/** Bounds of one connection (set by the listener's dialect). */
export interface WsConnectionLimits {
  /** Bytes that may wait in the send buffer. */
  maxBufferedBytes: number
  /** Requests answered at once before the socket stops being read. */
  maxConcurrentRequests: number
  /** Ping period in ms. */
  pingInterval: number
  /** Read deadline in ms: how long the peer may stay silent. */
  readWait: number
  /** Write deadline in ms: how long messages may wait without one of them reaching the kernel. */
  writeWait: number
}

/** geth's `defaultWriteTimeout` (rpc/json.go) and CometBFT's `defaultWSWriteWait` (rpc/jsonrpc/server/ws_handler.go), ms. */
export const DEFAULT_WS_WRITE_WAIT = 10_000

/** `ws` sends a buffer as a binary frame unless told otherwise; a JSON-RPC reply is text. */
const TEXT_FRAME = { binary: false } as const

function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8')
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8')
  return Buffer.from(data).toString('utf8')
}

/** One accepted WebSocket, served until it closes. */
export class WsConnection {
  private readonly closeCallbacks: (() => void)[] = []
  private messageHandler: (text: string) => void = () => {}
  private readonly pingTimer: NodeJS.Timeout
  private deadlineTimer: NodeJS.Timeout
  /** Armed while messages wait to be written; see {@link checkWriteDeadline}. */
  private writeTimer: NodeJS.Timeout | undefined
  /** Messages handed to the socket, and of those, written to the kernel (ws calls back then). */
  private sent = 0
  private flushed = 0
  /** `flushed` when the write deadline was armed. */
  private flushedAtArming = 0
  /** When the last frame or pong arrived (performance.now()). */
  private lastSeen = performance.now()
  private inFlight = 0
  private isClosed = false

  constructor(
    private readonly socket: WebSocket,
    /** `ip:port` of the peer (IPv6 in brackets, as Go's `RemoteAddr`). */
    readonly remote: string,
    private readonly limits: WsConnectionLimits,
    private readonly log: Logger,
  ) {
    socket.on('message', (data) => this.onFrame(data))
    socket.on('pong', () => {
      this.lastSeen = performance.now()
    })
    socket.on('close', () => this.onClosed())
    socket.on('error', (err) => this.log.debug('websocket error', { remote, err: err.message }))
    this.pingTimer = setInterval(() => socket.ping(), limits.pingInterval)
    this.pingTimer.unref()
    this.deadlineTimer = setTimeout(() => this.checkDeadline(), limits.readWait)
    this.deadlineTimer.unref()
  }

  /** True once the socket has closed. */
  get closed(): boolean {
    return this.isClosed
  }

  /** Sets the handler of incoming messages (the dialect's, once per connection). */
  onMessage(handler: (text: string) => void): void {
    this.messageHandler = handler
  }

  /** Runs `callback` once the connection is gone (at once if it already is). */
  onClose(callback: () => void): void {
    if (this.isClosed) callback()
    else this.closeCallbacks.push(callback)
  }

  /** True when `extra` more bytes may be queued for the socket. */
  fits(extra: number): boolean {
    const buffered = this.socket.bufferedAmount
    return buffered === 0 || buffered + extra <= this.limits.maxBufferedBytes
  }

  /**
   * Writes `message` as a text frame (a buffer holds UTF-8 JSON), or disconnects a client too slow to
   * take it; false when nothing was written. `written` runs once the message has been handed to the socket.
   */
  write(message: string | Buffer, written?: () => void): boolean {
    if (this.isClosed) return false
    if (!this.fits(message.length)) {
      this.dropSlowClient()
      return false
    }
    this.sent++
    const onFlushed = (): void => {
      this.flushed++
      written?.()
    }
    if (typeof message === 'string') this.socket.send(message, onFlushed)
    else this.socket.send(message, TEXT_FRAME, onFlushed)
    if (this.writeTimer === undefined) this.armWriteDeadline()
    return true
  }

  private armWriteDeadline(): void {
    this.flushedAtArming = this.flushed
    this.writeTimer = setTimeout(() => this.checkWriteDeadline(), this.limits.writeWait)
    this.writeTimer.unref()
  }

  /** Messages still wait: drop the client when none was written since the deadline was armed. */
  private checkWriteDeadline(): void {
    this.writeTimer = undefined
    if (this.isClosed || this.flushed === this.sent) return
    if (this.flushed > this.flushedAtArming) return this.armWriteDeadline()
    this.log.warn('websocket write deadline passed, disconnecting', {
      remote: this.remote,
      waiting: this.sent - this.flushed,
      buffered: this.socket.bufferedAmount,
    })
    this.terminate()
  }

  /** Disconnects a client that does not read. */
  dropSlowClient(): void {
    this.log.warn('websocket client too slow, disconnecting', { remote: this.remote, buffered: this.socket.bufferedAmount })
    // No close frame: a client that does not read would never complete the closing handshake.
    this.terminate()
  }

  /** A request starts being answered; at the limit the socket is no longer read. */
  beginRequest(): void {
    if (++this.inFlight >= this.limits.maxConcurrentRequests) this.socket.pause()
  }

  /** A request has been answered; below the limit the socket is read again. */
  endRequest(): void {
    if (--this.inFlight >= this.limits.maxConcurrentRequests || this.isClosed || !this.socket.isPaused) return
    this.socket.resume()
    this.lastSeen = performance.now()
  }

  /** Starts a clean close (server shutdown). */
  close(code: number, reason: string): void {
    if (!this.isClosed) this.socket.close(code, reason)
  }

  /** Drops the socket at once. */
  terminate(): void {
    this.socket.terminate()
    this.onClosed()
  }

  private onFrame(data: RawData): void {
    this.lastSeen = performance.now()
    if (!this.isClosed) this.messageHandler(textOf(data))
  }

  private checkDeadline(): void {
    const { readWait } = this.limits
    const silent = performance.now() - this.lastSeen
    if (this.socket.isPaused || silent < readWait) {
      this.deadlineTimer = setTimeout(() => this.checkDeadline(), this.socket.isPaused ? readWait : readWait - silent)
      this.deadlineTimer.unref()
      return
    }
    this.log.debug('websocket read deadline passed', { remote: this.remote })
    this.terminate()
  }

  private onClosed(): void {
    if (this.isClosed) return
    this.isClosed = true
    clearInterval(this.pingTimer)
    clearTimeout(this.deadlineTimer)
    clearTimeout(this.writeTimer)
    for (const callback of this.closeCallbacks.splice(0)) {
      try {
        callback()
      } catch (err) {
        this.log.error('websocket close callback failed', { err })
      }
    }
  }
}
