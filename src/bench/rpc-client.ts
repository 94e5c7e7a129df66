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
  private buffer: Buffer = Buffer.alloc(0)
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
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk])
    const headerEnd = this.buffer.indexOf(CRLF_CRLF)
    if (headerEnd < 0) return
    const head = this.buffer.toString('latin1', 0, headerEnd)
    const bodyStart = headerEnd + 4
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)
    let body: string
    let consumed: number
    if (length) {
      consumed = bodyStart + Number(length[1])
      if (this.buffer.length < consumed) return
      body = this.buffer.toString('utf8', bodyStart, consumed)
    } else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
      const parts: Buffer[] = []
      let at = bodyStart
      for (;;) {
        const lineEnd = this.buffer.indexOf('\r\n', at)
        if (lineEnd < 0) return
        const size = parseInt(this.buffer.toString('latin1', at, lineEnd), 16)
        if (this.buffer.length < lineEnd + 2 + size + 2) return
        if (size === 0) {
          consumed = lineEnd + 4
          break
        }
        parts.push(this.buffer.subarray(lineEnd + 2, lineEnd + 2 + size))
        at = lineEnd + 2 + size + 2
      }
      body = Buffer.concat(parts).toString('utf8')
    } else {
      body = ''
      consumed = bodyStart
    }
    const status = Number(head.slice(9, 12))
    this.buffer = this.buffer.length > consumed ? this.buffer.subarray(consumed) : Buffer.alloc(0)
    const pending = this.pending
    this.pending = undefined
    if (!pending) return
    if (status !== 200) pending.reject(new Error(`HTTP ${status}: ${body}`))
    else pending.resolve(body)
  }
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

  constructor(url: string, private readonly maxSockets = 64) {
    const u = new URL(url)
    this.host = u.hostname
    this.port = Number(u.port || 80)
    this.path = u.pathname || '/'
  }

  /** Sends one request; resolves with `result` or rejects with the JSON-RPC error message. */
  async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params })
    const text = await this.post(body)
    const reply = JSON.parse(text) as { result?: T; error?: { code: number; message: string } }
    if (reply.error) throw new Error(`${method}: ${reply.error.message} (${reply.error.code})`)
    return reply.result as T
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
