/**
 * `ConsensusTransport` over the p2p host: protocol `/nodectl/consensus/1` (a `PeerChannel`), each frame one
 * encoded gossip message, both ways. It only delivers: what to send each peer is decided by the consensus
 * reactor from the peer's state (consensus/reactor.ts). A committee of a few validators is fully connected,
 * so no gossip mesh is needed. A peer that sends a frame that does not decode is disconnected. The codec
 * is passed in: p2p/ uses consensus/ by type only.
 */
import type { GossipMessage } from '../consensus/gossip-messages.js'
import type { ConsensusTransport, GossipMessageHandler, PeerListener } from '../consensus/transport.js'
import type { Logger } from '../utils/logger.js'
import { PeerChannel } from './peer-channel.js'
import type { P2PNode, Peer } from './p2p-node.js'

export const CONSENSUS_PROTOCOL = '/nodectl/consensus/1'

/** A block part is 64 KiB plus its Merkle proof; 1 MiB leaves room and bounds what a peer can make us buffer. */
const MAX_FRAME_BYTES = 1 << 20

export interface GossipCodec {
  encode(msg: GossipMessage): Uint8Array
  decode(bytes: Uint8Array): GossipMessage
}

export class P2PConsensusTransport implements ConsensusTransport {
  private readonly handlers = new Set<GossipMessageHandler>()
  private readonly listeners = new Set<PeerListener>()
  /** Peers whose outgoing stream is open, by node id. */
  private readonly open = new Map<string, Peer>()
  private readonly channel: PeerChannel
  /** The last message encoded and its bytes: the reactor sends one message to several peers in a row. */
  private lastEncoded: { msg: GossipMessage; bytes: Uint8Array } | undefined

  constructor(
    private readonly p2p: P2PNode,
    private readonly codec: GossipCodec,
    log: Logger,
  ) {
    this.channel = new PeerChannel(
      p2p,
      {
        protocol: CONSENSUS_PROTOCOL,
        maxFrameBytes: MAX_FRAME_BYTES,
        onFrame: (frame, peer) => this.receive(frame, peer),
        onOpen: (peer) => {
          this.open.set(peer.info.id, peer)
          for (const l of [...this.listeners]) l.added(peer.info.id)
        },
        onClose: (peer) => {
          // A replaced connection: the new one may have opened before the old one closed.
          const current = this.open.get(peer.info.id)
          if (current !== undefined && current !== peer) return
          this.open.delete(peer.info.id)
          for (const l of [...this.listeners]) l.removed(peer.info.id)
        },
      },
      log,
    )
  }

  /** Serves the protocol (call before p2p.start()). */
  start(): void {
    this.channel.start()
  }

  peers(): Iterable<string> {
    return this.open.keys()
  }

  send(peerId: string, msg: GossipMessage): boolean {
    const peer = this.open.get(peerId)
    if (!peer) return false
    if (this.lastEncoded?.msg !== msg) this.lastEncoded = { msg, bytes: this.codec.encode(msg) }
    return this.channel.send(peer, this.lastEncoded.bytes)
  }

  subscribe(handler: GossipMessageHandler): () => void {
    this.handlers.add(handler)
    return () => this.handlers.delete(handler)
  }

  watchPeers(listener: PeerListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private receive(frame: Uint8Array, peer: Peer): void {
    let msg: GossipMessage
    try {
      msg = this.codec.decode(frame)
    } catch (err) {
      this.p2p.disconnect(peer, `malformed consensus message: ${(err as Error).message}`)
      return
    }
    for (const h of [...this.handlers]) h(msg, peer.info.id)
  }
}
