/**
 * Protobuf encodings of CometBFT types (proto/tendermint/**), used for block bytes (part sets), the WAL,
 * the block store and the p2p wire. Round-trips exactly: decode(encode(x)) deep-equals x.
 */
import type { Block, Commit, Header, Proposal, Vote, BlockID, DuplicateVoteEvidence } from './types.js'

export function encodeHeader(header: Header): Uint8Array {
  throw new Error('not implemented')
}
export function decodeHeader(bytes: Uint8Array): Header {
  throw new Error('not implemented')
}
export function encodeBlock(block: Block): Uint8Array {
  throw new Error('not implemented')
}
export function decodeBlock(bytes: Uint8Array): Block {
  throw new Error('not implemented')
}
export function encodeCommit(commit: Commit): Uint8Array {
  throw new Error('not implemented')
}
export function decodeCommit(bytes: Uint8Array): Commit {
  throw new Error('not implemented')
}
export function encodeVote(vote: Vote): Uint8Array {
  throw new Error('not implemented')
}
export function decodeVote(bytes: Uint8Array): Vote {
  throw new Error('not implemented')
}
export function encodeProposal(proposal: Proposal): Uint8Array {
  throw new Error('not implemented')
}
export function decodeProposal(bytes: Uint8Array): Proposal {
  throw new Error('not implemented')
}
export function encodeBlockId(blockId: BlockID): Uint8Array {
  throw new Error('not implemented')
}
export function decodeBlockId(bytes: Uint8Array): BlockID {
  throw new Error('not implemented')
}
export function encodeEvidence(ev: DuplicateVoteEvidence): Uint8Array {
  throw new Error('not implemented')
}
