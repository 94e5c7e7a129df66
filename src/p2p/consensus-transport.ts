/**
 * `ConsensusTransport` over the p2p host: protocol `/nodectl/consensus/1` (a `PeerChannel`), each frame one
 * encoded gossip message. A broadcast goes to every admitted peer (a
 * committee of a few validators is fully connected, so no gossip mesh is needed), except that a vote,
 * proposal or block part is not sent to a peer known to hold it: each peer's `PeerState` learns from what
 * it sent, what we sent it and its `HasVote` messages, and peers announce their steps (`NewRoundStep`), as
 * CometBFT's consensus reactor does. A peer that sends a frame that does not decode is disconnected. The
 * codec is passed in: p2p/ uses consensus/ by type only.
 */
import type { Vote } from '../comet/types.js'
import type { GossipMessage, NewRoundStepMessage } from '../consensus/gossip-messages.js'
import type { ConsensusMessage } from '../consensus/messages.js'
import type { ConsensusMessageHandler, ConsensusTransport } from '../consensus/transport.js'
import { bytesToHex } from '../primitives/hex.js'
import type { Logger } from '../utils/logger.js'
import { PeerChannel } from './peer-channel.js'
import type { P2PNode, Peer } from './p2p-node.js'
import { PeerState, type PeerRoundState } from './peer-state.js'

export const CONSENSUS_PROTOCOL = '/nodectl/consensus/1'

/** A block part is 64 KiB plus its Merkle proof; 1 MiB leaves room and bounds what a peer can make us buffer. */
const MAX_FRAME_BYTES = 1 << 20

export interface GossipCodec {
  encode(msg: GossipMessage): Uint8Array
  decode(bytes: Uint8Array): GossipMessage
}

export class P2PConsensusTransport implements ConsensusTransport {
  private readonly handlers = new Set<ConsensusMessageHandler>()
  private readonly states = new Map<Peer, PeerState>()
  private readonly channel: PeerChannel
  private ownStep: NewRoundStepMessage | undefined

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
          if (this.ownStep) this.channel.send(peer, this.codec.encode(this.ownStep))
        },
        onClose: (peer) => this.states.delete(peer),
      },
      log,
    )
  }

  /** Serves the protocol (call before p2p.start()). */
  start(): void {
    this.channel.start()
  }

  broadcast(msg: ConsensusMessage): void {
    let bytes: Uint8Array | undefined
    for (const peer of this.channel.peers()) {
      const state = this.stateOf(peer)
      if (isHeld(state, msg)) continue
      bytes ??= this.codec.encode(msg)
      if (this.channel.send(peer, bytes)) setHeld(state, msg)
    }
  }

  subscribe(handler: ConsensusMessageHandler): () => void {
    this.handlers.add(handler)
    return () => this.handlers.delete(handler)
  }

  /** Our step changed (the engine's NewRoundStep event): tell every peer. */
  announceRoundStep(msg: NewRoundStepMessage): void {
    this.ownStep = msg
    this.channel.broadcast(this.codec.encode(msg))
  }

  /** We hold a new vote (the engine's Vote event): tell the peers not known to hold it, so they do not send it. */
  announceVote(vote: Vote): void {
    let bytes: Uint8Array | undefined
    for (const peer of this.channel.peers()) {
      if (this.stateOf(peer).hasVote(vote.height, vote.round, vote.type, vote.validatorIndex)) continue
      bytes ??= this.codec.encode({
        type: 'hasVote',
        height: vote.height,
        round: vote.round,
        voteType: vote.type,
        index: vote.validatorIndex,
      })
      this.channel.send(peer, bytes)
    }
  }

  /** Each connected peer's announced round state (`dump_consensus_state`), by node id. */
  peerRoundStates(): Map<string, PeerRoundState> {
    return new Map([...this.states].map(([peer, state]) => [peer.info.id, state.roundState()]))
  }

  private stateOf(peer: Peer): PeerState {
    let state = this.states.get(peer)
    if (!state) {
      state = new PeerState()
      this.states.set(peer, state)
    }
    return state
  }

  private receive(frame: Uint8Array, peer: Peer): void {
    let msg: GossipMessage
    try {
      msg = this.codec.decode(frame)
    } catch (err) {
      this.p2p.disconnect(peer, `malformed consensus message: ${(err as Error).message}`)
      return
    }
    const state = this.stateOf(peer)
    switch (msg.type) {
      case 'newRoundStep':
        state.applyNewRoundStep(msg)
        return
      case 'hasVote':
        state.applyHasVote(msg)
        return
      case 'vote':
        state.votesReceived++
        break
      case 'blockPart':
        state.partsReceived++
        break
    }
    setHeld(state, msg)
    for (const h of [...this.handlers]) h(msg, peer.info.id)
  }
}

/** Whether the peer is known to hold `msg` (a vote: for the same block). */
function isHeld(state: PeerState, msg: ConsensusMessage): boolean {
  switch (msg.type) {
    case 'vote': {
      const { height, round, type, validatorIndex, blockId } = msg.vote
      return state.hasVote(height, round, type, validatorIndex, bytesToHex(blockId.hash))
    }
    case 'proposal':
      return state.hasProposal(msg.proposal.height, msg.proposal.round)
    case 'blockPart':
      return state.hasBlockPart(msg.height, msg.round, msg.part.index)
  }
}

/** Records that the peer holds `msg`. */
function setHeld(state: PeerState, msg: ConsensusMessage): void {
  switch (msg.type) {
    case 'vote': {
      const { height, round, type, validatorIndex, blockId } = msg.vote
      state.setHasVote(height, round, type, validatorIndex, bytesToHex(blockId.hash))
      return
    }
    case 'proposal':
      state.setHasProposal(msg.proposal.height, msg.proposal.round)
      return
    case 'blockPart':
      state.setHasBlockPart(msg.height, msg.round, msg.part.index)
      return
  }
}
