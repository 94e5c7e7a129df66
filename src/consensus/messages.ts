/**
 * Consensus messages that change state: a proposal, one block part, a vote. Encoded as CometBFT's
 * `tendermint.consensus.Message` oneof (proposal = 3, block_part = 5, vote = 6), so the WAL and the p2p
 * layer carry the same bytes a CometBFT reactor would.
 */
import { decodePart, decodeProposal, decodeVote, encodePart, encodeProposal, encodeVote } from '../comet/encoding.js'
import type { Part } from '../comet/types.js'
import { ProtoReader, ProtoWriter } from '../comet/proto.js'
import type { Proposal, Vote } from '../comet/types.js'

export type ConsensusMessage =
  | { type: 'proposal'; proposal: Proposal }
  | { type: 'blockPart'; height: number; round: number; part: Part }
  | { type: 'vote'; vote: Vote }

/** Field numbers of the `Message` oneof (proto/tendermint/consensus/types.proto). */
const MessageField = { proposal: 3, blockPart: 5, vote: 6 } as const

export function encodeConsensusMessage(msg: ConsensusMessage): Uint8Array {
  const w = new ProtoWriter()
  switch (msg.type) {
    case 'proposal':
      w.message(MessageField.proposal, new ProtoWriter().message(1, encodeProposal(msg.proposal)).finish())
      break
    case 'blockPart':
      w.message(MessageField.blockPart, new ProtoWriter().int(1, msg.height).int(2, msg.round).message(3, encodePart(msg.part)).finish())
      break
    case 'vote':
      w.message(MessageField.vote, new ProtoWriter().message(1, encodeVote(msg.vote)).finish())
      break
  }
  return w.finish()
}

/** Decodes a `Message`; throws on other oneof members (this node neither sends nor needs them here). */
export function decodeConsensusMessage(bytes: Uint8Array): ConsensusMessage {
  const r = new ProtoReader(bytes)
  let out: ConsensusMessage | undefined
  while (r.next()) {
    switch (r.field) {
      case MessageField.proposal: {
        const inner = new ProtoReader(r.bytes())
        while (inner.next()) {
          if (inner.field === 1) out = { type: 'proposal', proposal: decodeProposal(inner.bytes()) }
          else inner.skip()
        }
        if (!out) throw new Error('consensus message: proposal is missing')
        break
      }
      case MessageField.blockPart: {
        const inner = new ProtoReader(r.bytes())
        let height = 0
        let round = 0
        let part: Part | undefined
        while (inner.next()) {
          if (inner.field === 1) height = inner.int64Number()
          else if (inner.field === 2) round = inner.int32()
          else if (inner.field === 3) part = decodePart(inner.bytes())
          else inner.skip()
        }
        if (!part) throw new Error('consensus message: block part is missing')
        out = { type: 'blockPart', height, round, part }
        break
      }
      case MessageField.vote: {
        const inner = new ProtoReader(r.bytes())
        while (inner.next()) {
          if (inner.field === 1) out = { type: 'vote', vote: decodeVote(inner.bytes()) }
          else inner.skip()
        }
        if (!out) throw new Error('consensus message: vote is missing')
        break
      }
      default:
        throw new Error(`consensus message: unsupported message field ${r.field}`)
    }
  }
  if (!out) throw new Error('consensus message: empty')
  return out
}

/** Height and round a message is for (routing, buffering of early messages). */
export function messageHeightRound(msg: ConsensusMessage): { height: number; round: number } {
  switch (msg.type) {
    case 'proposal':
      return { height: msg.proposal.height, round: msg.proposal.round }
    case 'blockPart':
      return { height: msg.height, round: msg.round }
    case 'vote':
      return { height: msg.vote.height, round: msg.vote.round }
  }
}
