/**
 * What peers tell each other besides the state-changing messages: where they are (`NewRoundStep`) and
 * which votes they hold (`HasVote`), so a vote is not sent to a peer that has it (CometBFT's consensus
 * reactor bookkeeping). Encoded as the same `tendermint.consensus.Message` oneof as messages.ts
 * (new_round_step = 1, has_vote = 7); these never enter the state machine or the WAL.
 */
import { ProtoReader, ProtoWriter } from '../comet/proto.js'
import { SignedMsgType } from '../comet/types.js'
import { decodeConsensusMessage, encodeConsensusMessage, type ConsensusMessage } from './messages.js'
import { isRoundStep, type RoundStep } from './round-step.js'

/** `NewRoundStepMessage`: sent on every step transition. */
export interface NewRoundStepMessage {
  type: 'newRoundStep'
  height: number
  round: number
  step: RoundStep
  /** Seconds since the height's start time (CometBFT's field; informational here). */
  secondsSinceStartTime: number
  /** Round of the precommits that committed the previous block (-1 at the first height). */
  lastCommitRound: number
}

/** `HasVoteMessage`: the sender has the vote of validator `index` for (height, round, type). */
export interface HasVoteMessage {
  type: 'hasVote'
  height: number
  round: number
  voteType: typeof SignedMsgType.Prevote | typeof SignedMsgType.Precommit
  index: number
}

export type GossipMessage = ConsensusMessage | NewRoundStepMessage | HasVoteMessage

const Field = { newRoundStep: 1, hasVote: 7 } as const

export function encodeGossipMessage(msg: GossipMessage): Uint8Array {
  switch (msg.type) {
    case 'newRoundStep':
      return new ProtoWriter()
        .message(
          Field.newRoundStep,
          new ProtoWriter()
            .int(1, msg.height)
            .int(2, msg.round)
            .uint(3, msg.step)
            .int(4, msg.secondsSinceStartTime)
            .int(5, msg.lastCommitRound)
            .finish(),
        )
        .finish()
    case 'hasVote':
      return new ProtoWriter()
        .message(Field.hasVote, new ProtoWriter().int(1, msg.height).int(2, msg.round).int(3, msg.voteType).int(4, msg.index).finish())
        .finish()
    default:
      return encodeConsensusMessage(msg)
  }
}

/** Decodes any message a peer may send; throws on malformed bytes or values out of range. */
export function decodeGossipMessage(bytes: Uint8Array): GossipMessage {
  const r = new ProtoReader(bytes)
  if (!r.next()) throw new Error('consensus message: empty')
  if (r.field === Field.newRoundStep) return decodeNewRoundStep(r.bytes())
  if (r.field === Field.hasVote) return decodeHasVote(r.bytes())
  return decodeConsensusMessage(bytes)
}

function decodeNewRoundStep(bytes: Uint8Array): NewRoundStepMessage {
  const r = new ProtoReader(bytes)
  const m: NewRoundStepMessage = { type: 'newRoundStep', height: 0, round: 0, step: 1, secondsSinceStartTime: 0, lastCommitRound: 0 }
  let step = 0
  while (r.next()) {
    if (r.field === 1) m.height = r.int64Number()
    else if (r.field === 2) m.round = r.int32()
    else if (r.field === 3) step = r.uint32()
    else if (r.field === 4) m.secondsSinceStartTime = r.int64Number()
    else if (r.field === 5) m.lastCommitRound = r.int32()
    else r.skip()
  }
  if (!isRoundStep(step)) throw new Error(`new round step: invalid step ${step}`)
  if (m.height < 0 || m.round < 0 || m.lastCommitRound < -1) throw new Error('new round step: negative height or round')
  m.step = step
  return m
}

function decodeHasVote(bytes: Uint8Array): HasVoteMessage {
  const r = new ProtoReader(bytes)
  let height = 0
  let round = 0
  let voteType = 0
  let index = 0
  while (r.next()) {
    if (r.field === 1) height = r.int64Number()
    else if (r.field === 2) round = r.int32()
    else if (r.field === 3) voteType = r.int32()
    else if (r.field === 4) index = r.int32()
    else r.skip()
  }
  if (voteType !== SignedMsgType.Prevote && voteType !== SignedMsgType.Precommit) throw new Error(`has vote: invalid type ${voteType}`)
  if (height < 0 || round < 0 || index < 0) throw new Error('has vote: negative height, round or index')
  return { type: 'hasVote', height, round, voteType, index }
}
