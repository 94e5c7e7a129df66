/**
 * CometBFT v0.38 data types (`types/block.go`, `types/vote.go`, …) as plain objects.
 * Heights are JS numbers (safe to 2^53); voting powers and priorities are bigint (int64 arithmetic).
 * Hashes and addresses are raw bytes; JSON encodings live in the RPC layer.
 */
import type { Timestamp } from '../utils/time.js'
import type { BlockIDFlag } from '../abci/types.js'
import type { MerkleProof } from './merkle.js'

export interface PartSetHeader {
  total: number
  hash: Uint8Array
}

/** `types.Part`: one chunk of the block bytes with its proof against the part set hash. */
export interface Part {
  index: number
  bytes: Uint8Array
  proof: MerkleProof
}

/** `hash` is the header hash; the zero BlockID (nil vote) has empty hash, total 0 and empty psh hash. */
export interface BlockID {
  hash: Uint8Array
  partSetHeader: PartSetHeader
}

export interface ConsensusVersion {
  /** Block protocol: 11 in v0.38. */
  block: bigint
  app: bigint
}

export interface Header {
  version: ConsensusVersion
  chainId: string
  height: number
  time: Timestamp
  lastBlockId: BlockID
  lastCommitHash: Uint8Array
  dataHash: Uint8Array
  validatorsHash: Uint8Array
  nextValidatorsHash: Uint8Array
  consensusHash: Uint8Array
  appHash: Uint8Array
  lastResultsHash: Uint8Array
  evidenceHash: Uint8Array
  proposerAddress: Uint8Array
}

export interface CommitSig {
  blockIdFlag: BlockIDFlag
  /** Empty for ABSENT. */
  validatorAddress: Uint8Array
  /** Go zero time for ABSENT. */
  timestamp: Timestamp
  /** Empty for ABSENT. */
  signature: Uint8Array
}

export interface Commit {
  height: number
  round: number
  blockId: BlockID
  signatures: CommitSig[]
}

/** Only DuplicateVoteEvidence is produced by this node. */
export interface DuplicateVoteEvidence {
  voteA: Vote
  voteB: Vote
  totalVotingPower: bigint
  validatorPower: bigint
  timestamp: Timestamp
}

export interface Block {
  header: Header
  /** Raw signed EVM transactions (the same bytes eth_sendRawTransaction takes). */
  txs: Uint8Array[]
  evidence: DuplicateVoteEvidence[]
  /** The commit of the previous height; the empty commit (height 0) at the initial height. */
  lastCommit: Commit
}

export const SignedMsgType = { Unknown: 0, Prevote: 1, Precommit: 2, Proposal: 32 } as const
export type SignedMsgType = (typeof SignedMsgType)[keyof typeof SignedMsgType]

export interface Vote {
  type: typeof SignedMsgType.Prevote | typeof SignedMsgType.Precommit
  height: number
  round: number
  /** Zero BlockID = a vote for nil. */
  blockId: BlockID
  timestamp: Timestamp
  validatorAddress: Uint8Array
  validatorIndex: number
  signature: Uint8Array
}

export interface Proposal {
  height: number
  round: number
  /** -1 when there is no proof-of-lock round. */
  polRound: number
  blockId: BlockID
  timestamp: Timestamp
  signature: Uint8Array
}

export interface Validator {
  /** SHA-256(pubKey)[:20]. */
  address: Uint8Array
  /** ed25519 public key, 32 bytes. */
  pubKey: Uint8Array
  votingPower: bigint
  proposerPriority: bigint
}

/** Block sizes and limits (CometBFT `types/params.go`, `types/part_set.go`). */
export const BLOCK_PART_SIZE_BYTES = 65536
export const BLOCK_PROTOCOL_VERSION = 11n
export const MAX_TOTAL_VOTING_POWER = 1152921504606846975n
