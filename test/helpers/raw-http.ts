/**
 * HTTP without a client's connection pool, for tests of the transport limits: each request has its
 * own connection, closed after the reply (so it never holds a `max-open-connections` slot or races
 * an idle timeout), and raw sockets to hold a connection open or send half a request.
 */
import http, { type IncomingHttpHeaders } from 'node:http'
import net from 'node:net'

export interface RawReply {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

/** One request on a fresh connection (`Connection: close`). */
export function request(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: opts.method ?? 'POST', headers: { connection: 'close', ...opts.headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(opts.body)
  })
}

/** A parsed JSON-RPC reply. */
export interface RpcOnceReply {
  result?: unknown
  error?: { code: number; message: string }
}

/** A JSON-RPC call over `request`; resolves with the parsed reply. */
export async function rpcOnce(url: string, method: string, params: unknown[] = []): Promise<RpcOnceReply> {
  const reply = await request(url, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return JSON.parse(reply.body) as RpcOnceReply
}

/** An open TCP connection to the server of `url`, with what it received and a promise of its close. */
export interface RawSocket {
  socket: net.Socket
  /** Everything received so far, as text. */
  received(): string
  /** Resolves when the server ends or resets the connection. */
  closed: Promise<void>
}

export async function openSocket(url: string): Promise<RawSocket> {
  const { hostname, port } = new URL(url)
  const socket = net.connect(Number(port), hostname)
  let text = ''
  socket.on('data', (c: Buffer) => (text += c.toString('utf8')))
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  socket.on('error', () => {})
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  return { socket, received: () => text, closed }
}

/** The bytes of a keep-alive JSON-RPC POST (HTTP/1.1, no `Connection: close`). */
export function keepAliveRequest(body: string): string {
  return `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
}

/** Resolves with all `raw` received once it matches `pattern`; rejects if the connection closes first. */
export function receivedUntil(raw: RawSocket, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (!pattern.test(raw.received())) return
      raw.socket.off('data', check)
      resolve(raw.received())
    }
    raw.socket.on('data', check)
    void raw.closed.then(() =>
      pattern.test(raw.received()) ? resolve(raw.received()) : reject(new Error(`closed with ${raw.received()}`)),
    )
    check()
  })
}

/**
 * The status line and headers (names lower-cased) of the answer to a WebSocket upgrade of `path` asking
 * for `version` in Sec-WebSocket-Version (no such header when undefined).
 */
export async function upgradeAnswer(
  url: string,
  path: string,
  version: string | undefined,
): Promise<{ status: string; headers: string[] }> {
  const raw = await openSocket(url.replace(/^ws/, 'http'))
  raw.socket.write(
    `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n' +
      (version === undefined ? '' : `Sec-WebSocket-Version: ${version}\r\n`) +
      '\r\n',
  )
  const text = await receivedUntil(raw, /\r\n\r\n/)
  raw.socket.destroy()
  const [status, ...headers] = text.slice(0, text.indexOf('\r\n\r\n')).split('\r\n')
  return { status: status!, headers: headers.map((h) => h.replace(/^[^:]+/, (name) => name.toLowerCase())) }
}
