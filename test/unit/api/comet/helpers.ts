/** Starting a consensus RPC server over the fake backend, and small HTTP / WebSocket clients. */
import WebSocket from 'ws'
import { CometRpcServer } from '../../../../src/api/comet/comet-dialect.js'
import { testCometRpcOptions, type CometRpcOptions } from '../../../../src/api/comet/options.js'
import type { EventSubscriptions } from '../../../../src/api/comet/route.js'
import { FakeBackend } from './fake-backend.js'

export interface Harness {
  server: CometRpcServer
  backend: FakeBackend
  url: string
}

export async function startHarness(
  opts: { options?: Partial<CometRpcOptions>; backend?: FakeBackend; subscriptions?: EventSubscriptions } = {},
): Promise<Harness> {
  const backend = opts.backend ?? new FakeBackend()
  const server = await CometRpcServer.start({
    backend,
    options: { ...testCometRpcOptions, ...opts.options },
    subscriptions: opts.subscriptions,
  })
  return { server, backend, url: server.url }
}

export interface HttpResult {
  status: number
  text: string
  headers: Headers
  json: () => unknown
}

async function toResult(r: Response): Promise<HttpResult> {
  const text = await r.text()
  return { status: r.status, text, headers: r.headers, json: () => JSON.parse(text) }
}

export async function get(url: string, path: string, init?: RequestInit): Promise<HttpResult> {
  return toResult(await fetch(url + path, init))
}

export async function post(url: string, body: unknown, path = '/'): Promise<HttpResult> {
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  return toResult(await fetch(url + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: text }))
}

/** A WebSocket client that collects every message. */
export class WsClientHelper {
  readonly messages: unknown[] = []
  private waiters: (() => void)[] = []

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.messages.push(JSON.parse(data.toString()))
      for (const w of this.waiters.splice(0)) w()
    })
  }

  static async connect(url: string, opts?: WebSocket.ClientOptions): Promise<WsClientHelper> {
    const ws = new WebSocket(url.replace(/^http/, 'ws') + '/websocket', opts)
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve())
      ws.once('error', reject)
    })
    return new WsClientHelper(ws)
  }

  send(msg: unknown): void {
    this.ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg))
  }

  /** Waits until `n` messages have arrived in total (checked on each message); fails after `timeoutMs`. */
  async waitFor(n: number, timeoutMs = 10_000): Promise<unknown[]> {
    if (this.messages.length >= n) return this.messages
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${n} messages, have ${this.messages.length}`)), timeoutMs)
      const check = (): void => {
        if (this.messages.length < n) {
          this.waiters.push(check)
          return
        }
        clearTimeout(timer)
        resolve()
      }
      this.waiters.push(check)
    })
    return this.messages
  }

  /** Sends a request and returns the next message. */
  async call(msg: unknown): Promise<unknown> {
    const n = this.messages.length
    this.send(msg)
    await this.waitFor(n + 1)
    return this.messages[n]
  }

  close(): void {
    this.ws.close()
  }
}
