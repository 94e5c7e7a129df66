import { WebSocket } from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCallerAuth, isLoopbackAddress } from '../../../src/rpc/caller-auth.js'
import type { JsonRpcResponse } from '../../../src/rpc/client/http-client.js'
import { Dispatcher, defaultDispatcherOptions } from '../../../src/rpc/dispatcher.js'
import { HttpRpcServer, defaultHttpRpcServerOptions } from '../../../src/rpc/http-server.js'
import { createJwt } from '../../../src/rpc/jwt.js'
import { defineMethod } from '../../../src/rpc/method-table.js'
import { WsRpcServer, defaultWsRpcServerOptions } from '../../../src/rpc/ws-server.js'
import { silentLogger } from '../../../src/utils/logger.js'

const secret = Uint8Array.from({ length: 32 }, (_, i) => i + 1)
const otherSecret = Uint8Array.from({ length: 32 }, (_, i) => 100 - i)
const table = [
  defineMethod('eth_ping', [], () => 'pong'),
  defineMethod('miner_stop', [], () => null),
  defineMethod('personal_listAccounts', [], () => []),
]
const dispatcher = new Dispatcher([table], { ...defaultDispatcherOptions, namespaces: ['eth', 'miner', 'personal'] }, silentLogger)

function body(method: string, id = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params: [] })
}

/** Posts `payload`; `J` is the reply's shape: one response, or an array for a batch. */
async function post<J = JsonRpcResponse>(url: string, payload: string, token?: string): Promise<{ status: number; json: J }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  const res = await fetch(url, { method: 'POST', headers, body: payload })
  return { status: res.status, json: (await res.json()) as J }
}

describe('isLoopbackAddress', () => {
  it('knows IPv4, IPv6 and IPv4-mapped loopback', () => {
    expect(isLoopbackAddress('127.0.0.1')).toBe(true)
    expect(isLoopbackAddress('127.9.8.7')).toBe(true)
    expect(isLoopbackAddress('::1')).toBe(true)
    expect(isLoopbackAddress('::ffff:127.0.0.1')).toBe(true)
    expect(isLoopbackAddress('10.0.0.1')).toBe(false)
    expect(isLoopbackAddress('::ffff:10.0.0.1')).toBe(false)
    expect(isLoopbackAddress(undefined)).toBe(false)
  })
})

describe('private namespaces over HTTP (JWT required)', () => {
  let server: HttpRpcServer
  beforeAll(async () => {
    const auth = createCallerAuth({ secret, trustLoopback: false }, silentLogger)
    server = await HttpRpcServer.start(dispatcher, { ...defaultHttpRpcServerOptions, port: 0, auth }, silentLogger)
  })
  afterAll(() => server.close())

  it('serves public methods without a token', async () => {
    expect(await post(server.url, body('eth_ping'))).toEqual({ status: 200, json: { jsonrpc: '2.0', id: 1, result: 'pong' } })
  })

  it('answers 401 and -32001 unauthorized to a private call without a token', async () => {
    for (const method of ['miner_stop', 'personal_listAccounts']) {
      expect(await post(server.url, body(method))).toEqual({
        status: 401,
        json: { jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'unauthorized' } },
      })
    }
  })

  it('serves a private call with a fresh token signed with the secret', async () => {
    expect(await post(server.url, body('miner_stop'), createJwt(secret))).toEqual({
      status: 200,
      json: { jsonrpc: '2.0', id: 1, result: null },
    })
  })

  it('refuses stale tokens, tokens of another secret and garbage', async () => {
    const stale = createJwt(secret, Math.floor(Date.now() / 1000) - 120)
    for (const token of [stale, createJwt(otherSecret), 'not.a.jwt', 'x']) {
      const reply = await post(server.url, body('miner_stop'), token)
      expect(reply.status).toBe(401)
      expect(reply.json.error).toEqual({ code: -32001, message: 'unauthorized' })
    }
  })

  it('in a batch, refuses only the private calls and marks the reply 401', async () => {
    const reply = await post<JsonRpcResponse[]>(server.url, `[${body('eth_ping', 1)},${body('miner_stop', 2)}]`)
    expect(reply.status).toBe(401)
    expect(reply.json).toEqual([
      { jsonrpc: '2.0', id: 1, result: 'pong' },
      { jsonrpc: '2.0', id: 2, error: { code: -32001, message: 'unauthorized' } },
    ])
  })

  it('keeps unknown methods at -32601, whatever the authorisation', async () => {
    const reply = await post(server.url, body('miner_nope'))
    expect(reply.status).toBe(200)
    expect(reply.json.error?.code).toBe(-32601)
  })
})

describe('private namespaces under --dev (loopback trusted)', () => {
  it('lets a loopback caller in without a token', async () => {
    const auth = createCallerAuth({ secret: undefined, trustLoopback: true }, silentLogger)
    const server = await HttpRpcServer.start(dispatcher, { ...defaultHttpRpcServerOptions, port: 0, auth }, silentLogger)
    try {
      expect(await post(server.url, body('miner_stop'))).toEqual({ status: 200, json: { jsonrpc: '2.0', id: 1, result: null } })
    } finally {
      await server.close()
    }
  })
})

describe('private namespaces over WebSocket (decided at the upgrade)', () => {
  let server: WsRpcServer
  beforeAll(async () => {
    const auth = createCallerAuth({ secret, trustLoopback: false }, silentLogger)
    server = await WsRpcServer.start(dispatcher, { ...defaultWsRpcServerOptions, port: 0, auth }, silentLogger)
  })
  afterAll(() => server.close())

  async function callOver(headers: Record<string, string>, method: string): Promise<JsonRpcResponse> {
    const ws = new WebSocket(server.url, { headers })
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    const reply = new Promise<JsonRpcResponse>((resolve) => ws.once('message', (data) => resolve(JSON.parse(String(data)))))
    ws.send(body(method))
    try {
      return await reply
    } finally {
      ws.close()
    }
  }

  it('serves private methods to a connection opened with a valid token', async () => {
    expect(await callOver({ authorization: `Bearer ${createJwt(secret)}` }, 'miner_stop')).toEqual({ jsonrpc: '2.0', id: 1, result: null })
  })

  it('refuses private methods to a connection without one, and still serves public ones', async () => {
    expect(await callOver({}, 'miner_stop')).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'unauthorized' } })
    expect(await callOver({}, 'eth_ping')).toEqual({ jsonrpc: '2.0', id: 1, result: 'pong' })
  })
})
