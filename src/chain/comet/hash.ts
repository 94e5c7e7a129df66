/** CometBFT v0.38 hashes (shared/reference/cometbft-hashing.md §2–§3). */
import type { Block, Commit, ConsensusParams, DuplicateVoteEvidence, ExecTxResult, Header } from './types.js'

/** `Header.Hash()`: Merkle root of the 14 wrapped fields; empty when validatorsHash is empty. */
export function hashHeader(header: Header): Uint8Array {
  throw new Error('not implemented')
}

/** `Commit.Hash()`: Merkle root over the protobuf of each CommitSig. */
export function hashCommit(commit: Commit): Uint8Array {
  throw new Error('not implemented')
}

/** `Data.Hash()`: Merkle root over SHA256(tx) of each tx. */
export function hashData(txs: Uint8Array[]): Uint8Array {
  throw new Error('not implemented')
}

/** `ConsensusParams.Hash()`: SHA-256 of HashedParams{block_max_bytes, block_max_gas}. */
export function hashConsensusParams(params: ConsensusParams): Uint8Array {
  throw new Error('not implemented')
}

/** `TxResultsHash`: Merkle root over each ExecTxResult cut to {code, data, gas_wanted, gas_used}. */
export function hashTxResults(results: ExecTxResult[]): Uint8Array {
  throw new Error('not implemented')
}

/** `EvidenceList.Hash()`. */
export function hashEvidence(evidence: DuplicateVoteEvidence[]): Uint8Array {
  throw new Error('not implemented')
}

/** Consensus tx hash: SHA-256 of the tx bytes. */
export function hashTx(tx: Uint8Array): Uint8Array {
  throw new Error('not implemented')
}

/** Fills in the block's derived header hashes (data, last commit, evidence) — used when building a proposal. */
export function fillHeaderHashes(block: Block): void {
  throw new Error('not implemented')
}
