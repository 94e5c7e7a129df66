/**
 * The WebSocket listener over a small method table: dispatch of single requests and batches,
 * notifications through the connection's sink (held back behind a batch reply), the origin check,
 * the connection cap, the message-size limit, keepalive and shutdown.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type WebSocket from 'ws'
import { any } from '../../../src/rpc/codecs.js'
import { Dispatcher, defaultDispatcherOptions } from '../../../src/rpc/dispatcher.js'
import { RawJson } from '../../../src/rpc/raw-json.js'
import { defineMethod, optional, type MethodTable, type NotificationSink } from '../../../src/rpc/method-table.js'
import {
  WsRpcServer,
  defaultWsRpcServerOptions,
  wsRpcServerOptionsFromConfig,
  type WsRpcServerOptions,
} from '../../../src/rpc/ws-server.js'
import { createOriginCheck } from '../../../src/rpc/ws-origins.js'
import { silentLogger } from '../../../src/utils/logger.js'
import { RawWsClient } from '../../helpers/ws-client.js'

/** The sinks `test_listen` was handed, and for each a promise its `onClose` callback resolves. */
const sinks: NotificationSink[] = []
const sinkClosed: Promise<void>[] = []

/**
 * A `test_slow` call held until the test releases it: `started` resolves once it waits. A batch's reply
 * order is then shown without a clock. Renewed for each test.
 */
function holdSlowCall(): { started: Promise<void>; start: () => void; released: Promise<void>; release: () => void } {
  let start!: () => void
  let release!: () => void
  const started = new Promise<void>((resolve) => {
    start = resolve
  })
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  return { started, start, released, release }
}
let slow = holdSlowCall()

const TABLE: MethodTable = [
  defineMethod('test_echo', [optional(any)], ([value]) => value ?? null),
  defineMethod('test_slow', [optional(any)], async ([value]) => {
    slow.start()
    await slow.released
    return value ?? null
  }),
  defineMethod('test_raw', [], () => new RawJson([Buffer.from('{"a":'), Buffer.from('"é"}')])),
  // About the size of a block with a few transactions (eth_getBlockByNumber(n, true)): 4 KB.
  defineMethod('test_block', [optional(any)], ([n]) => ({ number: n ?? null, extraData: `0x${'ab'.repeat(2000)}` })),
  defineMethod('test_listen', [], (_args, ctx) => {
    const sink = ctx.notifications!
    sinks.push(sink)
    sinkClosed.push(new Promise((resolve) => sink.onClose(resolve)))
    // Notifies at once: inside a batch it must still follow the batch reply.
    sink.send('{"jsonrpc":"2.0","method":"test_note","params":{}}')
    return 'listening'
  }),
]

describe('WsRpcServer', () => {
  let server: WsRpcServer | undefined
  const clients: RawWsClient[] = []

  const start = async (opts: Partial<WsRpcServerOptions> = {}): Promise<string> => {
    const dispatcher = new Dispatcher([TABLE], { ...defaultDispatcherOptions, namespaces: ['test'] }, silentLogger)
    server = await WsRpcServer.start(dispatcher, { ...defaultWsRpcServerOptions, port: 0, ...opts }, silentLogger)
    return server.url
  }
  const connect = async (url: string, options?: WebSocket.ClientOptions): Promise<RawWsClient> => {
    const c = await RawWsClient.connect(url, options)
    clients.push(c)
    return c
  }

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()))
    await server?.close()
    server = undefined
    sinks.length = 0
    sinkClosed.length = 0
    slow = holdSlowCall()
  })

  it('answers single requests and batches through the dispatcher', async () => {
    const c = await connect(await start())
    expect(await c.call('test_echo', ['hi'])).toBe('hi')
    c.sendText('[{"id":1,"method":"test_slow","params":[1]},{"id":"two","method":"test_echo","params":[2]}]')
    await slow.started
    slow.release()
    expect(await c.waitForFrame((f) => Array.isArray(f))).toEqual([
      { jsonrpc: '2.0', id: 1, result: 1 },
      { jsonrpc: '2.0', id: 'two', result: 2 },
    ])
    expect((await c.request('eth_chainId')).error).toEqual({
      code: -32601,
      message: 'the method eth_chainId does not exist/is not available',
    })
  })

  it('writes a raw (byte) result as a text frame, alone and in a batch', async () => {
    const c = await connect(await start())
    const binary: boolean[] = []
    c.ws.on('message', (_data, isBinary) => binary.push(isBinary))
    expect(await c.call('test_raw')).toEqual({ a: 'é' })
    c.sendText('[{"id":1,"method":"test_raw"},{"id":2,"method":"test_echo","params":[2]}]')
    expect(await c.waitForFrame((f) => Array.isArray(f))).toEqual([
      { jsonrpc: '2.0', id: 1, result: { a: 'é' } },
      { jsonrpc: '2.0', id: 2, result: 2 },
    ])
    expect(binary).toEqual([false, false])
  })

  it('gives each connection a sink; notifications sent during a batch follow its reply; close runs onClose', async () => {
    const c = await connect(await start())
    c.sendText('[{"id":1,"method":"test_listen"},{"id":2,"method":"test_slow"}]')
    // test_listen has notified by now (batches run in order); the batch is answered once test_slow is released.
    await slow.started
    slow.release()
    const [reply, note] = await c.waitForFrames(2)
    expect(JSON.parse(reply!)).toEqual([
      { jsonrpc: '2.0', id: 1, result: 'listening' },
      { jsonrpc: '2.0', id: 2, result: null },
    ])
    expect(JSON.parse(note!)).toEqual({ jsonrpc: '2.0', method: 'test_note', params: {} })
    // A single request replies first too.
    await c.call('test_listen')
    expect(JSON.parse((await c.waitForFrames(4))[3]!).method).toBe('test_note')
    expect(sinks[0]).toBe(sinks[1])
    await c.close()
    expect(sinkClosed).toHaveLength(2)
    await Promise.all(sinkClosed)
  })

  it('checks the Origin header against ws-origins (403), allows clients without one', async () => {
    const url = await start({ origins: ['localhost', 'https://app.example'] })
    await expect(RawWsClient.connect(url, { headers: { Origin: 'http://evil.example' } })).rejects.toThrow('unexpected response 403')
    await expect(RawWsClient.connect(url, { headers: { Origin: 'http://app.example' } })).rejects.toThrow('unexpected response 403')
    await connect(url, { headers: { Origin: 'https://app.example' } })
    await connect(url, { headers: { Origin: 'http://localhost:5173' } })
    await connect(url)
  })

  it('refuses connections beyond maxConnections (503) and admits again once one closes', async () => {
    const url = await start({ maxConnections: 2 })
    const a = await connect(url)
    // The listener has no event for a closed WebSocket; a sink's onClose runs after it dropped the connection.
    await a.call('test_listen')
    await connect(url)
    await expect(RawWsClient.connect(url)).rejects.toThrow('unexpected response 503')
    await a.close()
    await sinkClosed[0]
    expect(server!.webSocketCount).toBe(1)
    await connect(url)
  })

  it('closes a connection whose message is larger than maxMessageSize with 1009', async () => {
    const c = await connect(await start({ maxMessageSize: 1024 }))
    c.sendText(JSON.stringify({ id: 1, method: 'test_echo', params: ['x'.repeat(2000)] }))
    expect((await c.waitForClose()).code).toBe(1009)
  })

  it('drops a peer that does not answer pings', async () => {
    const url = await start({ pingInterval: 50 })
    const mute = await connect(url, { autoPong: false })
    const alive = await connect(url)
    await mute.waitForClose(2_000)
    expect(alive.closed).toBeUndefined()
    expect(await alive.call('test_echo', [1])).toBe(1)
  })

  it('disconnects a client that does not read once its send buffer passes maxBufferedBytes', async () => {
    const c = await connect(await start({ maxBufferedBytes: 16 * 1024 }))
    // Its sink's onClose tells when the server has dropped the connection (see the maxConnections test).
    await c.call('test_listen')
    c.ws.pause()
    const big = JSON.stringify({ method: 'test_echo', params: ['y'.repeat(512 * 1024)] })
    for (let i = 0; i < 64; i++) c.sendText(big.replace('{', `{"id":${i},`))
    await sinkClosed[0]
    expect(server!.webSocketCount).toBe(0)
    c.ws.resume()
    expect((await c.waitForClose()).code).toBe(1006)
  })

  it('drops a client that pipelines thousands of requests and never reads, below the byte bound: its answers count', async () => {
    const c = await connect(await start({ writeWait: 100 }))
    await c.call('test_listen')
    c.ws.pause()
    // 3,000 answers of 4 KB: 12 MB, more than the kernel's socket buffers take and far below the 32 MiB byte bound.
    for (let i = 0; i < 3000; i++) c.sendText(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'test_block', params: [i] }))
    await sinkClosed[0]
    expect(server!.webSocketCount).toBe(0)
    c.ws.resume()
    expect((await c.waitForClose()).code).toBe(1006)
  })

  it('close() sends 1001 to clients and stops listening', async () => {
    const url = await start()
    const c = await connect(url)
    await server!.close()
    expect((await c.waitForClose()).code).toBe(1001)
    await expect(RawWsClient.connect(url)).rejects.toThrow()
  })

  it('takes its options from [json-rpc]', () => {
    const opts = wsRpcServerOptionsFromConfig({
      wsAddress: { host: '0.0.0.0', port: 8546 },
      httpBodyLimit: 1234,
      maxOpenConnections: 7,
      wsOrigins: ['example.org'],
    } as Parameters<typeof wsRpcServerOptionsFromConfig>[0])
    expect(opts).toMatchObject({ host: '0.0.0.0', port: 8546, maxMessageSize: 1234, maxConnections: 7, origins: ['example.org'] })
  })
})

describe('createOriginCheck (geth rules)', () => {
  it('matches host-only, host:port and full-origin entries', () => {
    const check = createOriginCheck(['localhost', '127.0.0.1:3000', 'https://app.example'])
    expect(check(undefined)).toBe(true)
    expect(check('http://localhost')).toBe(true)
    expect(check('https://localhost:8080')).toBe(true)
    expect(check('http://127.0.0.1:3000')).toBe(true)
    expect(check('http://127.0.0.1:3001')).toBe(false)
    expect(check('https://app.example')).toBe(true)
    expect(check('HTTPS://APP.EXAMPLE')).toBe(true)
    expect(check('http://app.example')).toBe(false)
    expect(check('https://app.example.evil')).toBe(false)
    expect(check('null')).toBe(false)
  })

  it('allows everything with *, and only http://localhost with an empty list', () => {
    expect(createOriginCheck(['*'])('https://anything.example')).toBe(true)
    const empty = createOriginCheck([])
    expect(empty('http://localhost:1234')).toBe(true)
    expect(empty('https://localhost')).toBe(false)
    expect(empty('http://example.org')).toBe(false)
  })
})
