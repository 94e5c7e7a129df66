/**
 * Evidence gossip (CometBFT's evidence reactor, channel 0x38): evidence that becomes pending here — caught
 * from conflicting votes or given to `broadcast_evidence` — is sent to every peer, and a peer that connects
 * gets all pending evidence, so it reaches the next proposer. Each frame is one `DuplicateVoteEvidence`;
 * the receiver verifies it as `broadcast_evidence` does (`submit`) and drops what fails.
 */
import { decodeEvidence, encodeEvidence } from '../comet/encoding.js'
import type { DuplicateVoteEvidence } from '../comet/types.js'
import type { Logger } from '../utils/logger.js'
import { PeerChannel } from './peer-channel.js'
import type { P2PNode, Peer } from './p2p-node.js'

export const EVIDENCE_PROTOCOL = '/nodectl/evidence/1'

/** Evidence is two votes: well under 1 KiB; 64 KiB bounds what a peer can make us buffer. */
const MAX_FRAME_BYTES = 64 << 10

export interface EvidenceSink {
  /** Verifies and adds a peer's evidence; throws the reason it is refused. */
  submit(ev: DuplicateVoteEvidence): Promise<void>
  /** The evidence pending now (sent to a peer that connects). */
  pending(): DuplicateVoteEvidence[]
}

export class EvidenceGossip {
  private channel: PeerChannel | undefined

  constructor(
    private readonly p2p: P2PNode,
    private readonly log: Logger,
  ) {}

  /** Serves the protocol from `sink`, where evidence is checked and kept (call before p2p.start()). */
  start(sink: EvidenceSink): void {
    const channel = new PeerChannel(
      this.p2p,
      {
        protocol: EVIDENCE_PROTOCOL,
        maxFrameBytes: MAX_FRAME_BYTES,
        onFrame: (frame, peer) => this.receive(frame, peer, sink),
        onOpen: (peer) => {
          for (const ev of sink.pending()) channel.send(peer, encodeEvidence(ev))
        },
      },
      this.log,
    )
    channel.start()
    this.channel = channel
  }

  /** New pending evidence: send it to every peer (none before `start`). */
  announce(ev: DuplicateVoteEvidence): void {
    this.channel?.broadcast(encodeEvidence(ev))
  }

  private receive(frame: Uint8Array, peer: Peer, sink: EvidenceSink): void {
    let ev: DuplicateVoteEvidence
    try {
      ev = decodeEvidence(frame)
    } catch (err) {
      this.p2p.disconnect(peer, `malformed evidence: ${(err as Error).message}`)
      return
    }
    sink.submit(ev).catch((err: Error) => this.log.debug('peer evidence not added', { peer: peer.info.id, reason: err.message }))
  }
}
