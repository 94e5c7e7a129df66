/**
 * JSON of the consensus round state for `consensus_state` (CometBFT `RoundStateSimple`) and
 * `dump_consensus_state` (`RoundState`), including CometBFT's human-readable vote strings
 * (`Vote{0:A1B2C3D4E5F6 5/00/SIGNED_MSG_TYPE_PREVOTE(Prevote) 0E2D4C1B7B2F …}`) and bit arrays
 * (`BA{4:xxx_} 30/40 = 0.75`) from `types/vote.go` and `libs/bits`.
 */
import { bytesToUpperHex } from '../../primitives/hex.js'
import type { Timestamp } from '../../utils/time.js'
import { hashHeader } from '../../comet/hash.js'
import { SignedMsgType, type Block, type Validator, type Vote } from '../../comet/types.js'
import type { ValidatorSet } from '../../comet/validator-set.js'
import type { PartSetProgress, RoundStateSummary, RoundVotes } from '../../consensus/state-machine.js'
import type { PeerRoundState } from '../../consensus/peer-state.js'
import { encodeBlock, encodeHexBytes, encodeInt64, encodeProposal, encodeTime, encodeValidator } from './json.js'
import type { Json, JsonObject } from './wire-json.js'

/** `cmtbytes.Fingerprint`: the first 6 bytes, zero-padded. */
const FINGERPRINT_SIZE = 6

function fingerprint(b: Uint8Array): string {
  const out = new Uint8Array(FINGERPRINT_SIZE)
  out.set(b.subarray(0, FINGERPRINT_SIZE))
  return bytesToUpperHex(out)
}

/** `CanonicalTime`: RFC3339 with exactly 9 fractional digits, UTC. */
function canonicalTime(t: Timestamp): string {
  const base = encodeTime({ seconds: t.seconds, nanos: 0 }).slice(0, -1)
  return `${base}.${String(t.nanos).padStart(9, '0')}Z`
}

/** `Vote.String()`; a missing vote is `nil-Vote`. */
export function formatVote(v: Vote | undefined): string {
  if (!v) return 'nil-Vote'
  const [typeName, typeString] =
    v.type === SignedMsgType.Prevote ? ['SIGNED_MSG_TYPE_PREVOTE', 'Prevote'] : ['SIGNED_MSG_TYPE_PRECOMMIT', 'Precommit']
  return (
    `Vote{${v.validatorIndex}:${fingerprint(v.validatorAddress)} ${v.height}/${String(v.round).padStart(2, '0')}/${typeName}(${typeString}) ` +
    `${fingerprint(v.blockId.hash)} ${fingerprint(v.signature)} ${fingerprint(new Uint8Array(0))} @ ${canonicalTime(v.timestamp)}}`
  )
}

/** `BitArray.String()`: `BA{<bits>:<x or _ per bit>}`. */
export function formatBitArray(bits: boolean[]): string {
  return `BA{${bits.length}:${bits.map((b) => (b ? 'x' : '_')).join('')}}`
}

/** `VoteSet.BitArrayString()`: bit array, then voted power / total power = fraction (2 decimals). */
export function formatVoteSetBits(votes: (Vote | undefined)[], set: ValidatorSet): string {
  const bits = set.validators.map((_, i) => votes[i] !== undefined)
  let voted = 0n
  set.validators.forEach((v, i) => {
    if (votes[i]) voted += v.votingPower
  })
  const total = set.totalVotingPower()
  const frac = total === 0n ? 0 : Number(voted) / Number(total)
  return `${formatBitArray(bits)} ${voted}/${total} = ${frac.toFixed(2)}`
}

function voteStrings(votes: (Vote | undefined)[], set: ValidatorSet): string[] {
  return set.validators.map((_, i) => formatVote(votes[i]))
}

/** `HeightVoteSet.MarshalJSON`: one entry per round with vote strings and bit arrays. */
export function encodeHeightVoteSet(rounds: RoundVotes[], set: ValidatorSet): Json[] {
  return rounds.map((r) => ({
    round: r.round,
    prevotes: voteStrings(r.prevotes, set),
    prevotes_bit_array: formatVoteSetBits(r.prevotes, set),
    precommits: voteStrings(r.precommits, set),
    precommits_bit_array: formatVoteSetBits(r.precommits, set),
  }))
}

/** `Block.Hash()` as HexBytes; a missing block hashes to "". */
function blockHash(b: Block | undefined): string {
  return b ? encodeHexBytes(hashHeader(b.header)) : ''
}

/** `RoundStateSimple` (the `round_state` of `consensus_state`). */
export function encodeRoundStateSimple(rs: RoundStateSummary): JsonObject {
  let proposer: { address: string; index: number } = { address: '', index: -1 }
  if (rs.validators.size > 0) {
    const p = rs.validators.getProposer()
    proposer = { address: encodeHexBytes(p.address), index: rs.validators.getByAddress(p.address)?.index ?? -1 }
  }
  return {
    'height/round/step': `${rs.height}/${rs.round}/${rs.step}`,
    start_time: encodeTime(rs.startTime),
    proposal_block_hash: blockHash(rs.proposalBlock),
    locked_block_hash: blockHash(rs.lockedBlock),
    valid_block_hash: blockHash(rs.validBlock),
    height_vote_set: encodeHeightVoteSet(rs.votes, rs.validators),
    proposer,
  }
}

/** `ValidatorSet` JSON: validators and proposer (total power is unexported in Go). */
export function encodeValidatorSet(set: ValidatorSet | undefined): JsonObject | null {
  if (!set) return null
  const proposer: Validator | undefined = set.size > 0 ? set.getProposer() : undefined
  return { validators: set.validators.map(encodeValidator), proposer: proposer ? encodeValidator(proposer) : null }
}

/** `PartSet.MarshalJSON`: `{"count/total":"1/1","parts_bit_array":"x"}`. */
function encodePartSet(p: PartSetProgress | undefined): JsonObject | null {
  if (!p) return null
  return { 'count/total': `${p.count}/${p.total}`, parts_bit_array: p.have.map((b) => (b ? 'x' : '_')).join('') }
}

/** The full `RoundState` (the `round_state` of `dump_consensus_state`). */
export function encodeRoundState(rs: RoundStateSummary): JsonObject {
  const block = (b: Block | undefined): JsonObject | null => (b ? encodeBlock(b) : null)
  return {
    height: encodeInt64(rs.height),
    round: rs.round,
    step: rs.step,
    start_time: encodeTime(rs.startTime),
    commit_time: encodeTime(rs.commitTime),
    validators: encodeValidatorSet(rs.validators),
    proposal: rs.proposal ? encodeProposal(rs.proposal) : null,
    proposal_block: block(rs.proposalBlock),
    proposal_block_parts: encodePartSet(rs.proposalBlockParts),
    locked_round: rs.lockedRound,
    locked_block: block(rs.lockedBlock),
    locked_block_parts: encodePartSet(rs.lockedBlockParts),
    valid_round: rs.validRound,
    valid_block: block(rs.validBlock),
    valid_block_parts: encodePartSet(rs.validBlockParts),
    votes: encodeHeightVoteSet(rs.votes, rs.validators),
    commit_round: rs.commitRound,
    last_commit:
      rs.lastCommit && rs.lastValidators
        ? {
            votes: voteStrings(rs.lastCommit, rs.lastValidators),
            votes_bit_array: formatVoteSetBits(rs.lastCommit, rs.lastValidators),
            peer_maj_23s: {},
          }
        : null,
    last_validators: encodeValidatorSet(rs.lastValidators),
    triggered_timeout_precommit: rs.triggeredTimeoutPrecommit,
  }
}

/** `bits.BitArray` as JSON: one `x` or `_` per bit. */
function bitArrayJson(set: readonly number[], size: number): string {
  const bits = new Array<string>(size).fill('_')
  for (const i of set) if (i < size) bits[i] = 'x'
  return bits.join('')
}

/**
 * `PeerState` JSON (`consensus/reactor.go`): the peer's round state as it announced it, with the votes it
 * is known to hold as bit arrays over the `validators` set, and what it sent us (`stats`).
 */
export function encodePeerState(prs: PeerRoundState, validators: number): JsonObject {
  return {
    round_state: {
      height: encodeInt64(prs.height),
      round: prs.round,
      step: prs.step,
      start_time: encodeTime(timestampOf(prs.startTime)),
      proposal: prs.proposal,
      proposal_block_part_set_header: { total: 0, hash: '' },
      proposal_block_parts: null,
      proposal_pol_round: -1,
      proposal_pol: null,
      prevotes: bitArrayJson(prs.prevotes, validators),
      precommits: bitArrayJson(prs.precommits, validators),
      last_commit_round: prs.lastCommitRound,
      last_commit: prs.lastCommitRound >= 0 ? bitArrayJson(prs.lastCommit, validators) : null,
      catchup_commit_round: -1,
      catchup_commit: null,
    },
    stats: { votes: encodeInt64(prs.stats.votes), block_parts: encodeInt64(prs.stats.blockParts) },
  }
}

function timestampOf(date: Date): Timestamp {
  const ms = date.getTime()
  return { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1_000_000 }
}
