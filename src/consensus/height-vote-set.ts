/**
 * Every round's prevotes and precommits of one height (CometBFT `consensus/types/height_vote_set.go`).
 * Rounds 0..round+1 are tracked (round+1 so that +2/3 of the next round can trigger a round skip); a peer
 * may open at most two other "catch-up" rounds, which bounds the memory a faulty peer can make us use.
 */
import { SignedMsgType, type BlockID, type Vote } from '../comet/types.js'
import type { ValidatorSet } from '../comet/validator-set.js'
import { VoteError, VoteSet } from './vote-set.js'

/** CometBFT allows each peer two rounds outside 0..round+1. */
const MAX_PEER_CATCHUP_ROUNDS = 2

/** A vote for a round that neither we nor this peer's catch-up allowance track. */
export class UnwantedRoundError extends VoteError {
  constructor(round: number) {
    super(`peer has sent a vote that does not match our round for more than one round (round ${round})`)
    this.name = 'UnwantedRoundError'
  }
}

interface RoundVoteSet {
  prevotes: VoteSet
  precommits: VoteSet
}

export class HeightVoteSet {
  private round = 0
  private readonly rounds = new Map<number, RoundVoteSet>()
  private readonly peerCatchupRounds = new Map<string, number[]>()

  constructor(
    readonly chainId: string,
    readonly height: number,
    readonly valSet: ValidatorSet,
  ) {
    this.addRound(0)
  }

  /** Highest round tracked by SetRound. */
  get currentRound(): number {
    return this.round
  }

  /** Tracks rounds up to `round` (called with round+1 on entering each round). */
  setRound(round: number): void {
    const from = Math.max(0, this.round - 1)
    if (this.round !== 0 && round < from) throw new Error('SetRound() must increment hvs.round')
    for (let r = from; r <= round; r++) if (!this.rounds.has(r)) this.addRound(r)
    this.round = round
  }

  /**
   * Adds a vote; peerId '' is ourselves (our own signature is not re-verified). False for a duplicate. Throws VoteError (invalid),
   * ConflictingVoteError (equivocation) or UnwantedRoundError (round outside what we track).
   */
  addVote(vote: Vote, peerId: string): boolean {
    if (vote.type !== SignedMsgType.Prevote && vote.type !== SignedMsgType.Precommit) throw new VoteError('invalid vote type')
    let set = this.getVoteSet(vote.round, vote.type)
    if (!set) {
      const rounds = this.peerCatchupRounds.get(peerId) ?? []
      if (rounds.length >= MAX_PEER_CATCHUP_ROUNDS || !Number.isInteger(vote.round) || vote.round < 0)
        throw new UnwantedRoundError(vote.round)
      this.addRound(vote.round)
      set = this.getVoteSet(vote.round, vote.type)!
      this.peerCatchupRounds.set(peerId, [...rounds, vote.round])
    }
    return set.addVote(vote, peerId === '')
  }

  prevotes(round: number): VoteSet | undefined {
    return this.getVoteSet(round, SignedMsgType.Prevote)
  }

  precommits(round: number): VoteSet | undefined {
    return this.getVoteSet(round, SignedMsgType.Precommit)
  }

  /** The last round with +2/3 prevotes for one value (block or nil), and that value; round -1 when none. */
  polInfo(): { polRound: number; polBlockId: BlockID | undefined } {
    for (let r = this.round; r >= 0; r--) {
      const id = this.prevotes(r)?.twoThirdsMajority()
      if (id) return { polRound: r, polBlockId: id }
    }
    return { polRound: -1, polBlockId: undefined }
  }

  /** Rounds with vote sets, ascending. */
  trackedRounds(): number[] {
    return [...this.rounds.keys()].sort((a, b) => a - b)
  }

  private getVoteSet(round: number, type: number): VoteSet | undefined {
    const rvs = this.rounds.get(round)
    if (!rvs) return undefined
    return type === SignedMsgType.Prevote ? rvs.prevotes : rvs.precommits
  }

  private addRound(round: number): void {
    if (this.rounds.has(round)) return
    this.rounds.set(round, {
      prevotes: new VoteSet(this.chainId, this.height, round, SignedMsgType.Prevote, this.valSet),
      precommits: new VoteSet(this.chainId, this.height, round, SignedMsgType.Precommit, this.valSet),
    })
  }
}
