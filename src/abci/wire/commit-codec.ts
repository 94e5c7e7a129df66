/**
 * What a block request tells the application about votes and evidence: `CommitInfo{round=1, votes=2}` of
 * `VoteInfo{validator=1, block_id_flag=3}`; PrepareProposal's `ExtendedCommitInfo`, whose
 * `ExtendedVoteInfo{validator=1, vote_extension=3, extension_signature=4, block_id_flag=5}` also carries the
 * vote extensions (not kept: the application does not use them); `Validator{address=1, power=3}`; and
 * `Misbehavior{type=1, validator=2, height=3, time=4, total_voting_power=5}`.
 */
import { ProtoReader, ProtoWriter } from '../../primitives/protobuf.js'
import { type CommitInfo, type Misbehavior, MisbehaviorType, type VoteInfo } from '../application.js'
import { BlockIDFlag } from '../types.js'
import { decodeTimestamp, encodeTimestamp, readEnum } from './scalars.js'

/** The field of `block_id_flag` in `VoteInfo` and in `ExtendedVoteInfo`. */
const VOTE_FLAG_FIELD = { plain: 3, extended: 5 } as const
type VoteKind = keyof typeof VOTE_FLAG_FIELD

export function encodeCommitInfo(c: CommitInfo, kind: VoteKind = 'plain'): Uint8Array {
  const w = new ProtoWriter().int(1, c.round)
  for (const v of c.votes) {
    const vote = new ProtoWriter().message(1, encodeValidator(v.validatorAddress, v.power)).uint(VOTE_FLAG_FIELD[kind], v.blockIdFlag)
    w.message(2, vote.finish())
  }
  return w.finish()
}

export function decodeCommitInfo(body: Uint8Array, kind: VoteKind = 'plain'): CommitInfo {
  const c: CommitInfo = { round: 0, votes: [] }
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) c.round = r.int32()
    else if (r.field === 2) c.votes.push(decodeVoteInfo(r.bytes(), VOTE_FLAG_FIELD[kind]))
    else r.skip()
  }
  return c
}

function decodeVoteInfo(body: Uint8Array, flagField: number): VoteInfo {
  const v: VoteInfo = { validatorAddress: new Uint8Array(), power: 0n, blockIdFlag: BlockIDFlag.Absent }
  let flag: BlockIDFlag | undefined
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) {
      const validator = decodeValidator(r.bytes())
      v.validatorAddress = validator.address
      v.power = validator.power
    } else if (r.field === flagField) flag = readEnum(r, BlockIDFlag, 'block_id_flag')
    else r.skip()
  }
  if (flag === undefined) throw new Error('ABCI: vote without a block_id_flag')
  v.blockIdFlag = flag
  return v
}

function encodeValidator(address: Uint8Array, power: bigint): Uint8Array {
  return new ProtoWriter().bytes(1, address).int(3, power).finish()
}

function decodeValidator(body: Uint8Array): { address: Uint8Array; power: bigint } {
  const v: { address: Uint8Array; power: bigint } = { address: new Uint8Array(), power: 0n }
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) v.address = r.bytes()
    else if (r.field === 3) v.power = r.int64()
    else r.skip()
  }
  return v
}

export function encodeMisbehavior(m: Misbehavior): Uint8Array {
  return new ProtoWriter()
    .uint(1, m.type)
    .message(2, encodeValidator(m.validator.address, m.validator.power))
    .int(3, m.height)
    .message(4, encodeTimestamp(m.time))
    .int(5, m.totalVotingPower)
    .finish()
}

export function decodeMisbehavior(body: Uint8Array): Misbehavior {
  const m: Misbehavior = {
    type: MisbehaviorType.Unknown,
    validator: { address: new Uint8Array(), power: 0n },
    height: 0,
    time: { seconds: 0, nanos: 0 },
    totalVotingPower: 0n,
  }
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) m.type = readEnum(r, MisbehaviorType, 'misbehavior type')
    else if (r.field === 2) m.validator = decodeValidator(r.bytes())
    else if (r.field === 3) m.height = r.int64Number()
    else if (r.field === 4) m.time = decodeTimestamp(r.bytes())
    else if (r.field === 5) m.totalVotingPower = r.int64()
    else r.skip()
  }
  return m
}
