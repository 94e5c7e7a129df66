/**
 * WsRpcClient speaking CometBFT's subscribe protocol against a tiny in-test server: events are
 * replies to the subscribe request's id (the `{}` acknowledgement is not one), a bad query is the
 * call's error, unsubscribe names the query, and a subscription the node cancels is renewed on a
 * new connection.
 */
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocketServer, type WebSocket } from 'ws'
import { JsonRpcClientError, WsRpcClient, cometSubscriptions } from '../../../src/rpc/client/index.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const event = (id: number, query: string, height: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    result: { query, data: { type: 'tendermint/event/NewBlock', value: { height } }, events: { 'tm.event': ['NewBlock'] } },
  })

/** A request the client sent: `subscribe` and `unsubscribe` name the query. */
interface CometRequest {
  jsonrpc: string
  id: number
  method: string
  params: { query: string }
}

/** Acknowledges `subscribe` and pushes a first event in the same write; rejects queries containing "OR". */
async function cometServer(): Promise<{ url: string; requests: CometRequest[]; sockets: WebSocket[] }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  await new Promise<void>((r) => wss.once('listening', () => r()))
  const requests: CometRequest[] = []
  const sockets: WebSocket[] = []
  wss.on('connection', (socket) => {
    sockets.push(socket)
    socket.on('message', (data) => {
      const msg = JSON.parse(String(data)) as CometRequest
      requests.push(msg)
      if (msg.method === 'subscribe' && String(msg.params.query).includes('OR')) {
        socket.send(
          JSON.stringify({
            jsonrpc: '2.0',
            id: msg.id,
            error: {
              code: -32602,
              message: 'Invalid params',
              data: 'failed to parse query: offset 14: expected "AND" or end of query, found "OR"',
            },
          }),
        )
      } else if (msg.method === 'subscribe') {
        socket.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: {} }))
        socket.send(event(msg.id, msg.params.query, 1))
      } else socket.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: {} }))
    })
  })
  cleanups.push(
    () =>
      new Promise<void>((r) => {
        for (const s of wss.clients) s.terminate()
        wss.close(() => r())
      }),
  )
  return { url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/websocket`, requests, sockets }
}

/** What a callback received; `count(n)` resolves once there are n items. */
class Received<T> {
  readonly items: T[] = []
  private waiters: (() => void)[] = []
  readonly push = (item: T): void => {
    this.items.push(item)
    for (const wake of this.waiters.splice(0)) wake()
  }
  async count(n: number): Promise<T[]> {
    while (this.items.length < n) await new Promise<void>((wake) => this.waiters.push(wake))
    return this.items
  }
}

describe('WsRpcClient with CometBFT subscriptions', () => {
  it('subscribes by query, receives the events sent with the request id, unsubscribes by query', async () => {
    const server = await cometServer()
    const client = await WsRpcClient.connect(server.url, { dialect: cometSubscriptions })
    cleanups.push(() => client.close())
    const events = new Received<unknown>()
    const sub = await client.subscribe(["tm.event='NewBlock'"], events.push)
    expect(server.requests[0]).toMatchObject({ method: 'subscribe', params: { query: "tm.event='NewBlock'" } })
    expect(sub.id).toBe(String(server.requests[0].id))
    await events.count(1)
    server.sockets[0]!.send(event(server.requests[0].id, "tm.event='NewBlock'", 2))
    expect(await events.count(2)).toMatchObject([{ data: { value: { height: 1 } } }, { data: { value: { height: 2 } } }])
    await sub.unsubscribe()
    expect(server.requests[1]).toMatchObject({ method: 'unsubscribe', params: { query: "tm.event='NewBlock'" } })
  })

  it("a malformed query is the subscribe call's error", async () => {
    const server = await cometServer()
    const client = await WsRpcClient.connect(server.url, { dialect: cometSubscriptions })
    cleanups.push(() => client.close())
    const err = await client.subscribe(["tm.event='Tx' OR x=1"], () => {}).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(JsonRpcClientError)
    expect(err).toMatchObject({ code: -32602, data: expect.stringContaining('offset 14') })
  })

  it('a subscription the node cancels is reported and renewed on a new connection', async () => {
    const server = await cometServer()
    const cancelled: JsonRpcClientError[] = []
    const reconnected = new Received<number>()
    const client = await WsRpcClient.connect(server.url, {
      dialect: cometSubscriptions,
      reconnect: { initialDelayMs: 10, maxDelayMs: 20 },
      onCancelled: (err) => cancelled.push(err),
      onReconnected: reconnected.push,
    })
    cleanups.push(() => client.close())
    const events = new Received<unknown>()
    const sub = await client.subscribe(["tm.event='NewBlock'"], events.push)
    const firstId = sub.id
    server.sockets[0]!.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: Number(firstId),
        error: { code: -32000, message: 'Server error', data: 'subscription was canceled (reason: slow client)' },
      }),
    )
    await reconnected.count(1)
    expect(cancelled.map((e) => [e.code, e.data])).toEqual([[-32000, 'subscription was canceled (reason: slow client)']])
    expect(server.sockets).toHaveLength(2)
    expect(sub.id).not.toBe(firstId)
    await events.count(2)
  })
})
