/**
 * One protocol spoken with every admitted peer as a one-way stream per direction, each frame a message
 * (CometBFT's channels over its MConnection): the consensus, mempool, evidence and block-sync status
 * protocols are each a `PeerChannel`. Sends are queued per peer and never block the caller; a peer that
 * does not read has at most `maxPendingFrames` frames queued, later ones are dropped (their senders
 * re-send what matters). The frames queued for a peer while its previous write was under way, or within
 * one turn of the microtask queue, go out as one write: one Yamux frame, one Noise message and one socket
 * write for all of them (CometBFT's MConnection also packs the messages of its send queue into one flush),
 * where each frame alone costs all three on both sides. Incoming frames are cut from each chunk the
 * stream delivers at once, rather than read one by one (a read per length byte and one per frame), and
 * reach `onFrame` in order; a frame it cannot use should make it call `p2p.disconnect`. A stream that cannot be opened (for another reason than the peer not serving the
 * protocol), written or read while its connection stays open disconnects the peer (CometBFT stops a peer
 * on a channel error), so that no peer stays connected with a protocol silently gone; persistent peers are
 * then dialled again with all their streams. A stream the peer ended (as a stopping peer does before
 * closing its connection) counts only if the connection is still open STREAM_END_GRACE_MS later.
 */
import type { Stream } from '@libp2p/interface'
import type { LengthPrefixedStream } from 'it-length-prefixed-stream'
import type { Logger } from '../utils/logger.js'
import { FrameReader } from './frame-reader.js'
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
  /** Frames waiting for the next write. */
  queued: Uint8Array[]
  /** A write is under way (or about to start): frames queued meanwhile wait for the next one. */
  writing: boolean
}

const DEFAULT_MAX_PENDING_FRAMES = 1000
/** One write carries the queued frames up to this many bytes: Yamux's largest frame (its default `maxMessageSize`). */
const MAX_WRITE_BYTES = 64 * 1024
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
    if (!sender || sender.queued.length >= this.maxPending) return false
    sender.queued.push(bytes)
    if (!sender.writing) {
      sender.writing = true
      // After the caller's synchronous burst (a vote to every peer, then the next message): one write for it.
      queueMicrotask(() => void this.writeQueued(peer, sender))
    }
    return true
  }

  /** Writes the queued frames, as many as fit in one write at a time, until none is left. */
  private async writeQueued(peer: Peer, sender: Sender): Promise<void> {
    try {
      while (sender.queued.length > 0) {
        let bytes = 0
        let count = 0
        while (count < sender.queued.length && (count === 0 || bytes + sender.queued[count]!.length <= MAX_WRITE_BYTES))
          bytes += sender.queued[count++]!.length
        await sender.stream.writeV(sender.queued.splice(0, count))
      }
    } catch (err) {
      this.senders.delete(peer)
      this.failed(peer, `cannot write its ${this.opts.protocol} stream: ${(err as Error).message}`)
    } finally {
      sender.writing = false
    }
  }

  /** Queues `bytes` for every peer. */
  broadcast(bytes: Uint8Array): void {
    for (const peer of this.senders.keys()) this.send(peer, bytes)
  }

  private async open(peer: Peer): Promise<void> {
    try {
      const stream = await this.p2p.openStream(peer, this.opts.protocol, this.opts.maxFrameBytes)
      if (peer.connection.status !== 'open') return
      this.senders.set(peer, { stream, queued: [], writing: false })
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
    const reader = new FrameReader(this.opts.maxFrameBytes)
    const chunks = stream.unwrap().source[Symbol.asyncIterator]()
    for (;;) {
      let frames: Uint8Array[]
      try {
        const { done, value } = await chunks.next()
        if (done) break
        frames = reader.push(value.subarray())
      } catch (err) {
        this.failed(peer, `cannot read its ${this.opts.protocol} stream: ${(err as Error).message}`)
        return
      }
      for (const frame of frames) this.opts.onFrame(frame, peer)
    }
    // A peer that stops closes its streams and then its connection: give the connection time to go.
    const reason = `cannot read its ${this.opts.protocol} stream: unexpected end of input`
    setTimeout(() => this.failed(peer, reason), STREAM_END_GRACE_MS).unref()
  }

  /** A stream of `peer` broke: nothing to do if its connection is gone (a disconnect, a replaced connection), else disconnect it. */
  private failed(peer: Peer, reason: string): void {
    if (peer.connection.status === 'open') this.p2p.disconnect(peer, reason)
    else this.log.debug('stream closed with its connection', { peer: peer.info.id, reason })
  }
}
