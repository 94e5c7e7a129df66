/**
 * The ABCI 2.0 socket server CometBFT connects to (`proxy_app`). CometBFT opens four connections (query,
 * snapshot, mempool, consensus) and needs nothing to tell them apart: each is served on its own, in order.
 * An application that throws halts everything: CometBFT gets an Exception (it stops on one rather than
 * build on a wrong answer) and the caller is told through `onFatal`.
 */
import { rm } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { resolve } from 'node:path'
import type { Logger } from '../utils/logger.js'
import type { Application } from './application.js'
import { AbciConnection, type ConnectionHost } from './connection.js'
import { noSnapshots, type SnapshotProvider } from './snapshots.js'
import { removeStaleSocket } from './unix-socket.js'

/** A TCP host and port (port 0 picks a free one), or the path of a unix socket. */
export type AbciListenAddress = { host: string; port: number } | { path: string }

export interface AbciServerOptions {
  address: AbciListenAddress
  /** Largest request body accepted (default 128 MiB); a larger length prefix closes that connection with an error log. */
  maxMessageBytes?: number
  log: Logger
  /** Serves the snapshot connection (ListSnapshots … ApplySnapshotChunk); default: no snapshots. */
  snapshots?: SnapshotProvider
  /** The application threw: the server has answered that connection with an Exception and stopped accepting; the caller logs and exits non-zero. */
  onFatal: (err: Error) => void
}

/** Far above any block CometBFT can propose (its `block.max_bytes` is at most 100 MiB). */
const DEFAULT_MAX_MESSAGE_BYTES = 128 * 1024 * 1024

export class AbciServer {
  private readonly connections = new Set<AbciConnection>()
  private readonly closedEvent: Promise<void>
  private listening = true
  private failed = false
  private closing: Promise<void> | undefined
  private nextConnectionId = 1
  private readonly host: ConnectionHost

  private constructor(
    private readonly server: Server,
    /** "tcp://127.0.0.1:<port>" (port resolved when 0 was asked) or "unix:///abs/path". */
    readonly url: string,
    private readonly socketPath: string | undefined,
    app: Application,
    options: AbciServerOptions,
  ) {
    this.closedEvent = new Promise((done) => server.once('close', done))
    this.host = {
      app,
      snapshots: options.snapshots ?? noSnapshots,
      maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      serving: () => !this.failed,
      appFailed: (err) => {
        if (this.failed || this.closing !== undefined) return
        this.failed = true
        this.stopListening()
        options.onFatal(err)
      },
      closed: (conn) => this.connections.delete(conn),
    }
    server.on('error', (err) => options.log.error('ABCI server error', { err }))
    server.on('connection', (socket) => {
      const log = options.log.child({ conn: this.nextConnectionId++ })
      log.debug('ABCI connection opened', { remote: socket.remoteAddress ?? 'unix' })
      socket.setNoDelay(true)
      this.connections.add(new AbciConnection(socket, this.host, log))
    })
  }

  static async start(app: Application, options: AbciServerOptions): Promise<AbciServer> {
    const server = createServer()
    const address = options.address
    const socketPath = 'path' in address ? resolve(address.path) : undefined
    if (socketPath !== undefined) await removeStaleSocket(socketPath)
    await new Promise<void>((listening, failed) => {
      server.once('error', failed)
      if ('path' in address) server.listen(socketPath, listening)
      else server.listen(address.port, address.host, listening)
    })
    server.removeAllListeners('error')
    const url = socketPath !== undefined ? `unix://${socketPath}` : tcpUrl(server)
    // Constructed in the same tick as the listen callback: no connection can arrive before its handler.
    const abci = new AbciServer(server, url, socketPath, app, options)
    options.log.info('ABCI server listening', { url })
    return abci
  }

  /** Stops listening, closes every connection; idempotent. */
  close(): Promise<void> {
    this.closing ??= this.shutdown()
    return this.closing
  }

  private async shutdown(): Promise<void> {
    this.stopListening()
    for (const conn of this.connections) conn.destroy()
    await this.closedEvent
    if (this.socketPath !== undefined) await rm(this.socketPath, { force: true })
  }

  private stopListening(): void {
    if (!this.listening) return
    this.listening = false
    this.server.close()
  }
}

function tcpUrl(server: Server): string {
  const bound = server.address()
  if (bound === null || typeof bound === 'string') throw new Error('ABCI server: no TCP address after listening')
  const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address
  return `tcp://${host}:${bound.port}`
}
