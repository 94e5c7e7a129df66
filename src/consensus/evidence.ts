/**
 * The rules of DuplicateVoteEvidence (CometBFT v0.38 `types/evidence.go`, `evidence/verify.go`): shape
 * checks, building evidence from two conflicting votes, verification against the validator set of the
 * infraction height, expiry, the ABCI `Misbehavior` form and the byte size an evidence list takes in a block.
 * The pool (evidence-pool.ts) applies them against the stored chain.
 */
import { uvarintSize } from '../comet/proto.js'
import { encodeEvidence } from '../comet/encoding.js'
import { blockIdEquals, blockIdKey } from '../comet/part-set.js'
import { voteSignBytes } from '../comet/sign-bytes.js'
import { SignedMsgType, type DuplicateVoteEvidence, type Vote } from '../comet/types.js'
import type { ConsensusParams } from '../abci/types.js'
import { validatorAddress, type ValidatorSet } from '../comet/validator-set.js'
import { ed25519Verify } from '../crypto/index.js'
import { bytesToUpperHex, equalBytes } from '../primitives/hex.js'
import { formatRfc3339Nano, fromNanos, toNanos, type Timestamp } from '../utils/time.js'
import { MisbehaviorType, type Misbehavior } from '../abci/application.js'
import { validateVoteBasic } from './vote-set.js'

/**
 * Evidence that is refused: the message is CometBFT's `ErrInvalidEvidence` text, `Invalid evidence: <reason>`
 * (CometBFT appends `. Evidence: <ev.String()>`, left out here: the caller has the evidence it sent).
 */
export class InvalidEvidenceError extends Error {
  constructor(readonly reason: string) {
    super(`Invalid evidence: ${reason}`)
    this.name = 'InvalidEvidenceError'
  }
}

/** Go's `%v` of a `SignedMsgType` (the protobuf enum name). */
function typeName(type: number): string {
  return type === SignedMsgType.Prevote
    ? 'SIGNED_MSG_TYPE_PREVOTE'
    : type === SignedMsgType.Precommit
      ? 'SIGNED_MSG_TYPE_PRECOMMIT'
      : String(type)
}

/** `DuplicateVoteEvidence.ValidateBasic`: both votes well formed, vote A's BlockID key sorting first. */
export function validateEvidenceBasic(ev: DuplicateVoteEvidence): void {
  for (const [name, vote] of [
    ['VoteA', ev.voteA],
    ['VoteB', ev.voteB],
  ] as const) {
    try {
      validateVoteBasic(vote)
    } catch (err) {
      throw new Error(`invalid ${name}: ${(err as Error).message}`)
    }
  }
  if (blockIdKey(ev.voteA.blockId) >= blockIdKey(ev.voteB.blockId)) throw new Error('duplicate votes in invalid order')
}

/**
 * `NewDuplicateVoteEvidence`: orders the two votes by BlockID key, takes the validator's power and the
 * set's total from `valSet` (the set of the votes' height) and `blockTime` (the time of the block at that height).
 */
export function newDuplicateVoteEvidence(vote1: Vote, vote2: Vote, blockTime: Timestamp, valSet: ValidatorSet): DuplicateVoteEvidence {
  const found = valSet.getByAddress(vote1.validatorAddress)
  if (!found) throw new Error(`validator ${bytesToUpperHex(vote1.validatorAddress)} not in validator set`)
  const [voteA, voteB] = blockIdKey(vote1.blockId) < blockIdKey(vote2.blockId) ? [vote1, vote2] : [vote2, vote1]
  return { voteA, voteB, totalVotingPower: valSet.totalVotingPower(), validatorPower: found.validator.votingPower, timestamp: blockTime }
}

/**
 * `VerifyDuplicateVote` with the ABCI checks: the validator is in `valSet` (the set at the evidence
 * height), both votes are for the same height/round/type by the same validator and for different
 * BlockIDs, the powers match the set, and both signatures verify over the vote sign bytes with `chainId`.
 */
export function verifyDuplicateVote(ev: DuplicateVoteEvidence, chainId: string, valSet: ValidatorSet): void {
  const { voteA: a, voteB: b } = ev
  const found = valSet.getByAddress(a.validatorAddress)
  if (!found) throw new Error(`address ${bytesToUpperHex(a.validatorAddress)} was not a validator at height ${a.height}`)
  const val = found.validator
  if (a.height !== b.height || a.round !== b.round || a.type !== b.type) {
    throw new Error(`h/r/s does not match: ${a.height}/${a.round}/${typeName(a.type)} vs ${b.height}/${b.round}/${typeName(b.type)}`)
  }
  if (!equalBytes(a.validatorAddress, b.validatorAddress)) {
    throw new Error(`validator addresses do not match: ${bytesToUpperHex(a.validatorAddress)} vs ${bytesToUpperHex(b.validatorAddress)}`)
  }
  if (blockIdEquals(a.blockId, b.blockId))
    throw new Error(`block IDs are the same (${bytesToUpperHex(a.blockId.hash)}) - not a real duplicate vote`)
  if (!equalBytes(validatorAddress(val.pubKey), a.validatorAddress))
    throw new Error(`address (${bytesToUpperHex(a.validatorAddress)}) doesn't match pubkey`)
  if (val.votingPower !== ev.validatorPower) {
    throw new Error(`validator power from evidence and our validator set does not match (${ev.validatorPower} != ${val.votingPower})`)
  }
  const total = valSet.totalVotingPower()
  if (total !== ev.totalVotingPower)
    throw new Error(`total voting power from the evidence and our validator set does not match (${ev.totalVotingPower} != ${total})`)
  if (!ed25519Verify(val.pubKey, voteSignBytes(chainId, a), a.signature)) throw new Error('verifying VoteA: invalid signature')
  if (!ed25519Verify(val.pubKey, voteSignBytes(chainId, b), b.signature)) throw new Error('verifying VoteB: invalid signature')
}

/** `IsEvidenceExpired`: expired only when BOTH the age in blocks and the age in time exceed the params. */
export function isEvidenceExpired(
  heightNow: number,
  timeNow: Timestamp,
  heightEv: number,
  timeEv: Timestamp,
  params: ConsensusParams['evidence'],
): boolean {
  const ageNs = toNanos(timeNow) - toNanos(timeEv)
  return ageNs > params.maxAgeDurationNs && BigInt(heightNow - heightEv) > params.maxAgeNumBlocks
}

/** The text CometBFT gives for expired evidence. */
export function expiredMessage(
  ev: DuplicateVoteEvidence,
  heightNow: number,
  timeNow: Timestamp,
  params: ConsensusParams['evidence'],
): string {
  const minHeight = BigInt(heightNow) - params.maxAgeNumBlocks
  const notOlder = fromNanos(toNanos(timeNow) + params.maxAgeDurationNs)
  return `evidence from height ${ev.voteA.height} (created at: ${formatRfc3339Nano(ev.timestamp)}) is too old; min height is ${minHeight} and evidence can not be older than ${formatRfc3339Nano(notOlder)}`
}

/** `DuplicateVoteEvidence.ABCI()`. */
export function evidenceMisbehavior(ev: DuplicateVoteEvidence): Misbehavior {
  return {
    type: MisbehaviorType.DuplicateVote,
    validator: { address: ev.voteA.validatorAddress, power: ev.validatorPower },
    height: ev.voteA.height,
    time: ev.timestamp,
    totalVotingPower: ev.totalVotingPower,
  }
}

/**
 * Bytes one evidence adds to `EvidenceList` (`EvidenceList{evidence=1 repeated Evidence{duplicate_vote_evidence=1}}`)
 * given the length of its concrete protobuf: two length-delimited wrappers with one-byte tags.
 */
export function evidenceListEntrySize(evidenceBytes: number): number {
  const inner = 1 + uvarintSize(evidenceBytes) + evidenceBytes
  return 1 + uvarintSize(inner) + inner
}

/** `EvidenceData.ByteSize()`: the protobuf size of the block's evidence list. */
export function evidenceListSize(list: DuplicateVoteEvidence[]): number {
  let n = 0
  for (const ev of list) n += evidenceListEntrySize(encodeEvidence(ev).length)
  return n
}
