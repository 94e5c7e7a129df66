/**
 * The consensus reactor (CometBFT `consensus/reactor.go`): everything between the state machine and the
 * peers. It keeps a `PeerState` per peer, learnt from the peer's `NewRoundStep` and `HasVote` messages,
 * from what it sent us and from what we sent it, and:
 *
 * - hands peers' proposals, block parts and votes to the state machine, keeping the early ones (a later
 *   height or round, future-messages.ts) until the state machine gets there;
 * - sends our own messages, as the state machine makes them, to every peer that lacks them;
 * - announces our steps (`NewRoundStep`) and the votes we add (`HasVote`), so peers send us only what we lack;
 * - every gossip interval sends each peer what its state says it lacks (the gossip routines of CometBFT's
 *   reactor): the votes of its height, the last commit and the last block's parts to a peer finishing the
 *   previous height, and the proposal and parts of a round a peer is stuck in.
 *
 * What we sent a peer is presumed held, as over a TCP stream. A peer whose step has not changed for a
 * whole interval may have lost something (a lossy link, a frame dropped from a full queue): those
 * presumptions are dropped and it is sent again what it lacks — the whole proposal only when small — and
 * our own step is announced again when it has not changed, in case that announcement was lost.
 *
 * A node that block-syncs has no state machine attached: peers' states are still followed, nothing is
 * handed on and nothing gossiped. A peer two or more heights behind is block sync's, not ours.
 */
import type { BlockStore } from '../comet/block-store.js'
import { makePartSet } from '../comet/part-set.js'
import type { SignedMsgType } from '../comet/types.js'
import { bytesToHex } from '../primitives/hex.js'
import type { TypedEmitter } from '../utils/events.js'
import type { Logger } from '../utils/logger.js'
import { BlockParts } from './block-parts.js'
import type { ConsensusEvents } from './events.js'
import { FutureMessages, isEarly } from './future-messages.js'
import type { GossipMessage, NewRoundStepMessage } from './gossip-messages.js'
import type { ConsensusMessage } from './messages.js'
import { PeerState, type PeerRoundState } from './peer-state.js'
import type { ReadonlyBlockParts, ReadonlyVoteSet, RoundStateView } from './round-state-view.js'
import type { ConsensusTransport } from './transport.js'

/** Default gossip interval (CometBFT's reactor sleeps 100 ms between rounds of its per-peer routines). */
const DEFAULT_GOSSIP_INTERVAL_MS = 500
/** A block is sent again to a peer that seems to have lost it only when it is this small (parts of 64 KiB). */
const MAX_REGOSSIP_PARTS = 16

/** The state machine as the reactor drives it. */
export interface ReactorTarget {
  readonly roundState: RoundStateView
  /** A peer's proposal, block part or vote. */
  receivePeerMessage(msg: ConsensusMessage, peerId: string): void
}

export interface ConsensusReactorOptions {
  transport: ConsensusTransport
  /** The engine's events: the state machine's steps, rounds and votes are announced from them. */
  events: TypedEmitter<ConsensusEvents>
  /** The last block's parts are served from it to peers finishing that height. */
  blockStore: Pick<BlockStore, 'loadBlockBytes'>
  logger: Logger
  /** Gossip interval in ms (default 500; 0 = off: own messages still go out at once). */
  gossipIntervalMs?: number
}

interface Peer {
  state: PeerState
  /** The peer's `height/round/step` at the previous gossip round. */
  lastStep: string
}

export class ConsensusReactor {
  private readonly peers = new Map<string, Peer>()
  private readonly future = new FutureMessages()
  private readonly log: Logger
  private target: ReactorTarget | undefined
  private offs: (() => void)[] = []
  private timer: NodeJS.Timeout | undefined
  private gossiping = false
  private lastOwnStep = ''
  /** The parts of the last block loaded from the store, for peers finishing its height. */
  private lastBlock: { height: number; parts: BlockParts | undefined } | undefined

  constructor(private readonly opts: ConsensusReactorOptions) {
    this.log = opts.logger
  }

  /** Listens to the transport and the engine's events and starts the gossip timer. */
  start(): void {
    const { transport, events } = this.opts
    for (const id of transport.peers()) this.addPeer(id)
    this.offs.push(
      transport.subscribe((msg, peerId) => this.receive(msg, peerId)),
      transport.watchPeers({ added: (id) => this.addPeer(id), removed: (id) => this.peers.delete(id) }),
      events.on('NewRoundStep', () => this.onNewStep()),
      events.on('NewRound', () => this.releaseFuture()),
      events.on('Vote', ({ vote }) => this.announceVote(vote.height, vote.round, vote.type, vote.validatorIndex)),
    )
    const every = this.opts.gossipIntervalMs ?? DEFAULT_GOSSIP_INTERVAL_MS
    if (every > 0) {
      this.timer = setInterval(() => void this.gossip(), every)
      this.timer.unref()
    }
  }

  stop(): void {
    clearInterval(this.timer)
    for (const off of this.offs) off()
    this.offs = []
    this.target = undefined
  }

  /** Starts driving a state machine: announces its step and hands it the messages kept for it. */
  attach(target: ReactorTarget): void {
    this.target = target
    this.onNewStep()
  }

  /** Stops driving the state machine (block sync takes over); early messages kept for it are dropped. */
  detach(): void {
    this.target = undefined
    this.future.clear()
  }

  /** One of our own proposals, block parts or votes (durable in the WAL): to every peer that lacks it. */
  broadcastOwn(msg: ConsensusMessage): void {
    for (const [id, peer] of this.peers) this.sendIfLacking(id, peer.state, msg)
  }

  /** Each peer's announced round state (`dump_consensus_state`), by node id. */
  peerRoundStates(): Map<string, PeerRoundState> {
    return new Map([...this.peers].map(([id, peer]) => [id, peer.state.roundState()]))
  }

  private addPeer(id: string): void {
    if (!this.peers.has(id)) this.peers.set(id, { state: new PeerState(), lastStep: '' })
    const step = this.ownStep()
    if (step) this.opts.transport.send(id, step)
  }

  private receive(msg: GossipMessage, peerId: string): void {
    let peer = this.peers.get(peerId)
    if (!peer) {
      peer = { state: new PeerState(), lastStep: '' }
      this.peers.set(peerId, peer)
    }
    const ps = peer.state
    switch (msg.type) {
      case 'newRoundStep':
        ps.applyNewRoundStep(msg)
        return
      case 'hasVote':
        ps.applyHasVote(msg)
        return
      case 'vote':
        ps.votesReceived++
        break
      case 'blockPart':
        ps.partsReceived++
        break
    }
    setHeld(ps, msg, false)
    this.deliver(msg, peerId)
  }

  /**
   * Hands a peer's message to the state machine, or keeps it when early. A vote of a later round of this
   * height, or a block part of a later round, is handed on too: the state machine may take it (a peer's
   * catch-up round, a block proposed again) and ignores it otherwise.
   */
  private deliver(msg: ConsensusMessage, peerId: string): void {
    const target = this.target
    if (!target) return
    const rs = target.roundState
    if (!isEarly(msg, rs)) {
      target.receivePeerMessage(msg, peerId)
      return
    }
    this.future.keep(msg, peerId, rs)
    const sameHeight = (msg.type === 'vote' ? msg.vote.height : msg.type === 'blockPart' ? msg.height : -1) === rs.height
    if (sameHeight) target.receivePeerMessage(msg, peerId)
  }

  private releaseFuture(): void {
    const target = this.target
    if (!target || this.future.size === 0) return
    for (const { msg, peerId } of this.future.release(target.roundState)) target.receivePeerMessage(msg, peerId)
  }

  private onNewStep(): void {
    this.releaseFuture()
    const step = this.ownStep()
    if (!step) return
    for (const id of this.peers.keys()) this.opts.transport.send(id, step)
  }

  private ownStep(): NewRoundStepMessage | undefined {
    const rs = this.target?.roundState
    if (!rs) return undefined
    return {
      type: 'newRoundStep',
      height: rs.height,
      round: rs.round,
      step: rs.step,
      secondsSinceStartTime: 0,
      lastCommitRound: rs.lastCommit?.round ?? -1,
    }
  }

  /** We hold a new vote: tell the peers not known to hold it, so they do not send it. */
  private announceVote(height: number, round: number, voteType: VoteType, index: number): void {
    if (!this.target) return
    for (const [id, { state }] of this.peers) {
      if (state.hasVote(height, round, voteType, index)) continue
      this.opts.transport.send(id, { type: 'hasVote', height, round, voteType, index })
    }
  }

  /** One gossip round (`gossipDataRoutine` and `gossipVotesRoutine` of CometBFT, for every peer at once). */
  private async gossip(): Promise<void> {
    if (this.gossiping || !this.target) return
    this.gossiping = true
    try {
      const before = this.target.roundState
      const lastParts = [...this.peers.values()].some((p) => p.state.height === before.height - 1)
        ? await this.loadBlockParts(before.height - 1)
        : undefined
      const rs = this.target?.roundState
      if (!rs) return
      const ownStep = `${rs.height}/${rs.round}/${rs.step}`
      if (ownStep === this.lastOwnStep) this.onNewStep()
      this.lastOwnStep = ownStep
      for (const [id, peer] of this.peers) this.gossipTo(id, peer, rs, lastParts?.height === rs.height - 1 ? lastParts.parts : undefined)
    } catch (err) {
      this.log.error('consensus gossip failed', { err })
    } finally {
      this.gossiping = false
    }
  }

  private gossipTo(id: string, peer: Peer, rs: RoundStateView, lastParts: BlockParts | undefined): void {
    const ps = peer.state
    const step = `${ps.height}/${ps.round}/${ps.step}`
    const stuck = step === peer.lastStep
    peer.lastStep = step
    if (ps.height === rs.height) {
      const parts = rs.proposal && ps.round === rs.proposal.round ? rs.proposalBlockParts : undefined
      if (stuck) ps.forgetSent({ votes: true, data: isSmall(parts) })
      if (stuck && isSmall(parts) && parts!.isComplete()) this.sendProposal(id, ps, rs, parts!)
      this.sendVotes(id, ps, rs)
      this.sendVoteSet(id, ps, rs.lastCommit)
    } else if (ps.height === rs.height - 1) {
      // Finishing the previous height: it needs the precommits that decided it and, maybe, its block.
      if (stuck) ps.forgetSent({ votes: true, data: isSmall(lastParts) })
      this.sendVoteSet(id, ps, rs.lastCommit)
      if (lastParts && isSmall(lastParts) && rs.lastCommit) {
        for (let i = 0; i < lastParts.total; i++)
          this.sendIfLacking(id, ps, { type: 'blockPart', height: ps.height, round: rs.lastCommit.round, part: lastParts.getPart(i)! })
      }
      // Our height's votes wait among its early messages until it gets here.
      this.sendVotes(id, ps, rs)
    }
  }

  private sendProposal(id: string, ps: PeerState, rs: RoundStateView, parts: ReadonlyBlockParts): void {
    const proposal = rs.proposal!
    if (!parts.hasHeader(proposal.blockId.partSetHeader)) return
    this.sendIfLacking(id, ps, { type: 'proposal', proposal })
    for (let i = 0; i < parts.total; i++)
      this.sendIfLacking(id, ps, { type: 'blockPart', height: rs.height, round: proposal.round, part: parts.getPart(i)! })
  }

  /** The votes of our height a peer may need: of our round and the one before, the POL round and the commit round. */
  private sendVotes(id: string, ps: PeerState, rs: RoundStateView): void {
    const rounds = new Set([rs.round])
    if (rs.round > 0) rounds.add(rs.round - 1)
    if (rs.proposal && rs.proposal.polRound >= 0) rounds.add(rs.proposal.polRound)
    if (rs.commitRound >= 0) rounds.add(rs.commitRound)
    for (const r of rounds) {
      this.sendVoteSet(id, ps, rs.votes.prevotes(r))
      this.sendVoteSet(id, ps, rs.votes.precommits(r))
    }
  }

  private sendVoteSet(id: string, ps: PeerState, set: ReadonlyVoteSet | undefined): void {
    for (const vote of set?.list() ?? []) if (vote) this.sendIfLacking(id, ps, { type: 'vote', vote })
  }

  private sendIfLacking(id: string, ps: PeerState, msg: ConsensusMessage): void {
    if (isHeld(ps, msg)) return
    if (this.opts.transport.send(id, msg)) setHeld(ps, msg, true)
  }

  /** The parts of committed block `height`, from the store (kept for the next peers that need them). */
  private async loadBlockParts(height: number): Promise<{ height: number; parts: BlockParts | undefined }> {
    if (this.lastBlock?.height !== height) {
      const bytes = height > 0 ? await this.opts.blockStore.loadBlockBytes(height) : undefined
      this.lastBlock = { height, parts: bytes ? BlockParts.fromPartSet(makePartSet(bytes)) : undefined }
    }
    return this.lastBlock
  }
}

type VoteType = typeof SignedMsgType.Prevote | typeof SignedMsgType.Precommit

function isSmall(parts: ReadonlyBlockParts | undefined): boolean {
  return parts !== undefined && parts.total <= MAX_REGOSSIP_PARTS
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

/** Records that the peer holds `msg`: it sent it, or we did (`sentByUs`). */
function setHeld(state: PeerState, msg: ConsensusMessage, sentByUs: boolean): void {
  switch (msg.type) {
    case 'vote': {
      const { height, round, type, validatorIndex, blockId } = msg.vote
      state.setHasVote(height, round, type, validatorIndex, bytesToHex(blockId.hash), sentByUs)
      return
    }
    case 'proposal':
      state.setHasProposal(msg.proposal.height, msg.proposal.round, sentByUs)
      return
    case 'blockPart':
      state.setHasBlockPart(msg.height, msg.round, msg.part.index, sentByUs)
      return
  }
}
