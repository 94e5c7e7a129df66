/**
 * The votes of one (height, round, type) (CometBFT `types/vote_set.go`): power-weighted +2/3 detection
 * (strictly more than 2/3 of the total: `sum ≥ total·2/3 + 1`), the first majority kept as `maj23`,
 * conflicting votes reported, every signature verified on add, and the commit built from a precommit set.
 */
import { absentCommitSig, commitVote } from '../comet/commit.js'
import { blockIdEquals, blockIdKey, isCompleteBlockId, isZeroBlockId } from '../comet/part-set.js'
import { voteSignBytes } from '../comet/sign-bytes.js'
import { SignedMsgType, type BlockID, type Commit, type CommitSig, type Vote } from '../comet/types.js'
import { BlockIDFlag } from '../abci/types.js'
import type { ValidatorSet } from '../comet/validator-set.js'
import { ed25519Verify } from '../crypto/index.js'
import { bytesToUpperHex, equalBytes } from '../primitives/hex.js'

/** ed25519 signatures are 64 bytes (CometBFT `MaxSignatureSize`). */
const MAX_SIGNATURE_BYTES = 64
/** Validator addresses are SHA-256(pubkey)[:20]. */
const ADDRESS_BYTES = 20

/** A vote that cannot be added (bad signature, wrong step, unknown validator...). */
export class VoteError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'VoteError'
  }
}

/** Two different votes of one validator for the same (height, round, type): evidence material. */
export class ConflictingVoteError extends Error {
  constructor(
    readonly voteA: Vote,
    readonly voteB: Vote,
  ) {
    super(`conflicting votes from validator ${bytesToUpperHex(voteA.validatorAddress)}`)
    this.name = 'ConflictingVoteError'
  }
}

/** `Vote.ValidateBasic`: shape checks before any lookup or signature check. */
export function validateVoteBasic(vote: Vote): void {
  if (vote.type !== SignedMsgType.Prevote && vote.type !== SignedMsgType.Precommit) throw new VoteError('invalid vote type')
  if (!Number.isSafeInteger(vote.height) || vote.height <= 0) throw new VoteError('negative or zero height')
  if (!Number.isInteger(vote.round) || vote.round < 0) throw new VoteError('negative round')
  if (!isZeroBlockId(vote.blockId) && !isCompleteBlockId(vote.blockId)) throw new VoteError('blockID must be either empty or complete')
  if (vote.validatorAddress.length !== ADDRESS_BYTES) throw new VoteError(`expected ValidatorAddress size to be ${ADDRESS_BYTES} bytes`)
  if (!Number.isInteger(vote.validatorIndex) || vote.validatorIndex < 0) throw new VoteError('negative ValidatorIndex')
  if (vote.signature.length === 0) throw new VoteError('signature is missing')
  if (vote.signature.length > MAX_SIGNATURE_BYTES) throw new VoteError(`signature is too big (max: ${MAX_SIGNATURE_BYTES})`)
}

interface BlockVotes {
  votes: (Vote | undefined)[]
  sum: bigint
}

export class VoteSet {
  private readonly votes: (Vote | undefined)[]
  private readonly votesByBlock = new Map<string, BlockVotes>()
  private maj23: BlockID | undefined
  /** Voting power of the validators seen, counting each once. */
  private sumPower = 0n

  constructor(
    readonly chainId: string,
    readonly height: number,
    readonly round: number,
    readonly type: typeof SignedMsgType.Prevote | typeof SignedMsgType.Precommit,
    readonly valSet: ValidatorSet,
  ) {
    this.votes = new Array<Vote | undefined>(valSet.size).fill(undefined)
  }

  get size(): number {
    return this.valSet.size
  }

  get sum(): bigint {
    return this.sumPower
  }

  /**
   * Adds a vote after checking its step, validator and signature. Returns false for a duplicate; throws
   * VoteError for an invalid vote and ConflictingVoteError when the validator already voted otherwise.
   * `ownVote`: signed by our own signer a moment ago (or read back from our CRC-checked WAL), so the
   * signature check is skipped; every other check still applies.
   */
  addVote(vote: Vote, ownVote = false): boolean {
    validateVoteBasic(vote)
    if (vote.height !== this.height || vote.round !== this.round || vote.type !== this.type) {
      throw new VoteError(
        `expected ${this.height}/${this.round}/${this.type}, but got ${vote.height}/${vote.round}/${vote.type}: unexpected step`,
      )
    }
    const val = this.valSet.getByIndex(vote.validatorIndex)
    if (!val) throw new VoteError(`cannot find validator ${vote.validatorIndex} in valSet of size ${this.valSet.size}`)
    if (!equalBytes(val.address, vote.validatorAddress)) {
      throw new VoteError(
        `vote.ValidatorAddress (${bytesToUpperHex(vote.validatorAddress)}) does not match address (${bytesToUpperHex(val.address)}) for vote.ValidatorIndex (${vote.validatorIndex})`,
      )
    }
    const key = blockIdKey(vote.blockId)
    const existing = this.getVote(vote.validatorIndex, key)
    if (existing) {
      if (equalBytes(existing.signature, vote.signature)) return false
      throw new VoteError('existing vote with a different signature: non-deterministic signature')
    }
    if (!ownVote && !ed25519Verify(val.pubKey, voteSignBytes(this.chainId, vote), vote.signature)) {
      throw new VoteError(
        `failed to verify vote with ChainID ${this.chainId} and validator ${bytesToUpperHex(val.address)}: invalid signature`,
      )
    }
    const conflicting = this.addVerifiedVote(vote, key, val.votingPower)
    if (conflicting) throw new ConflictingVoteError(conflicting, vote)
    return true
  }

  /** `addVerifiedVote`: returns the conflicting earlier vote, if any (the new one then counts only toward its block's tally if it was already tracked). */
  private addVerifiedVote(vote: Vote, key: string, power: bigint): Vote | undefined {
    const i = vote.validatorIndex
    let conflicting: Vote | undefined
    const existing = this.votes[i]
    if (existing) {
      conflicting = existing
      // Replace the primary vote when the new one is for the +2/3 block.
      if (this.maj23 && blockIdKey(this.maj23) === key) this.votes[i] = vote
    } else {
      this.votes[i] = vote
      this.sumPower += power
    }
    let byBlock = this.votesByBlock.get(key)
    if (!byBlock) {
      // Not tracking this block yet: a conflicting vote for it is simply forgotten.
      if (conflicting) return conflicting
      byBlock = { votes: new Array<Vote | undefined>(this.size).fill(undefined), sum: 0n }
      this.votesByBlock.set(key, byBlock)
    } else if (conflicting) {
      // No peer claimed this block has +2/3 (peer maj23 claims are a reactor feature), so keep it out.
      return conflicting
    }
    const quorum = this.quorum()
    const before = byBlock.sum
    if (!byBlock.votes[i]) {
      byBlock.votes[i] = vote
      byBlock.sum += power
    }
    if (before < quorum && quorum <= byBlock.sum && !this.maj23) {
      this.maj23 = vote.blockId
      for (let k = 0; k < byBlock.votes.length; k++) if (byBlock.votes[k]) this.votes[k] = byBlock.votes[k]
    }
    return conflicting
  }

  /** The vote of validator `index` for the block with key `key`, if known. */
  private getVote(index: number, key: string): Vote | undefined {
    const v = this.votes[index]
    if (v && blockIdKey(v.blockId) === key) return v
    return this.votesByBlock.get(key)?.votes[index]
  }

  /** total·2/3 + 1 (integer division): the smallest power that is strictly more than 2/3. */
  private quorum(): bigint {
    return (this.valSet.totalVotingPower() * 2n) / 3n + 1n
  }

  getByIndex(index: number): Vote | undefined {
    return this.votes[index]
  }

  getByAddress(address: Uint8Array): Vote | undefined {
    const found = this.valSet.getByAddress(address)
    return found ? this.votes[found.index] : undefined
  }

  /** The votes in validator order (undefined = not seen). */
  list(): (Vote | undefined)[] {
    return [...this.votes]
  }

  /** The first BlockID (block or nil) that reached +2/3, if any. */
  twoThirdsMajority(): BlockID | undefined {
    return this.maj23
  }

  hasTwoThirdsMajority(): boolean {
    return this.maj23 !== undefined
  }

  /** +2/3 of the power voted, for anything. */
  hasTwoThirdsAny(): boolean {
    return this.sumPower > (this.valSet.totalVotingPower() * 2n) / 3n
  }

  /** Every validator voted (CometBFT `HasAll`: sum == total). */
  hasAll(): boolean {
    return this.sumPower === this.valSet.totalVotingPower()
  }

  /** Power that voted for `blockId`. */
  powerFor(blockId: BlockID): bigint {
    return this.votesByBlock.get(blockIdKey(blockId))?.sum ?? 0n
  }

  /**
   * `MakeCommit` from a precommit set with +2/3 for a block: one CommitSig per validator in set order —
   * ABSENT when no vote (or a vote for another block), COMMIT for the +2/3 block, NIL for a nil precommit
   * (address, time and signature kept), as CometBFT's `VoteSet.MakeExtendedCommit`.
   */
  makeCommit(): Commit {
    if (this.type !== SignedMsgType.Precommit) throw new Error('cannot MakeCommit() unless VoteSet.Type is PrecommitType')
    const maj23 = this.maj23
    if (!maj23 || isZeroBlockId(maj23)) throw new Error('cannot MakeCommit() unless a blockhash has +2/3')
    const signatures: CommitSig[] = this.votes.map((v) => {
      if (!v) return absentCommitSig()
      if (isZeroBlockId(v.blockId))
        return { blockIdFlag: BlockIDFlag.Nil, validatorAddress: v.validatorAddress, timestamp: v.timestamp, signature: v.signature }
      if (!blockIdEquals(v.blockId, maj23)) return absentCommitSig()
      return { blockIdFlag: BlockIDFlag.Commit, validatorAddress: v.validatorAddress, timestamp: v.timestamp, signature: v.signature }
    })
    return { height: this.height, round: this.round, blockId: maj23, signatures }
  }
}

/** `CommitToVoteSet`: rebuilds the precommit set of a stored commit (LastCommit after a restart); throws if a vote does not add. */
export function voteSetFromCommit(chainId: string, commit: Commit, valSet: ValidatorSet): VoteSet {
  const set = new VoteSet(chainId, commit.height, commit.round, SignedMsgType.Precommit, valSet)
  for (let i = 0; i < commit.signatures.length; i++) {
    if (commit.signatures[i]!.blockIdFlag === BlockIDFlag.Absent) continue
    const vote = commitVote(commit, i)
    if (!set.addVote(vote)) throw new Error(`failed to reconstruct vote set from commit: duplicate vote ${i}`)
  }
  return set
}
