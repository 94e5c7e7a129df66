/**
 * The listener's own HTTP/1.1 server for the requests a JSON-RPC client sends over and over: a
 * keep-alive `POST` with a Content-Length body. Node.js's HTTP server costs about 30 µs of the main
 * thread a request on this machine (a bare `net` server answers a constant 60% faster); this one parses
 * the head itself, hands the request to the dialect (`RpcDialect.answerPlain`) and writes the answer in
 * one write.
 *
 * Anything else goes to `node:http`, which then owns the socket for good: the bytes read so far are put
 * back (`socket.unshift`) and the socket is handed over as a new connection. So chunked bodies,
 * `Expect`, upgrades, HTTP/1.0, obsolete line folding, repeated headers, heads past `maxHeaderSize`
 * (431), bodies past {@link PLAIN_BODY_MAX} and every request the dialect declines (CORS, other paths
 * and methods, 413, 415) get Node.js's exact behaviour.
 *
 * Timeouts follow http-listener.ts: the first request must arrive whole within `readTimeout` of the
 * connection being served, a later one within `readTimeout` of its first byte (else 408 and close, as
 * Node.js's `requestTimeout`; Go's ReadTimeout likewise runs from the accept, then from the end of the
 * idle wait), the socket may be quiet for `serveTimeout` while a request is served and for
 * `idleTimeout` between requests; requests sent back to back (pipelined) are answered in order.
 */
import { METHODS, STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import { latin1 } from '../primitives/hex.js'

/** A request read by this server. Header names are lower case; a repeated header sends the request to node:http. */
export interface PlainRequest {
  method: string
  url: string
  headers: Readonly<Record<string, string>>
  body: Buffer
  socket: Socket
}

/** An answer: status, headers as a flat name/value list (Content-Length, Date and Connection are added), body. */
export interface PlainReply {
  status: number
  headers: readonly string[]
  body: string | Buffer | undefined
}

/** Answers a request, or returns undefined to leave it (and the connection) to node:http. */
export type PlainHandler = (req: PlainRequest) => PlainReply | Promise<PlainReply> | undefined

export interface PlainHttpOptions {
  handler: PlainHandler
  /** Serves a socket (with the bytes put back) on node:http. */
  handOff(socket: Socket): void
  /** True once the listener closes: answers carry `Connection: close` and the socket ends after them. */
  closing(): boolean
  /** Milliseconds; 0 = none. */
  readTimeout: number
  serveTimeout: number
  idleTimeout: number
  maxHeaderSize: number
}

/** Largest body read here; a larger one streams through node:http (and its body limit). */
export const PLAIN_BODY_MAX = 1024 * 1024

/** Node.js's answer to a request not read in time (`requestTimeout`). */
export const REQUEST_TIMEOUT_RESPONSE = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n'

/** The methods llhttp knows; it refuses any other (HPE_INVALID_METHOD). */
const KNOWN_METHODS: ReadonlySet<string> = new Set(METHODS)

const HEAD_END = Buffer.from('\r\n\r\n')
const HTTP_1_1 = Buffer.from(' HTTP/1.1')
const DIGITS = /^[0-9]{1,16}$/

/** Byte classes of a request head, by byte value. */
const METHOD = 1
const TARGET = 2
const TOKEN = 4
const FIELD = 8
const BYTE_CLASS = new Uint8Array(256)
for (let b = 0; b < 256; b++) {
  // Field values: no control character but horizontal tab (RFC 9110 §5.5); other bytes are obs-text.
  if (b === 9 || (b >= 32 && b !== 127)) BYTE_CLASS[b] |= FIELD
  // A request target is visible ASCII: llhttp refuses other bytes in it (HPE_INVALID_URL).
  if (b > 32 && b < 127) BYTE_CLASS[b] |= TARGET
  if (b >= 65 && b <= 90) BYTE_CLASS[b] |= METHOD
}
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") BYTE_CLASS[c.charCodeAt(0)] |= TOKEN

/** Texts by length, for {@link constantText}. */
function byLength(texts: readonly string[]): readonly (readonly string[])[] {
  const out: string[][] = []
  for (const text of texts) {
    const list = out[text.length] ?? []
    list.push(text)
    out[text.length] = list
  }
  return out
}

/**
 * Header names a client commonly sends, lower case: such a name is read without making a string of it
 * (nor lower-casing one), and comes out as the same string each time.
 */
const COMMON_NAMES = byLength([
  'host',
  'accept',
  'origin',
  'expect',
  'upgrade',
  'referer',
  'connection',
  'keep-alive',
  'user-agent',
  'content-type',
  'authorization',
  'cache-control',
  'content-length',
  'accept-encoding',
  'accept-language',
  'transfer-encoding',
])

/** Texts a JSON-RPC client sends in every request (its method and path, its content type), likewise. */
const COMMON_TEXTS = byLength(['POST', 'GET', '/', 'application/json'])

/** The text of `texts` that `buf[from, to)` spells (letters in any case when `foldCase`), or undefined. */
function constantText(texts: readonly (readonly string[])[], buf: Buffer, from: number, to: number, foldCase: boolean): string | undefined {
  const candidates = texts[to - from]
  if (candidates === undefined) return undefined
  next: for (const text of candidates) {
    for (let i = 0; i < text.length; i++) {
      const b = buf[from + i]!
      if ((foldCase && b >= 65 && b <= 90 ? b + 32 : b) !== text.charCodeAt(i)) continue next
    }
    return text
  }
  return undefined
}

/** `buf[from, to)` as latin1 text: one of {@link COMMON_TEXTS} when it is one. */
function textAt(buf: Buffer, from: number, to: number): string {
  return constantText(COMMON_TEXTS, buf, from, to, false) ?? latin1(buf, from, to)
}

/** A request head that node:http must read. */
export const HAND_OFF = 1

export interface Head {
  method: string
  url: string
  headers: Record<string, string>
  /** Bytes of the head, blank line included. */
  size: number
  bodySize: number
  close: boolean
}

/**
 * Parses a request head ending at `end` (the blank line's offset), or HAND_OFF: a request line other
 * than `METHOD target HTTP/1.1`, a line not ending in CR LF, a control character, a header name that
 * is not a token or a space before its colon, a repeated header, no Host, CONNECT, and the requests
 * left to node:http (see the top of this file). Fuzzed against node:http (plain-http-fuzz.test.ts):
 * what it reads, node:http reads the same way.
 */
export function parseHead(buf: Buffer, end: number): Head | typeof HAND_OFF {
  let i = 0
  while (i < end && (BYTE_CLASS[buf[i]!]! & METHOD) !== 0) i++
  if (i === 0 || i === end || buf[i] !== 32) return HAND_OFF
  const method = textAt(buf, 0, i)
  if (!KNOWN_METHODS.has(method)) return HAND_OFF
  const targetAt = ++i
  // Origin form only (what a JSON-RPC client sends); llhttp reads the other forms by its own grammar.
  if (buf[i] !== 47) return HAND_OFF
  while (i < end && (BYTE_CLASS[buf[i]!]! & TARGET) !== 0) i++
  if (i === targetAt || end - i < HTTP_1_1.length || buf.compare(HTTP_1_1, 0, HTTP_1_1.length, i, i + HTTP_1_1.length) !== 0) {
    return HAND_OFF
  }
  const url = textAt(buf, targetAt, i)
  i += HTTP_1_1.length
  const headers: Record<string, string> = Object.create(null)
  while (i < end) {
    if (buf[i] !== 13 || buf[i + 1] !== 10) return HAND_OFF
    i += 2
    const nameAt = i
    while (i < end && (BYTE_CLASS[buf[i]!]! & TOKEN) !== 0) i++
    if (i === nameAt || i === end || buf[i] !== 58) return HAND_OFF
    const name = constantText(COMMON_NAMES, buf, nameAt, i, true) ?? latin1(buf, nameAt, i).toLowerCase()
    let from = ++i
    while (i < end && (BYTE_CLASS[buf[i]!]! & FIELD) !== 0) i++
    let to = i
    while (from < to && isWhitespace(buf[from]!)) from++
    while (to > from && isWhitespace(buf[to - 1]!)) to--
    if (headers[name] !== undefined) return HAND_OFF
    // After the leading white space, llhttp takes a tab for part of these values, not for white space: it
    // refuses a Content-Length of "1\t" (HPE_INVALID_CONTENT_LENGTH) and keeps alive on "close\t".
    if ((name === 'content-length' || name === 'connection') && hasTab(buf, from, i)) return HAND_OFF
    headers[name] = textAt(buf, from, to)
  }
  if (headers['transfer-encoding'] !== undefined || headers.expect !== undefined || headers.upgrade !== undefined) return HAND_OFF
  // node:http answers 400 to an HTTP/1.1 request without Host (RFC 9112 §3.2, its `requireHostHeader`),
  // and serves CONNECT as a tunnel ('connect' event), not as a request.
  if (headers.host === undefined || method === 'CONNECT') return HAND_OFF
  let close = false
  const connection = headers.connection
  if (connection !== undefined) {
    for (const token of connection.toLowerCase().split(',')) {
      const option = token.trim()
      if (option === 'close') close = true
      else if (option !== 'keep-alive') return HAND_OFF
    }
  }
  const length = headers['content-length']
  let bodySize = 0
  if (length !== undefined) {
    if (!DIGITS.test(length)) return HAND_OFF
    bodySize = Number(length)
    if (bodySize > PLAIN_BODY_MAX) return HAND_OFF
  }
  return { method, url, headers, size: end + HEAD_END.length, bodySize, close }
}

/** True when `buf[from, to)` holds a horizontal tab. */
function hasTab(buf: Buffer, from: number, to: number): boolean {
  const at = buf.indexOf(9, from)
  return at >= 0 && at < to
}

/** Space or horizontal tab: optional whitespace around a header value. */
function isWhitespace(code: number): boolean {
  return code === 32 || code === 9
}

let dateSecond = -1
let dateText = ''

/** The Date header's value, made once a second (as Node.js does). */
function httpDate(now: number): string {
  const second = Math.floor(now / 1000)
  if (second !== dateSecond) {
    dateSecond = second
    dateText = new Date(second * 1000).toUTCString()
  }
  return dateText
}

/** One connection served by this server until it closes or goes to node:http. */
export class PlainConnection {
  /** Bytes received and not yet parsed into a request. */
  private chunks: Buffer[] = []
  private size = 0
  /** The head of the request being received, once it is whole. */
  private head: Head | undefined
  private serving = false
  /** The client has ended its side: close once what it sent is answered. */
  private clientEnded = false
  /** An answer with `Connection: close` (or a 408) went out: nothing more is read. */
  private ending = false
  /** The socket's timeout was shortened to wait out the rest of a longer one. */
  private timeoutShortened = false
  private handedOff = false
  private readTimer: NodeJS.Timeout | undefined
  private lastActivity = Date.now()
  private readonly keepAliveLine: string

  constructor(
    private readonly socket: Socket,
    private readonly opts: PlainHttpOptions,
  ) {
    const idle = opts.idleTimeout
    this.keepAliveLine =
      idle > 0 ? `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(idle / 1000)}\r\n\r\n` : 'Connection: keep-alive\r\n\r\n'
    socket.on('data', this.onData)
    socket.on('end', this.onEnd)
    socket.on('timeout', this.onTimeout)
    socket.on('error', this.onError)
    socket.once('close', this.onClose)
    if (this.quietTimeout > 0) socket.setTimeout(this.quietTimeout)
    // A connection that never sends a byte is a request that is not on its way in time, not an idle one.
    this.awaitRest()
    socket.resume()
  }

  /** The socket's inactivity timeout: the shorter of the serve and idle timeouts (0 = none). */
  private get quietTimeout(): number {
    const { serveTimeout, idleTimeout } = this.opts
    return serveTimeout > 0 && idleTimeout > 0 ? Math.min(serveTimeout, idleTimeout) : serveTimeout || idleTimeout
  }

  /** Closes the connection when nothing is being received or served (the listener is closing). */
  closeIfIdle(): void {
    if (!this.serving && !this.handedOff && this.size === 0) this.socket.destroy()
  }

  private readonly onData = (chunk: Buffer): void => {
    if (this.ending) return
    this.lastActivity = Date.now()
    if (this.timeoutShortened) {
      this.timeoutShortened = false
      this.socket.setTimeout(this.quietTimeout)
    }
    this.chunks.push(chunk)
    this.size += chunk.length
    if (this.serving) {
      // Pipelined bytes wait for the answer before them; past one request's worth, stop reading.
      if (this.size > this.opts.maxHeaderSize + PLAIN_BODY_MAX) this.socket.pause()
      return
    }
    this.serveBuffered()
  }

  /** Serves the buffered requests in order until one is incomplete, in flight or for node:http. */
  private serveBuffered(): void {
    while (this.size > 0 && !this.serving && !this.handedOff && !this.ending) {
      if (this.head !== undefined && this.size < this.head.size + this.head.bodySize) return this.awaitRest()
      const buf = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size)
      this.chunks = [buf]
      if (this.head === undefined) {
        const end = buf.indexOf(HEAD_END)
        if (end < 0 || end > this.opts.maxHeaderSize) {
          if (end < 0 && buf.length <= this.opts.maxHeaderSize) return this.awaitRest()
          return this.handOff()
        }
        const head = parseHead(buf, end)
        if (head === HAND_OFF) return this.handOff()
        this.head = head
        if (buf.length < head.size + head.bodySize) return this.awaitRest()
      }
      this.serve(buf)
    }
  }

  /** The request in `buf` is whole: answer it. */
  private serve(buf: Buffer): void {
    const head = this.head!
    const total = head.size + head.bodySize
    const req: PlainRequest = {
      method: head.method,
      url: head.url,
      headers: head.headers,
      body: buf.subarray(head.size, total),
      socket: this.socket,
    }
    let answer: ReturnType<PlainHandler>
    try {
      answer = this.opts.handler(req)
    } catch {
      return void this.socket.destroy()
    }
    if (answer === undefined) return this.handOff()
    if (this.readTimer !== undefined) {
      clearTimeout(this.readTimer)
      this.readTimer = undefined
    }
    this.head = undefined
    this.size -= total
    this.chunks = this.size === 0 ? [] : [buf.subarray(total)]
    if (!(answer instanceof Promise)) return this.reply(answer, head.close)
    this.serving = true
    answer.then(
      (reply) => {
        this.serving = false
        this.reply(reply, head.close)
        if (this.socket.isPaused() && !this.handedOff && !this.ending) this.socket.resume()
        this.serveBuffered()
        if (this.clientEnded) this.onEnd()
      },
      () => this.socket.destroy(),
    )
  }

  private reply(reply: PlainReply, close: boolean): void {
    if (this.socket.destroyed) return
    const now = Date.now()
    this.lastActivity = now
    const end = close || this.opts.closing()
    const body = reply.body
    let text = `HTTP/1.1 ${reply.status} ${STATUS_CODES[reply.status] ?? ''}\r\n`
    const headers = reply.headers
    for (let i = 0; i < headers.length; i += 2) text += `${headers[i]}: ${headers[i + 1]}\r\n`
    text += `Content-Length: ${body === undefined ? 0 : Buffer.byteLength(body)}\r\nDate: ${httpDate(now)}\r\n`
    text += end ? 'Connection: close\r\n\r\n' : this.keepAliveLine
    if (typeof body === 'string') this.socket.write(text + body)
    else if (body === undefined) this.socket.write(text)
    else {
      this.socket.cork()
      this.socket.write(text)
      this.socket.write(body)
      this.socket.uncork()
    }
    if (!end) return
    this.ending = true
    this.socket.destroySoon()
  }

  /** A request is on its way: it has `readTimeout` from now to arrive whole. */
  private awaitRest(): void {
    if (this.readTimer !== undefined || this.opts.readTimeout <= 0) return
    this.readTimer = setTimeout(() => {
      this.readTimer = undefined
      if (this.serving || this.handedOff) return
      this.ending = true
      this.socket.write(REQUEST_TIMEOUT_RESPONSE)
      this.socket.destroySoon()
    }, this.opts.readTimeout)
    this.readTimer.unref()
  }

  /** Gives the socket and the bytes not yet answered to node:http. */
  private handOff(): void {
    this.handedOff = true
    this.detach()
    const socket = this.socket
    socket.pause()
    if (this.size > 0) socket.unshift(this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size))
    this.chunks = []
    this.size = 0
    this.opts.handOff(socket)
  }

  private detach(): void {
    const socket = this.socket
    socket.removeListener('data', this.onData)
    socket.removeListener('end', this.onEnd)
    socket.removeListener('timeout', this.onTimeout)
    socket.removeListener('error', this.onError)
    socket.removeListener('close', this.onClose)
    socket.setTimeout(0)
    if (this.readTimer !== undefined) clearTimeout(this.readTimer)
  }

  /** The client sent all it will: answer what is in flight, then close (the listener allows half-open sockets). */
  private readonly onEnd = (): void => {
    this.clientEnded = true
    if (this.serving || this.ending) return
    this.ending = true
    this.socket.end()
  }

  /** Quiet for the shorter of the two timeouts: close once quiet for the one that applies now. */
  private readonly onTimeout = (): void => {
    if (this.readTimer !== undefined) return // a request on its way: the read timeout decides
    const limit = this.serving || this.size > 0 ? this.opts.serveTimeout : this.opts.idleTimeout
    if (limit <= 0) return
    const quiet = Date.now() - this.lastActivity
    if (quiet >= limit) return void this.socket.destroy()
    this.timeoutShortened = true
    this.socket.setTimeout(limit - quiet)
  }

  private readonly onError = (): void => {
    this.socket.destroy()
  }

  private readonly onClose = (): void => {
    this.detach()
    this.chunks = []
    this.size = 0
  }
}
