/**
 * A lean keep-alive JSON-RPC client for load generation: HTTP/1.1 written and parsed by hand over a
 * pool of `net` sockets, one request in flight per socket (no pipelining, as ordinary clients). The
 * load generator runs on the same two cores as the node it measures; node:http's client costs several
 * times what the node spends answering a cheap read, so with it the benchmark measured the client.
 * Handles `Content-Length` and chunked responses (Anvil, Hardhat and nodectl all answer with one).
 */
import net from 'node:net'

interface Pending {
  resolve(body: string): void
  reject(err: Error): void
}

const CRLF_CRLF = Buffer.from('\r\n\r\n')

/** One keep-alive connection answering one request at a time. */
class Connection {
  private readonly socket: net.Socket
  /** Bytes received and not yet consumed; a large body is collected in `chunks` until complete. */
  private buffer: Buffer = Buffer.alloc(0)
  private chunks: Buffer[] = []
  private received = 0
  /** The parsed head of the response being received: body start and Content-Length. */
  private head: { status: number; bodyStart: number; length: number | undefined } | undefined
  private pending: Pending | undefined
  closed = false

  constructor(host: string, port: number, onClose: (c: Connection) => void) {
    this.socket = net.connect({ host, port, noDelay: true })
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk))
    const fail = (err: Error): void => {
      if (this.closed) return
      this.closed = true
      this.pending?.reject(err)
      this.pending = undefined
      onClose(this)
    }
    this.socket.on('error', fail)
    this.socket.on('close', () => fail(new Error('connection closed')))
  }

  send(request: string, pending: Pending): void {
    this.pending = pending
    this.socket.write(request)
  }

  close(): void {
    this.socket.destroy()
  }

  private onData(chunk: Buffer): void {
    this.chunks.push(chunk)
    this.received += chunk.length
    if (!this.head) {
      this.buffer = this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks, this.received)
      this.chunks = [this.buffer]
      const headerEnd = this.buffer.indexOf(CRLF_CRLF)
      if (headerEnd < 0) return
      const text = this.buffer.toString('latin1', 0, headerEnd)
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(text)
      this.head = { status: Number(text.slice(9, 12)), bodyStart: headerEnd + 4, length: length ? Number(length[1]) : undefined }
    }
    const head = this.head
    if (head.length !== undefined && this.received < head.bodyStart + head.length) return
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.received)
    this.chunks = [all]
    let body: string
    let consumed: number
    if (head.length !== undefined) {
      consumed = head.bodyStart + head.length
      body = all.toString('utf8', head.bodyStart, consumed)
    } else {
      const chunked = decodeChunked(all, head.bodyStart)
      if (!chunked) return
      ;[body, consumed] = chunked
    }
    const rest = all.subarray(consumed)
    this.chunks = rest.length > 0 ? [rest] : []
    this.received = rest.length
    this.head = undefined
    const pending = this.pending
    this.pending = undefined
    if (!pending) return
    if (head.status !== 200) pending.reject(new Error(`HTTP ${head.status}: ${body}`))
    else pending.resolve(body)
  }
}

/** A complete chunked body from `at`: [text, bytes consumed], or undefined while incomplete. */
function decodeChunked(buffer: Buffer, at: number): [string, number] | undefined {
  const parts: Buffer[] = []
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', at)
    if (lineEnd < 0) return undefined
    const size = parseInt(buffer.toString('latin1', at, lineEnd), 16)
    if (buffer.length < lineEnd + 2 + size + 2) return undefined
    if (size === 0) return [Buffer.concat(parts).toString('utf8'), lineEnd + 4]
    parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
}

/** The `result` of a JSON-RPC response body; throws `method: message[: data] (code)` for an error. */
export function parseReply<T = unknown>(method: string, text: string): T {
  const reply = JSON.parse(text) as { result?: T; error?: { code: number; message: string; data?: unknown } }
  if (reply.error)
    throw new Error(
      `${method}: ${reply.error.message}${typeof reply.error.data === 'string' ? `: ${reply.error.data}` : ''} (${reply.error.code})`,
    )
  return reply.result as T
}

interface Job extends Pending {
  request: string
}

export class RpcClient {
  private readonly host: string
  private readonly port: number
  private readonly path: string
  private readonly idle: Connection[] = []
  private readonly waiting: Job[] = []
  private open = 0
  private id = 0

  constructor(
    url: string,
    private readonly maxSockets = 64,
  ) {
    const u = new URL(url)
    this.host = u.hostname
    this.port = Number(u.port || 80)
    this.path = u.pathname || '/'
  }

  /**
   * Sends one request; resolves with `result` or rejects with the JSON-RPC error message. `params` is
   * positional, or named (an object) as CometBFT's consensus RPC documents its routes.
   */
  async call<T = unknown>(method: string, params: unknown[] | Record<string, unknown> = []): Promise<T> {
    return parseReply<T>(method, await this.callRaw(method, params))
  }

  /** {@link call}'s response body unparsed (see {@link parseReply}): a large result timed without the client's JSON.parse. */
  callRaw(method: string, params: unknown[] | Record<string, unknown> = []): Promise<string> {
    return this.post(JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }))
  }

  private post(body: string): Promise<string> {
    const request = `POST ${this.path} HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    return new Promise((resolve, reject) => {
      const job: Job = { request, resolve, reject }
      let conn = this.idle.pop()
      while (conn?.closed) conn = this.idle.pop()
      if (!conn && this.open < this.maxSockets) conn = this.connect()
      if (conn) this.dispatch(conn, job)
      else this.waiting.push(job)
    })
  }

  private connect(): Connection {
    this.open++
    return new Connection(this.host, this.port, () => {
      this.open--
      // a closed connection's waiting jobs go to a new one
      const next = this.waiting.shift()
      if (next) this.dispatch(this.connect(), next)
    })
  }

  private dispatch(conn: Connection, job: Job): void {
    conn.send(job.request, {
      resolve: (text) => {
        this.release(conn)
        job.resolve(text)
      },
      reject: job.reject,
    })
  }

  private release(conn: Connection): void {
    if (conn.closed) return
    const next = this.waiting.shift()
    if (next) this.dispatch(conn, next)
    else this.idle.push(conn)
  }

  close(): void {
    for (const conn of this.idle) conn.close()
    this.idle.length = 0
  }
}
