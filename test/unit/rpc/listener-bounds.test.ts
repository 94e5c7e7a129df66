/**
 * What a stranger's idle sockets may cost the EVM listeners (http-listener.ts): a bounded wait queue
 * past the connection cap and sockets beyond it closed at once, the first request timed from the
 * connection's start (geth's read timeout) rather than the keep-alive timeout, a default cap, and
 * WebSocket upgrades for version 13 only (RFC 6455 §4.4: 426 naming it).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { Dispatcher, defaultDispatcherOptions } from '../../../src/rpc/dispatcher.js'
import { HttpRpcServer, defaultHttpRpcServerOptions, type HttpRpcServerOptions } from '../../../src/rpc/http-server.js'
import type { HttpListener } from '../../../src/rpc/http-listener.js'
import { WsRpcServer, defaultWsRpcServerOptions } from '../../../src/rpc/ws-server.js'
import { any } from '../../../src/rpc/codecs.js'
import { defineMethod, required } from '../../../src/rpc/method-table.js'
import { silentLogger } from '../../../src/utils/logger.js'
import { keepAliveRequest, openSocket, receivedUntil as until, upgradeAnswer } from '../../helpers/raw-http.js'

const dispatcher = new Dispatcher(
  [[defineMethod('test_echo', [required(any)], ([v]) => v)]],
  { ...defaultDispatcherOptions, namespaces: ['test'] },
  silentLogger,
)
const ECHO = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test_echo', params: ['hi'] })

let server: HttpListener | undefined
afterEach(async () => {
  await server?.close(0)
  server = undefined
})

async function startHttp(opts: Partial<HttpRpcServerOptions> = {}): Promise<HttpRpcServer> {
  const started = await HttpRpcServer.start(dispatcher, { ...defaultHttpRpcServerOptions, port: 0, ...opts }, silentLogger)
  server = started
  return started
}

describe('EVM HTTP listener connections', () => {
  it('has a connection cap and a wait queue by default', async () => {
    const s = await startHttp()
    const { maxConnections, maxQueued } = s.connectionLimits
    expect(maxConnections).toBeGreaterThan(0)
    expect(maxConnections).toBeLessThanOrEqual(900)
    expect(maxQueued).toBeGreaterThan(0)
    expect(maxQueued).toBeLessThan(maxConnections)
  })

  it('past the cap, connections wait in a bounded queue; beyond it they are closed at once, and the queue is served in turn', async () => {
    // One slot and a queue of one (an eighth of the cap, at least one).
    const s = await startHttp({ maxOpenConnections: 1 })
    const served = await openSocket(s.url)
    served.socket.write(keepAliveRequest(ECHO))
    await until(served, /"result":"hi"/)
    const waiting = await openSocket(s.url)
    waiting.socket.write(keepAliveRequest(ECHO))
    const refused = await openSocket(s.url)
    // Closed without a byte of answer: its descriptor is free again.
    await refused.closed
    expect(refused.received()).toBe('')
    // The first connection keeps being served; the waiting one is answered once it leaves.
    served.socket.write(keepAliveRequest(ECHO))
    await until(served, /"result":"hi"[\s\S]*"result":"hi"/)
    expect(waiting.received()).toBe('')
    served.socket.destroy()
    expect(await until(waiting, /"result":"hi"/)).toMatch(/^HTTP\/1\.1 200 OK/)
    waiting.socket.destroy()
  })

  it('closes a connection that sends nothing once the read timeout (http-timeout) has passed, not the idle timeout', async () => {
    const s = await startHttp({ timeout: 200, idleTimeout: 120_000 })
    const silent = await openSocket(s.url)
    await silent.closed
    expect(silent.received()).toBe('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n')
    // A connection that asked and was answered then waits the keep-alive timeout, as before.
    const asked = await openSocket(s.url)
    asked.socket.write(keepAliveRequest(ECHO))
    expect(await until(asked, /"result":"hi"/)).toContain('Keep-Alive: timeout=120')
    asked.socket.destroy()
  })
})

describe('EVM WebSocket upgrades', () => {
  it('answers a Sec-WebSocket-Version other than 13 with 426 and the version served', async () => {
    const ws = await WsRpcServer.start(dispatcher, { ...defaultWsRpcServerOptions, port: 0 }, silentLogger)
    server = ws
    for (const version of ['8', '0xd', '13.0', '12', undefined]) {
      const answer = await upgradeAnswer(ws.url, '/', version)
      expect(answer.status, `version ${version}`).toBe('HTTP/1.1 426 Upgrade Required')
      expect(answer.headers).toContain('sec-websocket-version: 13')
    }
    expect((await upgradeAnswer(ws.url, '/', '13')).status).toBe('HTTP/1.1 101 Switching Protocols')
  })
})
