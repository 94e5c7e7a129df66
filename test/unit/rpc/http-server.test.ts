import http from 'node:http'
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Dispatcher, defaultDispatcherOptions } from '../../../src/rpc/dispatcher.js'
import { HttpRpcServer, defaultHttpRpcServerOptions, type HttpRpcServerOptions } from '../../../src/rpc/http-server.js'
import { ALLOW_ALL_CORS, gethCorsPolicy } from '../../../src/rpc/cors.js'
import { defineMethod, required } from '../../../src/rpc/method-table.js'
import { any } from '../../../src/rpc/codecs.js'
import { silentLogger } from '../../../src/utils/logger.js'

/** `test_slow` stays in flight until the test calls `slow.release()`; `slow.entered` resolves when it starts. */
const slow = (() => {
  let onEnter: () => void = () => {}
  let onRelease: () => void = () => {}
  let entered = new Promise<void>((r) => (onEnter = r))
  const released = new Promise<void>((r) => (onRelease = r))
  return {
    get entered() {
      return entered
    },
    release: () => onRelease(),
    run: async (): Promise<string> => {
      onEnter()
      entered = new Promise<void>((r) => (onEnter = r))
      await released
      return 'slow'
    },
  }
})()

const table = [
  defineMethod('test_ping', [], () => 'pong'),
  defineMethod('test_echo', [required(any)], ([v]) => v),
  defineMethod('test_slow', [], () => slow.run()),
]
const dispatcher = new Dispatcher([table], { ...defaultDispatcherOptions, namespaces: ['test'] }, silentLogger)

async function start(opts: Partial<HttpRpcServerOptions> = {}): Promise<HttpRpcServer> {
  return HttpRpcServer.start(dispatcher, { ...defaultHttpRpcServerOptions, port: 0, ...opts }, silentLogger)
}

/** A raw node:http request (fetch hides some statuses and cannot send an oversized declared length). */
function request(
  url: string,
  opts: http.RequestOptions & { body?: string | Buffer },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, opts, (res) => {
      const socket = res.socket // detached from the response once a keep-alive agent takes it back
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, socket }))
    })
    req.on('error', reject)
    if (opts.body !== undefined) req.write(opts.body)
    req.end()
  })
}

const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'test_ping' })

describe('HttpRpcServer', () => {
  let server: HttpRpcServer
  beforeAll(async () => {
    server = await start()
  })
  afterAll(() => server.close())

  it('binds port 0 and exposes the address', () => {
    expect(server.address.port).toBeGreaterThan(0)
    expect(server.url).toBe(`http://127.0.0.1:${server.address.port}`)
  })

  it('serves POST / with application/json (charset and json-rpc variants too)', async () => {
    for (const ct of [
      'application/json',
      'application/json; charset=utf-8',
      'Application/JSON;charset=UTF-8',
      'application/json-rpc',
      'application/jsonrequest',
    ]) {
      const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': ct }, body: PING })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toBe('application/json')
      expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: 'pong' })
    }
  })

  it('answers JSON-RPC errors with HTTP 200', async () => {
    const res = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{bad' })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } })
  })

  it('415 for another content type', async () => {
    for (const headers of [{ 'content-type': 'application/x-www-form-urlencoded' }, { 'content-type': 'text/plain' }, {}]) {
      const res = await request(server.url, { method: 'POST', headers, body: PING })
      expect(res.status).toBe(415)
      expect(res.body).toBe('invalid content type, only application/json is supported\n')
    }
  })

  it('404 for another path, 405 for another method', async () => {
    expect(
      (await request(server.url + '/foo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: PING })).status,
    ).toBe(404)
    const get = await request(server.url, { method: 'GET' })
    expect(get.status).toBe(405)
    expect(get.headers.allow).toBe('POST, OPTIONS')
    expect((await request(server.url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: PING })).status).toBe(405)
  })

  it('413 from Content-Length without reading the body', async () => {
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        server.url,
        { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(6 * 1024 * 1024) } },
        (r) => {
          let body = ''
          r.on('data', (c) => (body += c))
          r.on('end', () => {
            req.destroy() // the body will never be completed: do not leave close() waiting for it
            resolve({ status: r.statusCode!, body })
          })
        },
      )
      req.on('error', reject)
      req.write('{') // headers only plus one byte: the server must answer before the body arrives
    })
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'content length too large (6291456>5242880)' },
    })
  })

  it('413 drains the rest of an oversized body: a client still sending reads the answer, no broken pipe', async () => {
    const total = 6 * 1024 * 1024
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        server.url,
        { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(total) } },
        (r) => {
          let body = ''
          r.on('data', (c) => (body += c))
          r.on('end', () => resolve({ status: r.statusCode!, body }))
        },
      )
      req.on('error', reject)
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      for (let sent = 0; sent < total; sent += chunk.length) req.write(chunk)
      req.end()
    })
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body).error.code).toBe(-32600)
  })

  it('413 while streaming a chunked body past the limit', async () => {
    const small = await start({ bodyLimit: 1000 })
    try {
      const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(
          small.url,
          { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
          (r) => {
            let body = ''
            r.on('data', (c) => (body += c))
            r.on('end', () => {
              req.destroy() // the chunked body is never ended: do not leave close() waiting for it
              resolve({ status: r.statusCode!, body })
            })
          },
        )
        req.on('error', reject)
        // The second chunk goes out once the first has been flushed: the limit is crossed mid-stream.
        req.write('['.padEnd(600, ' '), () => req.write(' '.repeat(600)))
      })
      expect(res.status).toBe(413)
      expect(JSON.parse(res.body).error.message).toMatch(/^content length too large \(\d+>1000\)$/)
    } finally {
      await small.close()
    }
  })

  it('a notification gets 200 with an empty body', async () => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'test_ping' }),
    })
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('')
  })

  it('CORS by default (geth, no http-corsdomain): no header for any origin; a preflight gets 405 like any OPTIONS', async () => {
    const actual = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://dapp.example' },
      body: PING,
    })
    expect(actual.status).toBe(200)
    expect(actual.headers.get('access-control-allow-origin')).toBeNull()

    const pre = await request(server.url, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://dapp.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    })
    expect(pre.status).toBe(405)
    expect(pre.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('CORS with named origins (http-corsdomain): those origins only, any header', async () => {
    const named = await start({ cors: gethCorsPolicy(['https://dapp.example']) })
    try {
      const actual = await fetch(named.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'https://dapp.example' },
        body: PING,
      })
      expect(actual.headers.get('access-control-allow-origin')).toBe('https://dapp.example')
      expect(actual.headers.get('vary')).toBe('Origin')
      const other = await fetch(named.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
        body: PING,
      })
      expect(other.headers.get('access-control-allow-origin')).toBeNull()
      const pre = await request(named.url, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://dapp.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type',
        },
      })
      expect(pre.status).toBe(204)
      expect(pre.headers['access-control-allow-origin']).toBe('https://dapp.example')
      expect(pre.headers['access-control-allow-headers']).toBe('authorization, content-type')
    } finally {
      await named.close()
    }
  })

  it('CORS allow-all (enabled-unsafe-cors) allows any header', async () => {
    const open = await start({ cors: ALLOW_ALL_CORS })
    try {
      const pre = await request(open.url, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://x',
          'access-control-request-method': 'PUT',
          'access-control-request-headers': 'authorization, x-custom',
        },
      })
      expect(pre.headers['access-control-allow-origin']).toBe('*')
      expect(pre.headers['access-control-allow-methods']).toBe('PUT')
      expect(pre.headers['access-control-allow-headers']).toBe('authorization, x-custom')
    } finally {
      await open.close()
    }
  })
})

describe('HttpRpcServer connections', () => {
  it('max-open-connections queues extra connections until one closes', async () => {
    const server = await start({ maxOpenConnections: 1 })
    try {
      // A raw keep-alive connection holds the only slot; pingHolder() is a request/answer round trip on it.
      const holder = net.connect(server.address.port, server.address.host)
      await new Promise((r) => holder.once('connect', r))
      holder.setEncoding('utf8')
      const pingHolder = (): Promise<string> =>
        new Promise((resolve) => {
          let text = ''
          const onData = (c: string): void => {
            text += c
            if (!text.includes('"pong"')) return
            holder.off('data', onData)
            resolve(text)
          }
          holder.on('data', onData)
          holder.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${PING.length}\r\n\r\n${PING}`)
        })
      expect(await pingHolder()).toMatch(/^HTTP\/1\.1 200/)

      let holderDestroyed = false
      let answeredBeforeRelease: boolean | undefined
      let sent!: () => void
      const secondSent = new Promise<void>((r) => (sent = r))
      const second = new Promise<string>((resolve, reject) => {
        const req = http.request(server.url, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
          answeredBeforeRelease = !holderDestroyed
          let body = ''
          res.setEncoding('utf8')
          res.on('data', (c: string) => (body += c))
          res.on('end', () => resolve(body))
        })
        req.on('error', reject)
        req.on('finish', () => sent())
        req.end(PING)
      })
      // Fence: the second request has been handed to the kernel, then the holder gets two more answers;
      // a server without the limit would have answered the second request by then.
      await secondSent
      await pingHolder()
      await pingHolder()
      expect(answeredBeforeRelease).toBeUndefined()

      holderDestroyed = true
      holder.destroy()
      expect(JSON.parse(await second).result).toBe('pong')
      expect(answeredBeforeRelease).toBe(false)
    } finally {
      await server.close()
    }
  })

  it('close() stops accepting, lets in-flight requests finish and closes idle keep-alive sockets', async () => {
    const server = await start()
    const agent = new http.Agent({ keepAlive: true })
    const idle = await request(server.url, { method: 'POST', agent, headers: { 'content-type': 'application/json' }, body: PING })
    expect(idle.status).toBe(200)
    const idleClosed = idle.socket.destroyed ? Promise.resolve() : new Promise((r) => idle.socket.once('close', r))
    const entered = slow.entered
    let answered = false
    const inflight = request(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'test_slow' }),
    }).then((r) => {
      answered = true
      return r
    })
    await entered // the slow request is being served
    let closed = false
    // A grace far beyond the test timeout: close() must resolve because the in-flight request ends.
    const closing = server.close(10 * 60_000).then(() => (closed = true))
    // Fence: the idle keep-alive socket is closed while the slow request is still held.
    await idleClosed
    expect(closed).toBe(false)
    expect(answered).toBe(false)
    slow.release()
    await closing
    const res = await inflight
    expect(JSON.parse(res.body).result).toBe('slow')
    expect(res.headers.connection).toBe('close')
    await expect(fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: PING })).rejects.toThrow()
    agent.destroy()
  })
})
