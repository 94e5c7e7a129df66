/** Sign bytes of votes and proposals: MarshalDelimited(CanonicalVote / CanonicalProposal). */
import type { Proposal, Vote } from './types.js'

export function voteSignBytes(chainId: string, vote: Vote): Uint8Array {
  throw new Error('not implemented')
}

export function proposalSignBytes(chainId: string, proposal: Proposal): Uint8Array {
  throw new Error('not implemented')
}
