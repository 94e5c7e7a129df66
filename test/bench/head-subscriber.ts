/**
 * One WebSocket client subscribed to `eth_subscribe("newHeads")` that stamps each notification with
 * `performance.now()` as its frame arrives (before parsing), keyed by block number.
 */
import WebSocket from 'ws'

/** How long to wait for the socket and the subscription reply. */
const CONNECT_TIMEOUT_MS = 10_000

export class HeadSubscriber {
  /** Block number → arrival time (performance.now(), ms). */
  readonly arrivals = new Map<number, number>()
  /** Called, then dropped, on the next head. */
  private listeners: (() => void)[] = []
  private subscriptionId: string | undefined

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => this.onMessage(performance.now(), data.toString()))
  }

  /** Connects and subscribes; rejects when the socket or the subscription fails. */
  static async open(url: string): Promise<HeadSubscriber> {
    const ws = new WebSocket(url)
    const sub = new HeadSubscriber(ws)
    try {
      await withTimeout(
        new Promise<void>((resolve, reject) => {
          ws.once('open', () => resolve())
          ws.once('error', reject)
          ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
        }),
        `connect to ${url}`,
      )
      ws.on('error', () => undefined)
      await withTimeout(sub.subscribe(), 'eth_subscribe newHeads')
      return sub
    } catch (err) {
      ws.terminate()
      throw err
    }
  }

  /** Resolves on the next head notification. */
  nextHead(): Promise<void> {
    return new Promise((resolve) => this.listeners.push(resolve))
  }

  /** Resolves once the head `number` has arrived (at once if it has). */
  async waitFor(number: number): Promise<void> {
    while (!this.arrivals.has(number)) await this.nextHead()
  }

  /** The highest block number received, -1 before any. */
  get highest(): number {
    let max = -1
    for (const n of this.arrivals.keys()) max = Math.max(max, n)
    return max
  }

  close(): void {
    this.ws.terminate()
  }

  private subscribe(): Promise<void> {
    return new Promise((resolve, reject) => {
      const onReply = (data: WebSocket.RawData): void => {
        const msg = JSON.parse(data.toString()) as { id?: number; result?: string; error?: { message: string } }
        if (msg.id !== 1) return
        this.ws.off('message', onReply)
        if (msg.error || typeof msg.result !== 'string') reject(new Error(`eth_subscribe: ${msg.error?.message ?? 'no subscription id'}`))
        else {
          this.subscriptionId = msg.result
          resolve()
        }
      }
      this.ws.on('message', onReply)
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }))
    })
  }

  private onMessage(at: number, text: string): void {
    const msg = JSON.parse(text) as { method?: string; params?: { subscription: string; result: { number: string } } }
    const params = msg.params
    if (msg.method !== 'eth_subscription' || !params || params.subscription !== this.subscriptionId) return
    const number = Number(params.result.number)
    if (!this.arrivals.has(number)) this.arrivals.set(number, at)
    const listeners = this.listeners
    this.listeners = []
    for (const l of listeners) l()
  }
}

async function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}
