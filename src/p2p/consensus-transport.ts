/**
 * `ConsensusTransport` over the p2p host: protocol `/nodectl/consensus/1`, one length-prefixed stream per
 * peer and direction, each frame one encoded `ConsensusMessage`. A broadcast goes to every admitted peer
 * (a committee of a few validators is fully connected, so no gossip mesh is needed). A peer that sends a
 * frame that does not decode is disconnected. The codec is passed in: p2p/ stays independent of consensus/.
 */
import type { Stream } from '@libp2p/interface'
import type { LengthPrefixedStream } from 'it-length-prefixed-stream'
import type { ConsensusMessage } from '../consensus/messages.js'
import type { ConsensusMessageHandler, ConsensusTransport } from '../consensus/transport.js'
import type { Logger } from '../utils/logger.js'
import type { P2PNode, Peer } from './p2p-node.js'

export const CONSENSUS_PROTOCOL = '/nodectl/consensus/1'

/** A block part is 64 KiB plus its Merkle proof; 1 MiB leaves room and bounds what a peer can make us buffer. */
const MAX_FRAME_BYTES = 1 << 20

/** Frames queued for one slow peer before further broadcasts to it are dropped (the engine re-gossips). */
const MAX_PENDING_FRAMES = 1000

export interface ConsensusCodec {
  encode(msg: ConsensusMessage): Uint8Array
  decode(bytes: Uint8Array): ConsensusMessage
}

interface Sender {
  stream: LengthPrefixedStream<Stream>
  queue: Promise<void>
  pending: number
}

export class P2PConsensusTransport implements ConsensusTransport {
  private readonly handlers = new Set<ConsensusMessageHandler>()
  private readonly senders = new Map<Peer, Sender>()

  constructor(
    private readonly p2p: P2PNode,
    private readonly codec: ConsensusCodec,
    private readonly log: Logger,
  ) {}

  /** Serves the protocol and opens a stream to every peer admitted from now on (call before p2p.start()). */
  start(): void {
    this.p2p.handle(CONSENSUS_PROTOCOL, (stream, peer) => void this.receive(stream, peer), MAX_FRAME_BYTES)
    this.p2p.events.on('peer:connected', (peer) => void this.openSender(peer))
    this.p2p.events.on('peer:disconnected', (peer) => this.senders.delete(peer))
  }

  broadcast(msg: ConsensusMessage): void {
    if (this.senders.size === 0) return
    const bytes = this.codec.encode(msg)
    for (const [peer, sender] of this.senders) {
      if (sender.pending >= MAX_PENDING_FRAMES) continue
      sender.pending++
      sender.queue = sender.queue
        .then(() => sender.stream.write(bytes))
        .catch((err: Error) => {
          this.log.debug('consensus send failed', { peer: peer.info.id, error: err.message })
          this.senders.delete(peer)
        })
        .finally(() => {
          sender.pending--
        })
    }
  }

  subscribe(handler: ConsensusMessageHandler): () => void {
    this.handlers.add(handler)
    return () => this.handlers.delete(handler)
  }

  private async openSender(peer: Peer): Promise<void> {
    try {
      const stream = await this.p2p.openStream(peer, CONSENSUS_PROTOCOL, MAX_FRAME_BYTES)
      if (peer.connection.status === 'open') this.senders.set(peer, { stream, queue: Promise.resolve(), pending: 0 })
    } catch (err) {
      this.log.debug('cannot open consensus stream', { peer: peer.info.id, error: (err as Error).message })
    }
  }

  private async receive(stream: LengthPrefixedStream<Stream>, peer: Peer): Promise<void> {
    for (;;) {
      let frame: Uint8Array
      try {
        frame = (await stream.read()).subarray()
      } catch {
        return
      }
      let msg: ConsensusMessage
      try {
        msg = this.codec.decode(frame)
      } catch (err) {
        this.p2p.disconnect(peer, `malformed consensus message: ${(err as Error).message}`)
        return
      }
      for (const h of [...this.handlers]) h(msg, peer.info.id)
    }
  }
}
