/**
 * One protocol spoken with every admitted peer as a one-way stream per direction, each frame a message
 * (CometBFT's channels over its MConnection): the consensus, mempool, evidence and block-sync status
 * protocols are each a `PeerChannel`. Sends are queued per peer and never block the caller; a peer that
 * does not read has at most `maxPendingFrames` frames queued, later ones are dropped (their senders
 * re-send what matters). Incoming frames reach `onFrame` in order; a frame it cannot use should make it
 * call `p2p.disconnect`. A stream that cannot be opened (for another reason than the peer not serving the
 * protocol), written or read while its connection stays open disconnects the peer (CometBFT stops a peer
 * on a channel error), so that no peer stays connected with a protocol silently gone; persistent peers are
 * then dialled again with all their streams. A stream the peer ended (as a stopping peer does before
 * closing its connection) counts only if the connection is still open STREAM_END_GRACE_MS later.
 */
import type { Stream } from '@libp2p/interface'
import type { LengthPrefixedStream } from 'it-length-prefixed-stream'
import type { Logger } from '../utils/logger.js'
import type { P2PNode, Peer } from './p2p-node.js'

export interface PeerChannelOptions {
  protocol: string
  /** Largest frame either side accepts. */
  maxFrameBytes: number
  /** Frames queued for one peer before further ones are dropped (default 1000). */
  maxPendingFrames?: number
  /** Every frame a peer sends, in order. */
  onFrame: (frame: Uint8Array, peer: Peer) => void
  /** A peer's outgoing stream is open (send it what it should know at once). */
  onOpen?: (peer: Peer) => void
  /** A peer disconnected. */
  onClose?: (peer: Peer) => void
}

interface Sender {
  stream: LengthPrefixedStream<Stream>
  queue: Promise<void>
  pending: number
}

const DEFAULT_MAX_PENDING_FRAMES = 1000
/** How long a connection may stay open after the peer ended one of its streams before it is disconnected. */
const STREAM_END_GRACE_MS = 5_000

export class PeerChannel {
  private readonly senders = new Map<Peer, Sender>()
  private readonly maxPending: number

  constructor(
    private readonly p2p: P2PNode,
    private readonly opts: PeerChannelOptions,
    private readonly log: Logger,
  ) {
    this.maxPending = opts.maxPendingFrames ?? DEFAULT_MAX_PENDING_FRAMES
  }

  /** Serves the protocol and opens a stream to every peer admitted from now on (call before p2p.start()). */
  start(): void {
    this.p2p.handle(this.opts.protocol, (stream, peer) => void this.receive(stream, peer), this.opts.maxFrameBytes)
    this.p2p.events.on('peer:connected', (peer) => void this.open(peer))
    this.p2p.events.on('peer:disconnected', (peer) => {
      this.senders.delete(peer)
      this.opts.onClose?.(peer)
    })
  }

  /** Peers whose outgoing stream is open. */
  peers(): IterableIterator<Peer> {
    return this.senders.keys()
  }

  /** Queues `bytes` for `peer`; false when it has no open stream or its queue is full. */
  send(peer: Peer, bytes: Uint8Array): boolean {
    const sender = this.senders.get(peer)
    if (!sender || sender.pending >= this.maxPending) return false
    sender.pending++
    sender.queue = sender.queue
      .then(() => sender.stream.write(bytes))
      .catch((err: Error) => {
        this.senders.delete(peer)
        this.failed(peer, `cannot write its ${this.opts.protocol} stream: ${err.message}`)
      })
      .finally(() => {
        sender.pending--
      })
    return true
  }

  /** Queues `bytes` for every peer. */
  broadcast(bytes: Uint8Array): void {
    for (const peer of this.senders.keys()) this.send(peer, bytes)
  }

  private async open(peer: Peer): Promise<void> {
    try {
      const stream = await this.p2p.openStream(peer, this.opts.protocol, this.opts.maxFrameBytes)
      if (peer.connection.status !== 'open') return
      this.senders.set(peer, { stream, queue: Promise.resolve(), pending: 0 })
      this.opts.onOpen?.(peer)
    } catch (err) {
      const error = err as Error
      // A peer that does not speak the protocol (another version, a bare host) keeps its other protocols.
      if (error.name === 'UnsupportedProtocolError')
        this.log.debug('peer does not serve the protocol', { protocol: this.opts.protocol, peer: peer.info.id })
      else this.failed(peer, `cannot open its ${this.opts.protocol} stream: ${error.message}`)
    }
  }

  private async receive(stream: LengthPrefixedStream<Stream>, peer: Peer): Promise<void> {
    for (;;) {
      let frame: Uint8Array
      try {
        frame = (await stream.read()).subarray()
      } catch (err) {
        const reason = `cannot read its ${this.opts.protocol} stream: ${(err as Error).message}`
        // A peer that stops closes its streams and then its connection: give the connection time to go.
        if ((err as Error).name === 'UnexpectedEOFError') setTimeout(() => this.failed(peer, reason), STREAM_END_GRACE_MS).unref()
        else this.failed(peer, reason)
        return
      }
      this.opts.onFrame(frame, peer)
    }
  }

  /** A stream of `peer` broke: nothing to do if its connection is gone (a disconnect, a replaced connection), else disconnect it. */
  private failed(peer: Peer, reason: string): void {
    if (peer.connection.status === 'open') this.p2p.disconnect(peer, reason)
    else this.log.debug('stream closed with its connection', { peer: peer.info.id, reason })
  }
}
