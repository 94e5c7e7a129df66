/**
 * The CLI's JSON-RPC client against tiny in-test servers: results, JSON-RPC errors with their code,
 * `cannot reach node at URL`, non-JSON replies; WebSocket subscriptions, notifications that arrive
 * right behind the subscribe reply, unsubscribe, and reconnection with back-off that subscribes again.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocketServer, type WebSocket } from 'ws'
import { HttpRpcClient, JsonRpcClientError, NodeUnreachableError, ProtocolError, WsRpcClient } from '../../../src/rpc/client/index.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

/** A JSON-RPC request as the test servers parse it. */
interface RpcRequest {
  jsonrpc: '2.0'
  id: number
  method: string
  params?: unknown
}

async function httpServer(handler: (body: RpcRequest) => { status?: number; text: string }): Promise<string> {
  const server: Server = createServer((req, res) => {
    let data = ''
    req.on('data', (c) => (data += c))
    req.on('end', () => {
      const reply = handler(JSON.parse(data) as RpcRequest)
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' }).end(reply.text)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** A WebSocket server answering eth_subscribe with ids `0x1`, `0x2`... and recording requests. */
async function wsServer(port = 0): Promise<{ wss: WebSocketServer; url: string; requests: RpcRequest[]; sockets: WebSocket[] }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port })
  await new Promise<void>((r) => wss.once('listening', () => r()))
  const requests: RpcRequest[] = []
  const sockets: WebSocket[] = []
  let next = 1
  wss.on('connection', (socket) => {
    sockets.push(socket)
    socket.on('message', (data) => {
      const msg = JSON.parse(String(data)) as RpcRequest
      requests.push(msg)
      if (msg.method === 'eth_subscribe') {
        const id = `0x${next++}`
        // The reply and a first notification in one write: the client must route it.
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: id }))
        socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: id, result: { n: 0 } } }))
      } else if (msg.method === 'eth_unsubscribe') socket.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: true }))
      else if (msg.method === 'boom')
        socket.send(
          JSON.stringify({
            jsonrpc: '2.0',
            id: msg.id,
            error: { code: -32601, message: 'the method boom does not exist/is not available' },
          }),
        )
      else socket.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: msg.params }))
    })
  })
  const closeServer = () =>
    new Promise<void>((r) => {
      for (const s of wss.clients) s.terminate()
      wss.close(() => r())
    })
  cleanups.push(closeServer)
  return { wss, url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, requests, sockets }
}

describe('HttpRpcClient', () => {
  it('returns the result, and throws JSON-RPC errors with code and message', async () => {
    const url = await httpServer((req) => ({
      text: JSON.stringify(
        req.method === 'ok'
          ? { jsonrpc: '2.0', id: req.id, result: req.params }
          : { jsonrpc: '2.0', id: req.id, error: { code: -32602, message: 'invalid argument 0: bad' } },
      ),
    }))
    const client = new HttpRpcClient(url)
    await expect(client.call('ok', [1, 'a'])).resolves.toEqual([1, 'a'])
    const err = await client.call('nope').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(JsonRpcClientError)
    expect(err).toMatchObject({ code: -32602, rpcMessage: 'invalid argument 0: bad' })
  })

  it('a node that is not running: cannot reach node at URL', async () => {
    const err = (await new HttpRpcClient('http://127.0.0.1:1').call('eth_chainId').catch((e: Error) => e)) as Error
    expect(err).toBeInstanceOf(NodeUnreachableError)
    expect(err.message).toMatch(/^cannot reach node at http:\/\/127\.0\.0\.1:1/)
  })

  it('a reply that is not JSON-RPC is a ProtocolError naming the HTTP status', async () => {
    const url = await httpServer(() => ({ status: 401, text: 'unauthorized' }))
    const err = (await new HttpRpcClient(url).call('personal_listAccounts').catch((e: Error) => e)) as Error
    expect(err).toBeInstanceOf(ProtocolError)
    expect(err.message).toContain('HTTP 401')
  })

  it('sends the configured headers', async () => {
    let seen = ''
    const server = createServer((req, res) => {
      seen = String(req.headers.authorization)
      req.resume()
      req.on('end', () => res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: true })))
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    cleanups.push(() => new Promise<void>((r) => server.close(() => r())))
    await new HttpRpcClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, {
      headers: () => ({ authorization: 'Bearer x' }),
    }).call('m')
    expect(seen).toBe('Bearer x')
  })
})

describe('WsRpcClient', () => {
  it('calls, errors with code, and a subscription receives notifications sent right after its reply', async () => {
    const { url, requests } = await wsServer()
    const client = await WsRpcClient.connect(url)
    cleanups.push(() => client.close())
    await expect(client.call('echo', [1])).resolves.toEqual([1])
    await expect(client.call('boom')).rejects.toMatchObject({ code: -32601 })
    const events: unknown[] = []
    const sub = await client.subscribe(['newHeads'], (e) => events.push(e))
    expect(sub.id).toBe('0x1')
    await expect.poll(() => events).toEqual([{ n: 0 }])
    await sub.unsubscribe()
    expect(requests.at(-1)).toMatchObject({ method: 'eth_unsubscribe', params: ['0x1'] })
  })

  it('cannot reach node at URL when nothing listens', async () => {
    const err = (await WsRpcClient.connect('ws://127.0.0.1:1').catch((e: Error) => e)) as Error
    expect(err).toBeInstanceOf(NodeUnreachableError)
    expect(err.message).toMatch(/^cannot reach node at ws:\/\/127\.0\.0\.1:1/)
  })

  it('reconnects with back-off when the server goes away and subscribes again', async () => {
    const first = await wsServer()
    const port = Number(new URL(first.url).port)
    const attempts: number[] = []
    let reconnected = 0
    const client = await WsRpcClient.connect(first.url, {
      reconnect: { initialDelayMs: 20, maxDelayMs: 40 },
      onReconnecting: (a) => attempts.push(a),
      onReconnected: () => reconnected++,
    })
    cleanups.push(() => client.close())
    const events: unknown[] = []
    const sub = await client.subscribe(['logs', { address: '0x' + '11'.repeat(20) }], (e) => events.push(e))
    await expect.poll(() => events.length).toBe(1)
    // Server goes away; the client keeps trying, then a new server comes up on the same port.
    for (const s of first.wss.clients) s.terminate()
    await new Promise<void>((r) => first.wss.close(() => r()))
    await expect.poll(() => attempts.length).toBeGreaterThanOrEqual(2)
    const second = await wsServer(port)
    await expect.poll(() => reconnected, { timeout: 2_000 }).toBe(1)
    expect(second.requests[0]).toMatchObject({ method: 'eth_subscribe', params: ['logs', { address: '0x' + '11'.repeat(20) }] })
    await expect.poll(() => events.length).toBe(2)
    expect(sub.id).toBe('0x1') // the new server's first id
  })

  it('gives up after maxAttempts and reports it', async () => {
    const server = await wsServer()
    let fatal: Error | undefined
    const client = await WsRpcClient.connect(server.url, {
      reconnect: { initialDelayMs: 5, maxDelayMs: 5, maxAttempts: 2 },
      onFatal: (e) => (fatal = e),
    })
    cleanups.push(() => client.close())
    await client.subscribe(['newHeads'], () => {})
    for (const s of server.wss.clients) s.terminate()
    await new Promise<void>((r) => server.wss.close(() => r()))
    await expect.poll(() => fatal?.message).toMatch(/gave up after 2 reconnection attempts/)
  })
})
