/**
 * A raw JSON-RPC WebSocket client for tests that check exact wire shapes: every received frame is kept
 * as text, calls are matched to replies by id, notifications can be awaited by subscription id.
 */
import WebSocket from 'ws'

export interface Notification {
  /** The frame as received. */
  text: string
  subscription: string
  result: any
}

export class RawWsClient {
  /** Every text frame received, in order. */
  readonly frames: string[] = []
  private nextId = 1
  private waiters: { check: () => boolean; resolve: () => void }[] = []
  private closeInfo: { code: number; reason: string } | undefined

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.frames.push(data.toString())
      this.wake()
    })
    ws.on('close', (code, reason) => {
      this.closeInfo = { code, reason: reason.toString() }
      this.wake()
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
  async request(method: string, params: unknown[] = []): Promise<{ id: unknown; result?: any; error?: { code: number; message: string } }> {
    const id = this.nextId++
    const text = JSON.stringify({ jsonrpc: '2.0', id, method, params })
    this.ws.send(text)
    return this.waitForFrame((f) => f.id === id)
  }

  /** The result of a call; throws on an error reply. */
  async call(method: string, params: unknown[] = []): Promise<any> {
    const reply = await this.request(method, params)
    if (reply.error) throw new Error(`${method}: ${reply.error.code} ${reply.error.message}`)
    return reply.result
  }

  /** Resolves with the first parsed frame (object or array) satisfying `match`. */
  async waitForFrame(match: (frame: any) => boolean, timeoutMs = 15_000): Promise<any> {
    let found: any
    await this.until(() => {
      for (const text of this.frames) {
        const frame = JSON.parse(text)
        if (match(frame)) {
          found = frame
          return true
        }
      }
      return false
    }, timeoutMs)
    return found
  }

  /** Notifications received so far for `subscription`. */
  notifications(subscription: string): Notification[] {
    return this.frames
      .map((text) => ({ text, frame: JSON.parse(text) }))
      .filter(({ frame }) => frame.method === 'eth_subscription' && frame.params?.subscription === subscription)
      .map(({ text, frame }) => ({ text, subscription, result: frame.params.result }))
  }

  /** Waits until `count` notifications arrived for `subscription` (and `match` holds for one when given). */
  async waitForNotification(subscription: string, match: (n: Notification) => boolean = () => true, timeoutMs = 15_000): Promise<Notification> {
    let found: Notification | undefined
    await this.until(() => {
      found = this.notifications(subscription).find(match)
      return found !== undefined
    }, timeoutMs)
    return found!
  }

  /** Waits until the socket is closed. */
  async waitForClose(timeoutMs = 15_000): Promise<{ code: number; reason: string }> {
    await this.until(() => this.closeInfo !== undefined, timeoutMs)
    return this.closeInfo!
  }

  close(): Promise<void> {
    if (this.closeInfo) return Promise.resolve()
    this.ws.close()
    return this.waitForClose().then(() => undefined)
  }

  private until(check: () => boolean, timeoutMs: number): Promise<void> {
    if (check()) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const waiter = {
        check,
        resolve: () => {
          clearTimeout(timer)
          resolve()
        },
      }
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter)
        reject(new Error('timed out waiting on the websocket'))
      }, timeoutMs)
      this.waiters.push(waiter)
    })
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) {
      if (waiter.check()) {
        this.waiters = this.waiters.filter((w) => w !== waiter)
        waiter.resolve()
      }
    }
  }
}
