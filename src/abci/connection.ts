/**
 * One socket CometBFT opened to the application. Requests are answered strictly one after another, in
 * arrival order, because CometBFT matches each answer to the oldest request it has not seen answered.
 * Answers are buffered and written together at each Flush (CometBFT's cue that it waits for them) or when
 * no request is left, so a burst of pipelined CheckTx calls costs one write instead of one each.
 */
import type { Socket } from 'node:net'
import type { Logger } from '../utils/logger.js'
import type { Application } from './application.js'
import { answerRequest } from './dispatch.js'
import type { SnapshotProvider } from './snapshots.js'
import { encodeFrame, FrameReader } from './wire/frame.js'
import type { AbciRequest, AbciResponse } from './wire/messages.js'
import { decodeRequest } from './wire/request-codec.js'
import { encodeResponse } from './wire/response-codec.js'

/** What a connection needs from the server that accepted it. */
export interface ConnectionHost {
  readonly app: Application
  readonly snapshots: SnapshotProvider
  readonly maxMessageBytes: number
  /** False once the application has failed: no further request is started on any connection. */
  serving(): boolean
  /** The application threw; called once the Exception answer is written (or the peer is gone). */
  appFailed(err: Error): void
  /** The socket closed, for whatever reason. */
  closed(conn: AbciConnection): void
}

export class AbciConnection {
  private readonly reader: FrameReader
  /** Request bodies received and not yet answered, oldest first. */
  private readonly pending: Uint8Array[] = []
  /** Encoded answers not yet written. */
  private out: Uint8Array[] = []
  private running = false
  /** Reading is paused until the socket's write buffer drains. */
  private waitingForDrain = false
  /** Set when this connection answers nothing more: an Exception went out, or the socket closed. */
  private stopped = false

  constructor(
    private readonly socket: Socket,
    private readonly host: ConnectionHost,
    private readonly log: Logger,
  ) {
    this.reader = new FrameReader(host.maxMessageBytes)
    socket.on('data', (chunk: Buffer) => this.receive(chunk))
    // Backpressure: reading pauses while the answers written wait in the socket's buffer.
    socket.on('drain', () => {
      this.waitingForDrain = false
      socket.resume()
    })
    socket.on('error', (err) => log.debug('ABCI connection error', { err }))
    socket.on('close', () => this.onClose())
  }

  /** Drops the connection at once; unwritten answers are lost, and a request in progress is not answered. */
  destroy(): void {
    this.stopped = true
    this.socket.destroy()
  }

  private receive(chunk: Buffer): void {
    if (this.stopped) return
    let bodies: Uint8Array[]
    try {
      bodies = this.reader.push(chunk)
    } catch (err) {
      this.log.error('ABCI connection closed: unreadable length prefix', { err })
      this.stopped = true
      this.socket.destroy()
      return
    }
    for (const body of bodies) this.pending.push(body)
    if (!this.running) void this.run()
  }

  private async run(): Promise<void> {
    this.running = true
    while (this.pending.length > 0 && !this.stopped) {
      if (!this.host.serving()) {
        this.pending.length = 0
        break
      }
      const body = this.pending.shift()!
      let req: AbciRequest
      try {
        req = decodeRequest(body)
      } catch (err) {
        this.refuse(body, asError(err))
        return
      }
      let answer: Uint8Array
      try {
        answer = encodeFrame(encodeResponse(await answerRequest(this.host.app, this.host.snapshots, req)))
      } catch (err) {
        // A connection dropped meanwhile (the server closing) does not turn a late failure into a halt.
        if (!this.stopped) this.failApp(req.method, asError(err))
        return
      }
      if (this.stopped) return
      this.out.push(answer)
      if (req.method === 'flush') this.writeOut()
    }
    this.running = false
    this.writeOut()
  }

  /** A request that does not decode: answer an Exception and close this connection (the peer is broken). */
  private refuse(body: Uint8Array, err: Error): void {
    this.log.error('ABCI request does not decode; closing the connection', { bytes: body.length, err })
    this.stop({ method: 'exception', value: { error: `cannot decode request: ${err.message}` } })
    this.socket.end(this.takeOut(), () => this.socket.destroy())
  }

  /** The application threw: answer an Exception (CometBFT halts on it) and let the server stop everything. */
  private failApp(method: AbciRequest['method'], err: Error): void {
    this.log.error('ABCI application failed', { method, err })
    this.stop({ method: 'exception', value: { error: `${method}: ${err.message}` } })
    const failed = (): void => this.host.appFailed(err)
    this.socket.once('close', failed)
    this.socket.write(this.takeOut(), failed)
  }

  private stop(last: AbciResponse): void {
    this.stopped = true
    this.pending.length = 0
    this.out.push(encodeFrame(encodeResponse(last)))
  }

  private writeOut(): void {
    if (this.out.length === 0 || !this.socket.writable) return
    if (this.socket.write(this.takeOut()) || this.waitingForDrain) return
    this.waitingForDrain = true
    this.socket.pause()
    this.log.debug('ABCI connection reading paused until the peer takes the answers')
  }

  private takeOut(): Uint8Array {
    const data = this.out.length === 1 ? this.out[0]! : Buffer.concat(this.out)
    this.out = []
    return data
  }

  private onClose(): void {
    if (this.reader.partial) this.log.debug('ABCI peer left in the middle of a message')
    else this.log.debug('ABCI connection closed')
    this.stopped = true
    this.pending.length = 0
    this.out = []
    this.host.closed(this)
  }
}

/** What was thrown, as an Error (an application may throw anything). */
function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown))
}
