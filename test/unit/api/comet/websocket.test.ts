import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bytesToHex } from '../../../../src/primitives/hex.js'
import { hashTx } from '../../../../src/comet/hash.js'
import type { EventSubscriptions, WsClient } from '../../../../src/api/comet/route.js'
import { TXS } from './fake-backend.js'
import { get, post, startHarness, WsClientHelper, type Harness } from './helpers.js'

let h: Harness
beforeAll(async () => {
  h = await startHarness()
})
afterAll(async () => {
  await h.server.close()
})

describe('URI, POST and WebSocket parity', () => {
  it('the same result over the three transports', async () => {
    const txHash = hashTx(TXS[2]![0]!)
    const calls: [string, Record<string, unknown>, string][] = [
      ['status', {}, ''],
      ['block', { height: '2' }, 'height=2'],
      ['commit', { height: '1' }, 'height=1'],
      ['validators', { height: '3', page: '1', per_page: '1' }, 'height=3&page=1&per_page=1'],
      ['block_results', { height: '2' }, 'height=2'],
      ['tx', { hash: Buffer.from(txHash).toString('base64'), prove: true }, `hash=${bytesToHex(txHash)}&prove=true`],
      ['blockchain', { minHeight: '1', maxHeight: '2' }, 'minHeight=1&maxHeight=2'],
      ['abci_query', { path: '/p', data: '6162', height: '0', prove: false }, 'path="/p"&data=0x6162&height=0&prove=false'],
      [
        'header_by_hash',
        { hash: Buffer.from(h.backend.stored(1).meta.blockId.hash).toString('hex') },
        `hash=${bytesToHex(h.backend.stored(1).meta.blockId.hash)}`,
      ],
      [
        'block_by_hash',
        { hash: Buffer.from(h.backend.stored(1).meta.blockId.hash).toString('base64') },
        `hash=${bytesToHex(h.backend.stored(1).meta.blockId.hash)}`,
      ],
      ['genesis', {}, ''],
      ['consensus_state', {}, ''],
    ]
    const ws = await WsClientHelper.connect(h.url)
    try {
      for (const [method, params, query] of calls) {
        const uri = (await get(h.url, `/${method}${query ? '?' + query : ''}`)).json() as { result: unknown }
        const viaPost = (await post(h.url, { jsonrpc: '2.0', id: 11, method, params })).json() as { id: number; result: unknown }
        const viaWs = (await ws.call({ jsonrpc: '2.0', id: `s-${method}`, method, params })) as { id: string; result: unknown }
        expect(viaPost.id).toBe(11)
        expect(viaWs.id).toBe(`s-${method}`)
        expect(viaPost.result, method).toEqual(uri.result)
        expect(viaWs.result, method).toEqual(uri.result)
      }
    } finally {
      ws.close()
    }
  })
})

describe('WebSocket transport', () => {
  it('numeric and string ids, params by position, errors with the request id', async () => {
    const ws = await WsClientHelper.connect(h.url)
    try {
      expect(await ws.call({ jsonrpc: '2.0', id: 5, method: 'health' })).toEqual({ jsonrpc: '2.0', id: 5, result: {} })
      expect(await ws.call({ jsonrpc: '2.0', id: 'abc', method: 'health', params: [] })).toEqual({ jsonrpc: '2.0', id: 'abc', result: {} })
      expect(
        (
          (await ws.call({ jsonrpc: '2.0', id: 6, method: 'block', params: ['1'] })) as {
            result: { block: { header: { height: string } } }
          }
        ).result.block.header.height,
      ).toBe('1')
      expect(await ws.call({ jsonrpc: '2.0', id: 7, method: 'nope' })).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32601, message: 'Method not found' },
      })
      // Param conversion failures are -32603 over WebSocket.
      expect(await ws.call({ jsonrpc: '2.0', id: 8, method: 'block', params: { height: 'x' } })).toEqual({
        jsonrpc: '2.0',
        id: 8,
        error: {
          code: -32603,
          message: 'Internal error',
          data: "error converting json params to arguments: invalid character 'x' looking for beginning of value",
        },
      })
      expect(await ws.call({ jsonrpc: '2.0', id: 9, method: 'block', params: { height: '99' } })).toEqual({
        jsonrpc: '2.0',
        id: 9,
        error: { code: -32603, message: 'Internal error', data: 'height 99 must be less than or equal to the current blockchain height 3' },
      })
      expect(await ws.call('not json')).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32700,
          message: 'Parse error. Invalid JSON',
          data: "error unmarshaling request: invalid character 'o' in literal null (expecting 'u')",
        },
      })
      expect(await ws.call([{ jsonrpc: '2.0', id: 1, method: 'health' }])).toEqual({
        jsonrpc: '2.0',
        error: {
          code: -32700,
          message: 'Parse error. Invalid JSON',
          data: 'error unmarshaling request: json: cannot unmarshal array into Go value of type types.RPCRequest',
        },
      })
    } finally {
      ws.close()
    }
  })

  it('notifications get no reply; replies keep request order', async () => {
    const ws = await WsClientHelper.connect(h.url)
    try {
      ws.send({ jsonrpc: '2.0', method: 'health' })
      ws.send({ jsonrpc: '2.0', id: 1, method: 'status' })
      ws.send({ jsonrpc: '2.0', id: 2, method: 'health' })
      // Replies keep request order, so the notification's reply, if any, would come before the third one.
      ws.send({ jsonrpc: '2.0', id: 3, method: 'health' })
      const msgs = (await ws.waitFor(3)) as { id: number }[]
      expect(msgs.map((m) => m.id)).toEqual([1, 2, 3])
    } finally {
      ws.close()
    }
  })

  it('subscribe without an event system: errors, query length checked first', async () => {
    const ws = await WsClientHelper.connect(h.url)
    try {
      expect(await ws.call({ jsonrpc: '2.0', id: 1, method: 'subscribe', params: { query: 'x'.repeat(513) } })).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32603, message: 'Internal error', data: 'maximum query length exceeded' },
      })
      expect(await ws.call({ jsonrpc: '2.0', id: 2, method: 'subscribe', params: ["tm.event='NewBlock'"] })).toMatchObject({
        id: 2,
        error: { code: -32603 },
      })
      expect(await ws.call({ jsonrpc: '2.0', id: 3, method: 'unsubscribe', params: { query: "tm.event='NewBlock'" } })).toEqual({
        jsonrpc: '2.0',
        id: 3,
        error: { code: -32603, message: 'Internal error', data: 'subscription not found' },
      })
      expect(await ws.call({ jsonrpc: '2.0', id: 4, method: 'unsubscribe_all', params: {} })).toMatchObject({
        id: 4,
        error: { data: 'subscription not found' },
      })
    } finally {
      ws.close()
    }
  })

  it('subscribe through an EventSubscriptions: ack {}, events with the same id, unsubscribeAll on close', async () => {
    const log: string[] = []
    const clients: WsClient[] = []
    let unsubscribedAll!: () => void
    const allGone = new Promise<void>((resolve) => (unsubscribedAll = resolve))
    const subs: EventSubscriptions = {
      async subscribe(client, requestId, query) {
        log.push(`sub ${client.remoteAddr.startsWith('127.0.0.1:')} ${requestId} ${query}`)
        clients.push(client)
        setTimeout(
          () =>
            client.send({
              jsonrpc: '2.0',
              id: requestId,
              result: { query, data: { type: 'tendermint/event/NewBlock', value: {} }, events: {} },
            }),
          20,
        )
      },
      async unsubscribe(_client, query) {
        log.push(`unsub ${query}`)
      },
      async unsubscribeAll() {
        log.push('unsub all')
        unsubscribedAll()
      },
    }
    const s = await startHarness({ subscriptions: subs })
    const ws = await WsClientHelper.connect(s.url)
    try {
      expect(await ws.call({ jsonrpc: '2.0', id: 'sub-1', method: 'subscribe', params: { query: "tm.event='NewBlock'" } })).toEqual({
        jsonrpc: '2.0',
        id: 'sub-1',
        result: {},
      })
      const [, event] = (await ws.waitFor(2)) as { id: string; result: { query: string } }[]
      expect(event).toMatchObject({ id: 'sub-1', result: { query: "tm.event='NewBlock'" } })
      expect(await ws.call({ jsonrpc: '2.0', id: 2, method: 'unsubscribe', params: ["tm.event='NewBlock'"] })).toEqual({
        jsonrpc: '2.0',
        id: 2,
        result: {},
      })
      ws.close()
      await allGone
      expect(log).toEqual(["sub true sub-1 tm.event='NewBlock'", "unsub tm.event='NewBlock'", 'unsub all'])
      expect(clients[0]!.closed).toBe(true)
      expect(clients[0]!.send({ jsonrpc: '2.0', id: 1, result: {} })).toBe(false)
    } finally {
      await s.server.close()
    }
  })

  it('pings the client; closes a silent client after the read wait', async () => {
    const s = await startHarness({ options: { wsPingPeriod: 50, wsReadWait: 300 } })
    try {
      const ws = await WsClientHelper.connect(s.url)
      let pings = 0
      // Eight pings span more than the read wait: the pongs keep the connection alive.
      await new Promise<void>((resolve) => ws.ws.on('ping', () => ++pings === 8 && resolve()))
      expect(ws.ws.readyState).toBe(ws.ws.OPEN)
      ws.close()
      const silent = await WsClientHelper.connect(s.url, { autoPong: false })
      const closed = new Promise<void>((resolve) => silent.ws.once('close', () => resolve()))
      await closed
      expect(silent.ws.readyState).toBe(silent.ws.CLOSED)
    } finally {
      await s.server.close()
    }
  })

  it('a message over max_body_bytes closes the connection (1009)', async () => {
    const s = await startHarness({ options: { maxBodyBytes: 1000 } })
    try {
      const ws = await WsClientHelper.connect(s.url)
      const code = new Promise<number>((resolve) => ws.ws.once('close', (c) => resolve(c)))
      ws.send({ jsonrpc: '2.0', id: 1, method: 'health', params: { pad: 'x'.repeat(2000) } })
      expect(await code).toBe(1009)
    } finally {
      await s.server.close()
    }
  })

  it('close() ends WebSocket connections', async () => {
    const s = await startHarness()
    const ws = await WsClientHelper.connect(s.url)
    const closed = new Promise<void>((resolve) => ws.ws.once('close', () => resolve()))
    await s.server.close()
    await closed
  })
})
