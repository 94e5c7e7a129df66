/**
 * The listener's own HTTP/1.1 parser (plain-http.ts) in front of the EVM HTTP dialect, over raw
 * sockets: what it answers itself, in what order and with which headers, and what it hands to
 * node:http with the bytes already read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Dispatcher, defaultDispatcherOptions } from '../../../src/rpc/dispatcher.js'
import { HttpRpcServer, defaultHttpRpcServerOptions, type HttpRpcServerOptions } from '../../../src/rpc/http-server.js'
import { any } from '../../../src/rpc/codecs.js'
import { defineMethod, required } from '../../../src/rpc/method-table.js'
import { HAND_OFF, parseHead } from '../../../src/rpc/plain-http.js'
import { silentLogger } from '../../../src/utils/logger.js'
import { keepAliveRequest, openSocket, receivedUntil } from '../../helpers/raw-http.js'

/** `test_later` answers after the event loop turns, so a request behind it is pipelined. */
const table = [
  defineMethod('test_echo', [required(any)], ([v]) => v),
  defineMethod('test_later', [required(any)], async ([v]) => {
    await new Promise((resolve) => setImmediate(resolve))
    return v
  }),
]
const dispatcher = new Dispatcher([table], { ...defaultDispatcherOptions, namespaces: ['test'] }, silentLogger)

function start(opts: Partial<HttpRpcServerOptions> = {}): Promise<HttpRpcServer> {
  return HttpRpcServer.start(dispatcher, { ...defaultHttpRpcServerOptions, port: 0, ...opts }, silentLogger)
}

const call = (id: number, method: string, value: unknown): string => JSON.stringify({ jsonrpc: '2.0', id, method, params: [value] })

/** The answers in `text`, each as its head lines and body (Content-Length counts bytes). */
function answers(text: string): { head: string[]; body: string }[] {
  const out: { head: string[]; body: string }[] = []
  let rest = Buffer.from(text)
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n')
    const head = rest.subarray(0, end).toString('latin1').split('\r\n')
    const length = Number(/^content-length: (\d+)$/im.exec(head.join('\n'))?.[1] ?? 0)
    out.push({ head, body: rest.subarray(end + 4, end + 4 + length).toString('utf8') })
    rest = rest.subarray(end + 4 + length)
  }
  return out
}

describe('plain HTTP requests', () => {
  let server: HttpRpcServer
  beforeAll(async () => {
    server = await start()
  })
  afterAll(() => server.close())

  it('answers keep-alive requests on one connection with the headers node:http gives', async () => {
    const raw = await openSocket(server.url)
    raw.socket.write(keepAliveRequest(call(1, 'test_echo', 'a')))
    await receivedUntil(raw, /"result":"a"/)
    raw.socket.write(keepAliveRequest(call(2, 'test_echo', 'b')))
    const [first, second] = answers(await receivedUntil(raw, /"result":"b"/))
    expect(first!.head[0]).toBe('HTTP/1.1 200 OK')
    expect(first!.head.slice(1).map((line) => line.replace(/^Date: .*$/, 'Date: …'))).toEqual([
      'Content-Type: application/json',
      'Vary: Origin',
      'Content-Length: 37',
      'Date: …',
      'Connection: keep-alive',
      'Keep-Alive: timeout=120',
    ])
    expect(new Date(first!.head.find((line) => line.startsWith('Date: '))!.slice(6)).getTime()).not.toBeNaN()
    expect(JSON.parse(second!.body)).toEqual({ jsonrpc: '2.0', id: 2, result: 'b' })
    raw.socket.destroy()
  })

  it('answers pipelined requests in order, one sent a character at a time too', async () => {
    const raw = await openSocket(server.url)
    raw.socket.write(
      keepAliveRequest(call(1, 'test_later', 1)) + keepAliveRequest(call(2, 'test_echo', 2)) + keepAliveRequest(call(3, 'test_later', 3)),
    )
    await receivedUntil(raw, /"id":3/)
    for (const byte of keepAliveRequest(call(4, 'test_echo', 'é'))) raw.socket.write(byte)
    // A header named like an object property is a header like any other.
    raw.socket.write(
      keepAliveRequest(call(5, 'test_echo', 5)).replace('Host: localhost', 'Host: localhost\r\n__proto__: x\r\nConstructor: y'),
    )
    const replies = answers(await receivedUntil(raw, /"id":5/))
    expect(replies.map((r) => JSON.parse(r.body))).toEqual([1, 2, 3, 'é', 5].map((result, i) => ({ jsonrpc: '2.0', id: i + 1, result })))
    raw.socket.destroy()
  })

  it('hands a connection to node:http at a request it does not read, with the bytes already received', async () => {
    const raw = await openSocket(server.url)
    const body = call(2, 'test_echo', 'chunked')
    // A plain request, then a chunked one and a plain one sent together: node:http answers the last two.
    raw.socket.write(keepAliveRequest(call(1, 'test_later', 'plain')))
    await receivedUntil(raw, /"id":1/)
    raw.socket.write(
      `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n` +
        keepAliveRequest(call(3, 'test_echo', 'after')),
    )
    const replies = answers(await receivedUntil(raw, /"id":3/))
    expect(replies.map((r) => JSON.parse(r.body).result)).toEqual(['plain', 'chunked', 'after'])
    expect(replies.every((r) => r.head[0] === 'HTTP/1.1 200 OK')).toBe(true)
    raw.socket.destroy()
  })

  it('leaves to node:http what it must answer: a malformed request line, a control character, a head past the limit, a preflight', async () => {
    const malformed = await openSocket(server.url)
    malformed.socket.write('POST  / HTTP/1.1\r\n\r\n')
    expect(await receivedUntil(malformed, /\r\n\r\n/)).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
    const control = await openSocket(server.url)
    control.socket.write(keepAliveRequest(call(1, 'test_echo', 'x')).replace('Host: localhost', 'Host: local\x01host'))
    expect(await receivedUntil(control, /\r\n\r\n/)).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
    const huge = await openSocket(server.url)
    huge.socket.write(`POST / HTTP/1.1\r\nX-Filler: ${'x'.repeat(20_000)}\r\n\r\n`)
    expect(await receivedUntil(huge, /\r\n\r\n/)).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/)
    const preflight = await openSocket(server.url)
    preflight.socket.write('OPTIONS / HTTP/1.1\r\nHost: x\r\nOrigin: http://a.example\r\nAccess-Control-Request-Method: POST\r\n\r\n')
    // No origin is allowed by default (geth's CORS): node:http answers the OPTIONS as any other method.
    expect(await receivedUntil(preflight, /\r\n\r\n/)).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/)
    for (const raw of [malformed, control, huge, preflight]) raw.socket.destroy()
  })

  it('Connection: close, and a client that ends its side, get their answer and then the close', async () => {
    const closing = await openSocket(server.url)
    closing.socket.write(
      keepAliveRequest(call(1, 'test_later', 'x')).replace('Host: localhost\r\n', 'Host: localhost\r\nConnection: close\r\n'),
    )
    await closing.closed
    expect(answers(closing.received())[0]!.head).toContain('Connection: close')
    const halfClosed = await openSocket(server.url)
    halfClosed.socket.end(keepAliveRequest(call(1, 'test_later', 'y')) + keepAliveRequest(call(2, 'test_echo', 'z')))
    await halfClosed.closed
    expect(answers(halfClosed.received()).map((r) => JSON.parse(r.body).result)).toEqual(['y', 'z'])
  })
})

describe('plain HTTP timeouts', () => {
  let server: HttpRpcServer
  beforeAll(async () => {
    server = await start({ timeout: 300, idleTimeout: 150 })
  })
  afterAll(() => server.close())

  it('a request not received whole within the read timeout gets 408 and the close', async () => {
    const raw = await openSocket(server.url)
    raw.socket.write(keepAliveRequest(call(1, 'test_echo', 'x')).slice(0, -5))
    await raw.closed
    expect(raw.received()).toBe('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n')
  })

  it('a keep-alive connection left idle is closed', async () => {
    const raw = await openSocket(server.url)
    raw.socket.write(keepAliveRequest(call(1, 'test_echo', 'x')))
    await raw.closed
    expect(answers(raw.received())[0]!.head).toContain('Connection: keep-alive')
  })
})

describe('parseHead', () => {
  const parse = (head: string): ReturnType<typeof parseHead> => {
    const buf = Buffer.from(`${head}\r\n\r\n`, 'latin1')
    return parseHead(buf, buf.indexOf('\r\n\r\n'))
  }

  it('reads the request line and headers in any letter case, with the whitespace around values trimmed', () => {
    const text =
      'POST /?a=b HTTP/1.1\r\nHOST: x\r\ncontent-TYPE:\t application/json \t\r\nContent-Length:  12\r\nX-Custom-Name: caf\xe9: "q"\r\nConnection: Keep-Alive, close\r\nEmpty:'
    expect(parse(text)).toEqual({
      method: 'POST',
      url: '/?a=b',
      headers: {
        host: 'x',
        'content-type': 'application/json',
        'content-length': '12',
        'x-custom-name': 'caf\xe9: "q"',
        connection: 'Keep-Alive, close',
        empty: '',
      },
      size: text.length + 4,
      bodySize: 12,
      close: true,
    })
    expect(parse('GET / HTTP/1.1\r\nHost: x')).toMatchObject({ method: 'GET', url: '/', headers: { host: 'x' }, bodySize: 0, close: false })
  })

  it('leaves to node:http what it does not read itself', () => {
    for (const head of [
      'post / HTTP/1.1',
      'POST  / HTTP/1.1',
      'POST / HTTP/1.0',
      'POST / HTTP/1.1 ',
      'POST /a\xa0b HTTP/1.1',
      'POST / HTTP/1.1\r\nHost : x',
      'POST / HTTP/1.1\r\n: x',
      'POST / HTTP/1.1\r\nHo(st: x',
      'POST / HTTP/1.1\r\nHost: x\ny: z',
      'POST / HTTP/1.1\r\nHost: a\rb',
      'POST / HTTP/1.1\r\nHost: a\x7fb',
      'POST / HTTP/1.1\r\nHost: a\r\nhost: b',
      'POST / HTTP/1.1\r\nContent-Length: 1x',
      'POST / HTTP/1.1\r\nContent-Length: 99999999',
      'POST / HTTP/1.1\r\nTransfer-Encoding: chunked',
      'POST / HTTP/1.1\r\nExpect: 100-continue',
      'POST / HTTP/1.1\r\nUpgrade: websocket',
      'POST / HTTP/1.1\r\nConnection: upgrade',
      // What the fuzzer (plain-http-fuzz.test.ts) found node:http refuses or reads otherwise.
      'FOO / HTTP/1.1',
      'CONNECT /x HTTP/1.1',
      'POST * HTTP/1.1',
      'POST http://h/ HTTP/1.1',
      'POST ?a=b HTTP/1.1',
      'POST /caf\xe9 HTTP/1.1',
      'POST / HTTP/1.1\r\nContent-Length: 1\t',
      'POST / HTTP/1.1\r\nConnection: close\t',
    ]) {
      // With a Host, so that each is handed off for its own reason.
      const withHost = head.replace(/^[^\r]*/, (line) => `${line}\r\nHost: x`)
      expect(parse(withHost), JSON.stringify(withHost)).toBe(HAND_OFF)
    }
    // node:http answers 400 to an HTTP/1.1 request without Host.
    expect(parse('POST / HTTP/1.1\r\nContent-Length: 0')).toBe(HAND_OFF)
    expect(parse('POST / HTTP/1.1\r\nHost: x\r\nContent-Length:\t1 ')).toMatchObject({ bodySize: 1 })
  })
})
