/**
 * What this node knows of one peer's consensus progress (CometBFT `consensus/reactor.go PeerState`): its
 * height, round and step from `NewRoundStep`, and which votes, proposals and block parts it holds — learnt
 * from what it sent us, its `HasVote` messages and what we sent it — so the reactor sends a peer only what
 * it lacks. Entries for heights the peer has left behind are pruned.
 *
 * What we sent is only presumed held: `forgetSent` drops those presumptions (not what the peer itself told
 * us) when the peer seems stuck, so that a message lost on the way is sent again.
 */
import type { SignedMsgType } from '../comet/types.js'
import type { HasVoteMessage, NewRoundStepMessage } from './gossip-messages.js'
import { RoundStep } from './round-step.js'

type VoteType = typeof SignedMsgType.Prevote | typeof SignedMsgType.Precommit

/** Height, round and step a peer announced, and what it holds of them (`dump_consensus_state` peer_state). */
export interface PeerRoundState {
  height: number
  round: number
  step: RoundStep
  /** When the peer announced the step (its start time is not sent; CometBFT derives it the same way). */
  startTime: Date
  lastCommitRound: number
  /** Whether the peer has the proposal of its current round. */
  proposal: boolean
  /** Validator indexes whose prevote / precommit of the peer's current round the peer holds. */
  prevotes: number[]
  precommits: number[]
  /** Validator indexes whose precommit of the previous height (its last commit) the peer holds. */
  lastCommit: number[]
  /** Votes and block parts the peer sent us (CometBFT `PeerStateStats`). */
  stats: { votes: number; blockParts: number }
}

/** Which presumptions `forgetSent` drops: of votes, of proposals and block parts. */
export interface SentKinds {
  votes: boolean
  data: boolean
}

export class PeerState {
  height = 0
  round = 0
  step: RoundStep = RoundStep.NewHeight
  lastCommitRound = -1
  startTime = new Date()
  votesReceived = 0
  partsReceived = 0
  /**
   * `h/r/type/index` of the votes the peer holds → the hex hash of the block voted for, or `*` when only a
   * `HasVote` told us (it does not say which block: a conflicting vote of a double-signer is then not relayed).
   */
  private readonly votes = new Map<string, string>()
  /** `P/h/r` of proposals, `B/h/r/index` of block parts the peer holds. */
  private readonly known = new Set<string>()
  /** Keys of `votes` and `known` that are there only because we sent them. */
  private readonly sent = new Set<string>()

  /**
   * The peer moved: remember where, and forget what it held of heights it has left behind. Entering a new
   * height or round it is also assumed to lack what it was sent of that height and round (and later) before
   * it got there: a node in block sync drops consensus messages, and early ones wait in a bounded buffer.
   * So they are sent again, as CometBFT's `ApplyNewRoundStep` clears a peer's votes when it moves. The same
   * step announced again changes nothing.
   */
  applyNewRoundStep(m: NewRoundStepMessage): void {
    const heightChanged = m.height !== this.height
    // A NewHeight step again at the same height is a node whose consensus restarted there (after block sync).
    const moved = heightChanged || m.round !== this.round || (m.step === RoundStep.NewHeight && this.step !== RoundStep.NewHeight)
    if (!moved && m.step === this.step && m.lastCommitRound === this.lastCommitRound) return
    this.height = m.height
    this.round = m.round
    this.step = m.step
    this.lastCommitRound = m.lastCommitRound
    this.startTime = new Date()
    if (heightChanged) this.prune()
    if (moved) this.forgetFrom(m.height, m.round)
  }

  /** Whether the peer holds this validator's vote; with `block` (hex hash), that vote for that block. */
  hasVote(height: number, round: number, type: VoteType, index: number, block?: string): boolean {
    const held = this.votes.get(voteKey(height, round, type, index))
    return held !== undefined && (block === undefined || held === ANY_BLOCK || held === block)
  }

  /** The peer holds the vote: it sent it (`sentByUs` false) or we did. */
  setHasVote(height: number, round: number, type: VoteType, index: number, block: string = ANY_BLOCK, sentByUs = false): void {
    if (this.isStale(height)) return
    const key = voteKey(height, round, type, index)
    const existed = this.votes.has(key)
    if (!existed) this.votes.set(key, block)
    this.mark(key, existed, sentByUs)
  }

  applyHasVote(m: HasVoteMessage): void {
    this.setHasVote(m.height, m.round, m.voteType, m.index)
  }

  hasProposal(height: number, round: number): boolean {
    return this.known.has(`P/${height}/${round}`)
  }

  setHasProposal(height: number, round: number, sentByUs = false): void {
    this.setKnown(height, `P/${height}/${round}`, sentByUs)
  }

  hasBlockPart(height: number, round: number, index: number): boolean {
    return this.known.has(`B/${height}/${round}/${index}`)
  }

  setHasBlockPart(height: number, round: number, index: number, sentByUs = false): void {
    this.setKnown(height, `B/${height}/${round}/${index}`, sentByUs)
  }

  /** Drops what the peer is presumed to hold only because we sent it (of the `kinds` given). */
  forgetSent(kinds: SentKinds): void {
    for (const key of this.sent) {
      const isVote = !key.startsWith('P/') && !key.startsWith('B/')
      if (isVote ? !kinds.votes : !kinds.data) continue
      this.sent.delete(key)
      if (isVote) this.votes.delete(key)
      else this.known.delete(key)
    }
  }

  /** The peer's round state as `dump_consensus_state` shows it. */
  roundState(): PeerRoundState {
    const indexes = (height: number, round: number, type: VoteType): number[] => {
      const prefix = `${height}/${round}/${type}/`
      const out: number[] = []
      for (const key of this.votes.keys()) if (key.startsWith(prefix)) out.push(Number(key.slice(prefix.length)))
      return out.sort((a, b) => a - b)
    }
    return {
      height: this.height,
      round: this.round,
      step: this.step,
      startTime: this.startTime,
      lastCommitRound: this.lastCommitRound,
      proposal: this.hasProposal(this.height, this.round),
      prevotes: indexes(this.height, this.round, 1),
      precommits: indexes(this.height, this.round, 2),
      lastCommit: this.lastCommitRound >= 0 ? indexes(this.height - 1, this.lastCommitRound, 2) : [],
      stats: { votes: this.votesReceived, blockParts: this.partsReceived },
    }
  }

  private setKnown(height: number, key: string, sentByUs: boolean): void {
    if (this.isStale(height)) return
    const existed = this.known.has(key)
    this.known.add(key)
    this.mark(key, existed, sentByUs)
  }

  /** What the peer told us of is no longer a presumption; what we sent is one unless the peer told us first. */
  private mark(key: string, existed: boolean, sentByUs: boolean): void {
    if (!sentByUs) this.sent.delete(key)
    else if (!existed) this.sent.add(key)
  }

  /** Kept: the peer's height and the one before (its last commit); anything older is of no use to it. */
  private isStale(height: number): boolean {
    return height < this.height - 1
  }

  /** Forgets what the peer holds of (height, round) and after. */
  private forgetFrom(height: number, round: number): void {
    const notBefore = (h: number, r: number): boolean => h > height || (h === height && r >= round)
    for (const key of this.votes.keys()) {
      const [h, r] = key.split('/')
      if (notBefore(Number(h), Number(r))) this.forget(key)
    }
    for (const key of this.known) {
      const [, h, r] = key.split('/')
      if (notBefore(Number(h), Number(r))) this.forget(key)
    }
  }

  private prune(): void {
    for (const key of this.votes.keys()) if (this.isStale(Number(key.slice(0, key.indexOf('/'))))) this.forget(key)
    for (const key of this.known) if (this.isStale(Number(key.split('/')[1]))) this.forget(key)
  }

  private forget(key: string): void {
    this.votes.delete(key)
    this.known.delete(key)
    this.sent.delete(key)
  }
}

/** The block of a vote learnt from `HasVote`: unknown. */
const ANY_BLOCK = '*'

function voteKey(height: number, round: number, type: VoteType, index: number): string {
  return `${height}/${round}/${type}/${index}`
}
