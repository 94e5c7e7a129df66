/**
 * What the consensus RPC gets from the shared transport (rpc/http-listener.ts): `max_open_connections`
 * queues connections instead of refusing them, the read timeout runs from each connection's start, a
 * WebSocket upgrade must ask for version 13, a WebSocket client that does not read is dropped at the
 * write bound, and close() is graceful (in-flight requests finish with `Connection: close`, long waits
 * end, WebSockets get a close frame).
 */
import http from 'node:http'
import net from 'node:net'
import { describe, expect, it } from 'vitest'
import type { EventSubscriptions, WsClient } from '../../../../src/api/comet/route.js'
import type { TxResult } from '../../../../src/abci/types.js'
import { bytesToBase64, utf8ToBytes } from '../../../../src/primitives/hex.js'
import { openSocket, upgradeAnswer } from '../../../helpers/raw-http.js'
import { FakeBackend } from './fake-backend.js'
import { startHarness, WsClientHelper } from './helpers.js'

/** A keep-alive connection holding a slot; `health()` is one request/answer round trip on it. */
async function holdConnection(url: string): Promise<{ socket: net.Socket; health: () => Promise<string> }> {
  const { hostname, port } = new URL(url)
  const socket = net.connect(Number(port), hostname)
  await new Promise((resolve) => socket.once('connect', resolve))
  socket.setEncoding('utf8')
  const health = (): Promise<string> =>
    new Promise((resolve) => {
      let text = ''
      const onData = (chunk: string): void => {
        text += chunk
        if (!text.endsWith('"result":{}}\r\n0\r\n\r\n')) return // the last chunk
        socket.off('data', onData)
        resolve(text)
      }
      socket.on('data', onData)
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n')
    })
  return { socket, health }
}

/** A request on its own connection; `sent` resolves once it has been handed to the kernel. */
function requestOnNewConnection(url: string, path: string): { sent: Promise<void>; answered: Promise<string> } {
  let onSent!: () => void
  const sent = new Promise<void>((resolve) => (onSent = resolve))
  const answered = new Promise<string>((resolve, reject) => {
    const req = http.request(url + path, { agent: false }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => resolve(body))
    })
    req.on('error', reject)
    req.on('finish', () => onSent())
    req.end()
  })
  return { sent, answered }
}

describe('consensus RPC transport', () => {
  it('max_open_connections: further connections wait for a slot instead of being refused', async () => {
    const s = await startHarness({ options: { maxOpenConnections: 1 } })
    try {
      const holder = await holdConnection(s.url)
      expect(await holder.health()).toMatch(/^HTTP\/1\.1 200/)
      let holderGone = false
      let answeredWhileHeld: boolean | undefined
      const second = requestOnNewConnection(s.url, '/health')
      const answered = second.answered.then((body) => {
        answeredWhileHeld = !holderGone
        return body
      })
      // Fence: the second request is with the kernel, then the holder gets two more answers; a server
      // without the limit would have answered the second request by then.
      await second.sent
      await holder.health()
      await holder.health()
      expect(answeredWhileHeld).toBeUndefined()
      holderGone = true
      holder.socket.destroy()
      expect(await answered).toBe('{"jsonrpc":"2.0","id":-1,"result":{}}')
      expect(answeredWhileHeld).toBe(false)
    } finally {
      await s.server.close()
    }
  })

  it('closes a connection that sends nothing once read_timeout has passed since it was accepted, not on a sweep', async () => {
    // node:http checks its headers timeout every 30 s; 200 ms here must not wait for that.
    const s = await startHarness({ options: { readTimeout: 200 } })
    try {
      const silent = await openSocket(s.url)
      const partial = await openSocket(s.url)
      partial.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n')
      await Promise.all([silent.closed, partial.closed])
      expect(silent.received()).toBe('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n')
      expect((await fetch(`${s.url}/health`)).status).toBe(200)
    } finally {
      await s.server.close()
    }
  })

  it('answers a WebSocket upgrade for a version other than 13 with 426 and the version served', async () => {
    const s = await startHarness()
    try {
      for (const version of ['8', '0xd', undefined]) {
        const answer = await upgradeAnswer(s.url, '/websocket', version)
        expect(answer.status, `version ${version}`).toBe('HTTP/1.1 426 Upgrade Required')
        expect(answer.headers).toContain('sec-websocket-version: 13')
      }
      expect((await upgradeAnswer(s.url, '/websocket', '13')).status).toBe('HTTP/1.1 101 Switching Protocols')
    } finally {
      await s.server.close()
    }
  })

  it('drops a WebSocket client that does not read once its send buffer passes the bound', async () => {
    const clients: WsClient[] = []
    const unsubscribed: WsClient[] = []
    const subscriptions: EventSubscriptions = {
      async subscribe(client) {
        clients.push(client)
      },
      async unsubscribe() {},
      async unsubscribeAll(client) {
        unsubscribed.push(client)
      },
    }
    // A message count bound far away: the byte bound must be what stops the writes.
    const s = await startHarness({ subscriptions, options: { wsMaxBufferedBytes: 64 * 1024, wsWriteBufferSize: 100_000 } })
    try {
      const ws = await WsClientHelper.connect(s.url)
      const ack = await ws.call({ jsonrpc: '2.0', id: 1, method: 'subscribe', params: { query: "tm.event='NewBlock'" } })
      expect(ack).toEqual({ jsonrpc: '2.0', id: 1, result: {} })
      const client = clients[0]!
      const closed = new Promise<number>((resolve) => ws.ws.once('close', (code) => resolve(code)))
      ws.ws.pause()
      const event = { jsonrpc: '2.0' as const, id: 1, result: { query: "tm.event='NewBlock'", data: 'x'.repeat(256 * 1024) } }
      let accepted = 0
      // Each event is written while the socket takes it; once the kernel buffers are full, the next one drops the client.
      while (accepted < 10_000 && client.send(event)) accepted++
      expect(client.closed).toBe(true)
      expect(accepted).toBeLessThan(10_000)
      expect(s.server.webSocketCount).toBe(0)
      expect(unsubscribed).toEqual([client])
      ws.ws.resume()
      expect(await closed).toBe(1006)
    } finally {
      await s.server.close()
    }
  })

  it('close() lets in-flight requests finish with Connection: close, ends long waits and WebSockets', async () => {
    let entered!: () => void
    const waiting = new Promise<void>((resolve) => (entered = resolve))
    class Probe extends FakeBackend {
      override waitForTx(hash: Uint8Array, signal: AbortSignal): Promise<TxResult> {
        entered()
        return super.waitForTx(hash, signal)
      }
    }
    const s = await startHarness({ backend: new Probe() })
    const agent = new http.Agent({ keepAlive: true })
    const post = (body: string): Promise<{ headers: http.IncomingHttpHeaders; body: string; socket: net.Socket }> =>
      new Promise((resolve, reject) => {
        const req = http.request(s.url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
          const socket = res.socket
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (c: string) => (text += c))
          res.on('end', () => resolve({ headers: res.headers, body: text, socket }))
        })
        req.on('error', reject)
        req.end(body)
      })
    try {
      const idle = await post('{"jsonrpc":"2.0","id":1,"method":"health"}')
      const idleClosed = idle.socket.destroyed ? Promise.resolve() : new Promise((resolve) => idle.socket.once('close', resolve))
      const ws = await WsClientHelper.connect(s.url)
      const wsClosed = new Promise<number>((resolve) => ws.ws.once('close', (code) => resolve(code)))
      const tx = bytesToBase64(utf8ToBytes('never-included'))
      const inflight = post(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'broadcast_tx_commit', params: { tx } }))
      await waiting
      // A grace far beyond the test timeout: close() must resolve because everything ends by itself.
      const closing = s.server.close(10 * 60_000)
      await idleClosed
      const reply = await inflight
      expect(reply.headers.connection).toBe('close')
      expect(JSON.parse(reply.body)).toEqual({
        jsonrpc: '2.0',
        id: 2,
        error: { code: -32603, message: 'Internal error', data: 'txSub was canceled (reason: CometBFT exited)' },
      })
      expect(await wsClosed).toBe(1001)
      await closing
      await expect(fetch(s.url + '/health')).rejects.toThrow()
    } finally {
      agent.destroy()
      await s.server.close()
    }
  })
})
