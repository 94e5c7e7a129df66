/** A bare ABCI socket client for the server's tests: writes request frames, collects answers and raw bytes. */
import { connect, type Socket } from 'node:net'
import { encodeFrame, FrameReader } from '../../../src/abci/wire/frame.js'
import type { AbciRequest, AbciResponse } from '../../../src/abci/wire/messages.js'
import { encodeRequest } from '../../../src/abci/wire/request-codec.js'
import { decodeResponse } from '../../../src/abci/wire/response-codec.js'

export type Target = { port: number } | { path: string }

export class TestClient {
  private readonly reader = new FrameReader(1 << 30)
  private readonly received: Buffer[] = []
  private readonly decoded: AbciResponse[] = []
  private readonly waiters: (() => void)[] = []
  private ended = false
  /** Resolves when the server has closed the connection (or it failed). */
  readonly closed: Promise<void>

  private constructor(readonly socket: Socket) {
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => {
      this.received.push(chunk)
      for (const body of this.reader.push(chunk)) this.decoded.push(decodeResponse(body))
      for (const wake of this.waiters.splice(0)) wake()
    })
    this.closed = new Promise((done) =>
      socket.once('close', () => {
        this.ended = true
        for (const wake of this.waiters.splice(0)) wake()
        done()
      }),
    )
    socket.on('error', () => {})
  }

  static connect(target: Target): Promise<TestClient> {
    const socket = 'path' in target ? connect(target.path) : connect(target.port, '127.0.0.1')
    return new Promise((connected, failed) => {
      socket.once('error', failed)
      socket.once('connect', () => {
        socket.off('error', failed)
        connected(new TestClient(socket))
      })
    })
  }

  /** Writes the requests' frames in one write. */
  send(...requests: AbciRequest[]): Promise<void> {
    return this.write(Buffer.concat(requests.map((r) => encodeFrame(encodeRequest(r)))))
  }

  write(bytes: Uint8Array): Promise<void> {
    return new Promise((written, failed) => this.socket.write(bytes, (err) => (err ? failed(err) : written())))
  }

  /** The first `count` answers, once they have all arrived. */
  async answers(count: number): Promise<AbciResponse[]> {
    await this.until(() => this.decoded.length >= count)
    return this.decoded.slice(0, count)
  }

  /** The first `count` bytes received, once they have all arrived. */
  async bytes(count: number): Promise<Buffer> {
    await this.until(() => Buffer.concat(this.received).length >= count)
    return Buffer.concat(this.received).subarray(0, count)
  }

  close(): void {
    this.socket.destroy()
  }

  private async until(done: () => boolean): Promise<void> {
    while (!done()) {
      if (this.ended) throw new Error('the server closed the connection')
      await new Promise<void>((wake) => this.waiters.push(wake))
    }
  }
}
