/** CometBFT v0.38 hashes: `Header.Hash` and the data, commit, results, evidence and params hashes it covers. */
import { sha256 } from '../crypto/index.js'
import { encodeBlockId, encodeCommitSig, encodeConsensusVersion, encodeEvidence, encodeTimestamp } from './encoding.js'
import { merkleRoot } from './merkle.js'
import { ProtoWriter } from './proto.js'
import type { Block, Commit, DuplicateVoteEvidence, Header } from './types.js'
import type { ConsensusParams, ExecTxResult } from '../abci/types.js'

/** `Header.Hash()`: Merkle root of the 14 wrapped fields; empty when validatorsHash is empty. */
export function hashHeader(header: Header): Uint8Array {
  if (header.validatorsHash.length === 0) return new Uint8Array(0)
  // `cdcEncode` wraps scalars in gogo `StringValue`/`Int64Value`/`BytesValue` (value = field 1); empty → empty leaf.
  const bytesValue = (b: Uint8Array): Uint8Array => new ProtoWriter().bytes(1, b).finish()
  return merkleRoot([
    encodeConsensusVersion(header.version),
    new ProtoWriter().string(1, header.chainId).finish(),
    new ProtoWriter().int(1, header.height).finish(),
    encodeTimestamp(header.time),
    encodeBlockId(header.lastBlockId),
    bytesValue(header.lastCommitHash),
    bytesValue(header.dataHash),
    bytesValue(header.validatorsHash),
    bytesValue(header.nextValidatorsHash),
    bytesValue(header.consensusHash),
    bytesValue(header.appHash),
    bytesValue(header.lastResultsHash),
    bytesValue(header.evidenceHash),
    bytesValue(header.proposerAddress),
  ])
}

/** `Commit.Hash()`: Merkle root over the protobuf of each CommitSig. */
export function hashCommit(commit: Commit): Uint8Array {
  return merkleRoot(commit.signatures.map(encodeCommitSig))
}

/** `Data.Hash()`: Merkle root over SHA256(tx) of each tx. */
export function hashData(txs: Uint8Array[]): Uint8Array {
  return merkleRoot(txs.map(hashTx))
}

/** `ConsensusParams.Hash()`: SHA-256 of HashedParams{block_max_bytes, block_max_gas}. */
export function hashConsensusParams(params: ConsensusParams): Uint8Array {
  return sha256(new ProtoWriter().int(1, params.block.maxBytes).int(2, params.block.maxGas).finish())
}

/** `TxResultsHash`: Merkle root over each ExecTxResult cut to {code, data, gas_wanted, gas_used}. */
export function hashTxResults(results: ExecTxResult[]): Uint8Array {
  return merkleRoot(results.map((r) => new ProtoWriter().uint(1, r.code).bytes(2, r.data).int(5, r.gasWanted).int(6, r.gasUsed).finish()))
}

/** `EvidenceList.Hash()`: Merkle root over the concrete evidence protobuf of each item. */
export function hashEvidence(evidence: DuplicateVoteEvidence[]): Uint8Array {
  return merkleRoot(evidence.map(encodeEvidence))
}

/** Consensus tx hash: SHA-256 of the tx bytes. */
export function hashTx(tx: Uint8Array): Uint8Array {
  return sha256(tx)
}

/** Fills in the block's derived header hashes (data, last commit, evidence) — used when building a proposal. */
export function fillHeaderHashes(block: Block): void {
  block.header.dataHash = hashData(block.txs)
  block.header.lastCommitHash = hashCommit(block.lastCommit)
  block.header.evidenceHash = hashEvidence(block.evidence)
}
