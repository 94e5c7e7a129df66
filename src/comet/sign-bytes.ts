/**
 * Sign bytes of votes and proposals: MarshalDelimited(CanonicalVote / CanonicalProposal)
 * (CometBFT `types/canonical.go`). Canonical height and round are sfixed64 and
 * left out when 0; the block id is left out for a nil (zero) BlockID; address, index and signature are not signed.
 */
import { encodeBlockId, encodeTimestamp } from './encoding.js'
import { isZeroBlockId } from './part-set.js'
import { marshalDelimited, ProtoWriter } from './proto.js'
import { SignedMsgType, type Proposal, type Vote } from './types.js'

/** `VoteSignBytes`: CanonicalVote{type, height, round, block_id (nil → left out), timestamp, chain_id}. */
export function voteSignBytes(chainId: string, vote: Vote): Uint8Array {
  const w = new ProtoWriter().uint(1, vote.type).sfixed64(2, vote.height).sfixed64(3, vote.round)
  if (!isZeroBlockId(vote.blockId)) w.message(4, encodeBlockId(vote.blockId))
  w.message(5, encodeTimestamp(vote.timestamp)).string(6, chainId)
  return marshalDelimited(w.finish())
}

/** `ProposalSignBytes`: CanonicalProposal{type 32, height, round, pol_round, block_id, timestamp, chain_id}. */
export function proposalSignBytes(chainId: string, proposal: Proposal): Uint8Array {
  const w = new ProtoWriter()
    .uint(1, SignedMsgType.Proposal)
    .sfixed64(2, proposal.height)
    .sfixed64(3, proposal.round)
    // pol_round is a plain int64 varint in CanonicalProposal: −1 takes 10 bytes.
    .int(4, proposal.polRound)
  if (!isZeroBlockId(proposal.blockId)) w.message(5, encodeBlockId(proposal.blockId))
  w.message(6, encodeTimestamp(proposal.timestamp)).string(7, chainId)
  return marshalDelimited(w.finish())
}
