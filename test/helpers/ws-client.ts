/**
 * A raw JSON-RPC WebSocket client for tests that check exact wire shapes: every received frame is kept
 * as text, calls are matched to replies by id, notifications can be awaited by subscription id. A wait
 * re-checks its condition on each frame and on the close; it fails, naming what it awaited, once the
 * socket has closed without meeting it or after its timeout.
 */
import WebSocket from 'ws'

/** How long a wait may take by default, in ms. */
const DEFAULT_TIMEOUT_MS = 15_000

/** A notification; `R` is the result's shape. */
export interface Notification<R = unknown> {
  /** The frame as received. */
  text: string
  subscription: string
  result: R
}

/** A JSON-RPC reply; `R` is the result's shape. */
export interface RpcReply<R = unknown> {
  id: unknown
  result?: R
  error?: { code: number; message: string }
}

/** The members of an `eth_subscription` frame read to find notifications. */
interface SubscriptionFrame {
  method?: string
  params?: { subscription?: string; result?: unknown }
}

/** A pending wait: `check` runs on every frame and on the close, `fail` ends it with an error. */
interface Waiter {
  check(): void
  fail(reason: string, cause?: unknown): void
}

/** Why a wait fails once the socket has closed. */
function closedReason(code: number): string {
  return `the socket closed (code ${code})`
}

/** The notification `text` carries for `subscription`, if it is one. */
function notificationOf<R>(text: string, subscription: string): Notification<R> | undefined {
  const frame = JSON.parse(text) as SubscriptionFrame
  if (frame.method !== 'eth_subscription' || frame.params?.subscription !== subscription) return undefined
  return { text, subscription, result: frame.params.result as R }
}

export class RawWsClient {
  /** Every text frame received, in order. */
  readonly frames: string[] = []
  private nextId = 1
  private waiters: Waiter[] = []
  private closeInfo: { code: number; reason: string } | undefined

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.frames.push(data.toString())
      this.wake()
    })
    ws.on('close', (code, reason) => {
      this.closeInfo = { code, reason: reason.toString() }
      this.wake()
      // No frame can arrive any more: what is still awaited never will.
      for (const waiter of [...this.waiters]) waiter.fail(closedReason(code))
    })
  }

  /** Opens a connection; `headers` may carry an `Origin`. */
  static connect(url: string, options: WebSocket.ClientOptions = {}): Promise<RawWsClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, options)
      const client = new RawWsClient(ws)
      ws.once('open', () => resolve(client))
      ws.once('error', reject)
      ws.once('unexpected-response', (_req, res) => reject(new Error(`unexpected response ${res.statusCode}`)))
    })
  }

  /** The close code and reason once the socket closed. */
  get closed(): { code: number; reason: string } | undefined {
    return this.closeInfo
  }

  /** Sends raw text. */
  sendText(text: string): void {
    this.ws.send(text)
  }

  /** Sends one request and resolves with the whole parsed reply. */
  async request<R = unknown>(method: string, params: unknown[] = []): Promise<RpcReply<R>> {
    const id = this.nextId++
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    return this.firstFrame(
      (text) => {
        const reply = JSON.parse(text) as RpcReply<R>
        return reply.id === id ? reply : undefined
      },
      `the reply to ${method} (id ${id})`,
      DEFAULT_TIMEOUT_MS,
    )
  }

  /** The result of a call, of shape `R`; throws on an error reply. */
  async call<R = unknown>(method: string, params: unknown[] = []): Promise<R> {
    const reply = await this.request<R>(method, params)
    if (reply.error) throw new Error(`${method}: ${reply.error.code} ${reply.error.message}`)
    return reply.result as R
  }

  /** Resolves with the first parsed frame (object or array, of shape `F`) satisfying `match`. */
  waitForFrame<F = unknown>(match: (frame: F) => boolean, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<F> {
    return this.firstFrame(
      (text) => {
        const frame = JSON.parse(text) as F
        return match(frame) ? frame : undefined
      },
      `a frame matching ${match}`,
      timeoutMs,
    )
  }

  /** Waits until at least `count` frames arrived; resolves with every frame received so far. */
  waitForFrames(count: number, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<string[]> {
    return this.until(() => (this.frames.length >= count ? [...this.frames] : undefined), `${count} frames`, timeoutMs)
  }

  /** Notifications received so far for `subscription`, with results of shape `R`. */
  notifications<R = unknown>(subscription: string): Notification<R>[] {
    return this.frames.map((text) => notificationOf<R>(text, subscription)).filter((n) => n !== undefined)
  }

  /** Resolves with the first notification for `subscription` (with a result of shape `R`) satisfying `match`. */
  waitForNotification<R = unknown>(
    subscription: string,
    match: (n: Notification<R>) => boolean = () => true,
    timeoutMs = DEFAULT_TIMEOUT_MS,
  ): Promise<Notification<R>> {
    return this.firstFrame(
      (text) => {
        const n = notificationOf<R>(text, subscription)
        return n && match(n) ? n : undefined
      },
      `a notification for ${subscription} matching ${match}`,
      timeoutMs,
    )
  }

  /** Waits until the socket is closed. */
  waitForClose(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<{ code: number; reason: string }> {
    return this.until(() => this.closeInfo, 'the socket to close', timeoutMs)
  }

  close(): Promise<void> {
    if (this.closeInfo) return Promise.resolve()
    this.ws.close()
    return this.waitForClose().then(() => undefined)
  }

  /** Resolves with what `pick` finds in the first frame where it finds something; each frame is looked at once. */
  private firstFrame<T>(pick: (text: string) => T | undefined, what: string, timeoutMs: number): Promise<T> {
    let next = 0
    return this.until(
      () => {
        while (next < this.frames.length) {
          const found = pick(this.frames[next++]!)
          if (found !== undefined) return found
        }
        return undefined
      },
      what,
      timeoutMs,
    )
  }

  /**
   * Resolves with what `check` returns once it returns something, checking now, on every frame and on the
   * close; fails when the socket closes first, after `timeoutMs`, or when `check` throws.
   */
  private until<T>(check: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
    return new Promise((resolve, reject) => {
      let settled = false
      const settle = (): boolean => {
        if (settled) return false
        settled = true
        clearTimeout(timer)
        this.waiters = this.waiters.filter((w) => w !== waiter)
        return true
      }
      const waiter: Waiter = {
        check: () => {
          let found: T | undefined
          try {
            found = check()
          } catch (err) {
            waiter.fail(err instanceof Error ? err.message : String(err), err)
            return
          }
          if (found !== undefined && settle()) resolve(found)
        },
        fail: (reason, cause) => {
          if (settle()) reject(new Error(`waiting for ${what}: ${reason}`, { cause }))
        },
      }
      const timer = setTimeout(() => waiter.fail(`timed out after ${timeoutMs} ms`), timeoutMs)
      this.waiters.push(waiter)
      waiter.check()
      if (this.closeInfo) waiter.fail(closedReason(this.closeInfo.code))
    })
  }

  /** Lets every waiter re-check its condition. */
  private wake(): void {
    for (const waiter of [...this.waiters]) waiter.check()
  }
}
