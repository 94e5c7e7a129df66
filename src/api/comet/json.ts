/**
 * cmtjson encoders of the chain types (CometBFT `libs/json`, as the v0.38 routes return them): int64
 * as decimal strings, int32/uint32 as numbers, `[]byte` as base64 (nil → null), `HexBytes` as
 * upper-case hex, times as RFC3339Nano in UTC, public keys as typed Amino objects.
 * ABCI types (jsonpb) are in json-abci.ts, consensus round state in json-round-state.ts.
 */
import { bytesToBase64, bytesToUpperHex } from '../../primitives/hex.js'
import { formatRfc3339Nano, type Timestamp } from '../../utils/time.js'
import type { BlockMeta } from '../../comet/block-store.js'
import type { MerkleProof } from '../../comet/merkle.js'
import type { Block, BlockID, Commit, CommitSig, DuplicateVoteEvidence, Header, Proposal, Validator, Vote } from '../../comet/types.js'
import type { ConsensusParams } from '../../abci/types.js'
import { RawJson, type JsonObject } from './wire-json.js'

export {
  encodeAbciInfo,
  encodeAbciQuery,
  encodeCheckTx,
  encodeConsensusParamUpdates,
  encodeEvent,
  encodeExecTxResult,
  encodeValidatorUpdate,
} from './json-abci.js'

/** Amino names of the public key types (`crypto/ed25519`, `crypto/secp256k1`). */
export const PUBKEY_TYPE_ED25519 = 'tendermint/PubKeyEd25519'
export const PUBKEY_TYPE_SECP256K1 = 'tendermint/PubKeySecp256k1'
/** Amino name of the only evidence type this node produces. */
export const EVIDENCE_TYPE_DUPLICATE_VOTE = 'tendermint/DuplicateVoteEvidence'
/** A compressed secp256k1 key is 33 bytes; ed25519 keys are 32. */
const SECP256K1_PUBKEY_SIZE = 33

/** int64/uint64/int: a decimal string. */
export function encodeInt64(v: bigint | number): string {
  return typeof v === 'number' ? Math.trunc(v).toString() : v.toString()
}

/** `bytes.HexBytes`: upper-case hex without 0x; empty → "". */
export function encodeHexBytes(b: Uint8Array): string {
  return bytesToUpperHex(b)
}

/** `[]byte`: standard padded base64; empty (a nil slice after protobuf decoding) → null. */
export function encodeBytes(b: Uint8Array): string | null {
  return b.length === 0 ? null : bytesToBase64(b)
}

/** `time.Time`: RFC3339Nano in UTC, trailing zero nanos trimmed. */
export function encodeTime(t: Timestamp): string {
  return formatRfc3339Nano(t)
}

/** A typed Amino public key `{"type":"tendermint/PubKeyEd25519","value":"<b64>"}`. */
export function encodePubKey(pubKey: Uint8Array): JsonObject {
  const type = pubKey.length === SECP256K1_PUBKEY_SIZE ? PUBKEY_TYPE_SECP256K1 : PUBKEY_TYPE_ED25519
  return { type, value: bytesToBase64(pubKey) }
}

/** `types.BlockID`; the zero BlockID is `{"hash":"","parts":{"total":0,"hash":""}}`. */
export function encodeBlockId(id: BlockID): JsonObject {
  return { hash: encodeHexBytes(id.hash), parts: { total: id.partSetHeader.total, hash: encodeHexBytes(id.partSetHeader.hash) } }
}

/** `types.Header`; `version.app` is omitted when 0 (`omitempty`). */
export function encodeHeader(h: Header): JsonObject {
  return {
    version: { block: encodeInt64(h.version.block), app: h.version.app === 0n ? undefined : encodeInt64(h.version.app) },
    chain_id: h.chainId,
    height: encodeInt64(h.height),
    time: encodeTime(h.time),
    last_block_id: encodeBlockId(h.lastBlockId),
    last_commit_hash: encodeHexBytes(h.lastCommitHash),
    data_hash: encodeHexBytes(h.dataHash),
    validators_hash: encodeHexBytes(h.validatorsHash),
    next_validators_hash: encodeHexBytes(h.nextValidatorsHash),
    consensus_hash: encodeHexBytes(h.consensusHash),
    app_hash: encodeHexBytes(h.appHash),
    last_results_hash: encodeHexBytes(h.lastResultsHash),
    evidence_hash: encodeHexBytes(h.evidenceHash),
    proposer_address: encodeHexBytes(h.proposerAddress),
  }
}

/** `types.CommitSig`: ABSENT → `validator_address:""`, zero time, `signature:null`. */
export function encodeCommitSig(sig: CommitSig): JsonObject {
  return {
    block_id_flag: sig.blockIdFlag,
    validator_address: encodeHexBytes(sig.validatorAddress),
    timestamp: encodeTime(sig.timestamp),
    signature: encodeBytes(sig.signature),
  }
}

/** `types.Commit`. */
export function encodeCommit(c: Commit): JsonObject {
  return {
    height: encodeInt64(c.height),
    round: c.round,
    block_id: encodeBlockId(c.blockId),
    signatures: c.signatures.map(encodeCommitSig),
  }
}

/** `types.Vote` (v0.38: with `extension` and `extension_signature`, null when absent). */
export function encodeVote(v: Vote): JsonObject {
  return {
    type: v.type,
    height: encodeInt64(v.height),
    round: v.round,
    block_id: encodeBlockId(v.blockId),
    timestamp: encodeTime(v.timestamp),
    validator_address: encodeHexBytes(v.validatorAddress),
    validator_index: v.validatorIndex,
    signature: encodeBytes(v.signature),
    extension: null,
    extension_signature: null,
  }
}

/** `types.Proposal` (type 32). */
export function encodeProposal(p: Proposal): JsonObject {
  return {
    type: 32,
    height: encodeInt64(p.height),
    round: p.round,
    pol_round: p.polRound,
    block_id: encodeBlockId(p.blockId),
    timestamp: encodeTime(p.timestamp),
    signature: encodeBytes(p.signature),
  }
}

/**
 * Typed `DuplicateVoteEvidence` as it appears in `block.evidence.evidence`, the NewEvidence event and
 * `broadcast_evidence`. Only the votes have json tags in Go (`vote_a`, `vote_b`); cmtjson names the
 * other fields after the Go fields: `TotalVotingPower` and `ValidatorPower` (int64 → strings), `Timestamp`.
 */
export function encodeEvidence(ev: DuplicateVoteEvidence): JsonObject {
  return {
    type: EVIDENCE_TYPE_DUPLICATE_VOTE,
    value: {
      vote_a: encodeVote(ev.voteA),
      vote_b: encodeVote(ev.voteB),
      TotalVotingPower: encodeInt64(ev.totalVotingPower),
      ValidatorPower: encodeInt64(ev.validatorPower),
      Timestamp: encodeTime(ev.timestamp),
    },
  }
}

/** `types.Block`: `data.txs` base64 (`[]` when empty), `evidence.evidence` (double nesting). */
export function encodeBlock(b: Block): JsonObject {
  return {
    header: encodeHeader(b.header),
    data: { txs: b.txs.map((tx) => bytesToBase64(tx)) },
    evidence: { evidence: b.evidence.map(encodeEvidence) },
    last_commit: encodeCommit(b.lastCommit),
  }
}

/** `types.BlockMeta`. */
export function encodeBlockMeta(m: BlockMeta): JsonObject {
  return {
    block_id: encodeBlockId(m.blockId),
    block_size: encodeInt64(m.blockSize),
    header: encodeHeader(m.header),
    num_txs: encodeInt64(m.numTxs),
  }
}

/** `types.Validator`. */
export function encodeValidator(v: Validator): JsonObject {
  return {
    address: encodeHexBytes(v.address),
    pub_key: encodePubKey(v.pubKey),
    voting_power: encodeInt64(v.votingPower),
    proposer_priority: encodeInt64(v.proposerPriority),
  }
}

/** `types.ConsensusParams` (the types form of `consensus_params` and genesis; every member present). */
export function encodeConsensusParams(p: ConsensusParams): JsonObject {
  return {
    block: { max_bytes: encodeInt64(p.block.maxBytes), max_gas: encodeInt64(p.block.maxGas) },
    evidence: {
      max_age_num_blocks: encodeInt64(p.evidence.maxAgeNumBlocks),
      max_age_duration: encodeInt64(p.evidence.maxAgeDurationNs),
      max_bytes: encodeInt64(p.evidence.maxBytes),
    },
    validator: { pub_key_types: [...p.validator.pubKeyTypes] },
    version: { app: encodeInt64(p.version.app) },
    abci: { vote_extensions_enable_height: encodeInt64(p.abci.voteExtensionsEnableHeight) },
  }
}

/**
 * `types.TxProof` {root_hash, data, proof{total, index, leaf_hash, aunts}}. CometBFT omits empty
 * `aunts` (`omitempty`), but cosmjs requires the array and throws on a one-tx block's proof; an
 * empty array decodes the same in Go, so nodectl always sends it.
 */
export function encodeTxProof(rootHash: Uint8Array, tx: Uint8Array, proof: MerkleProof): JsonObject {
  return {
    root_hash: encodeHexBytes(rootHash),
    data: bytesToBase64(tx),
    proof: {
      total: encodeInt64(proof.total),
      index: encodeInt64(proof.index),
      leaf_hash: bytesToBase64(proof.leafHash),
      aunts: proof.aunts.map((a) => bytesToBase64(a)),
    },
  }
}

/** Fields of a genesis document, for `encodeGenesisDoc`. */
export interface GenesisDocFields {
  genesisTime: Timestamp
  chainId: string
  initialHeight: number
  consensusParams?: ConsensusParams
  validators: { address: Uint8Array; pubKey: Uint8Array; power: bigint; name: string }[]
  appHash: Uint8Array
  /** `app_state` as JSON text; omitted when undefined or empty. */
  appStateJson?: string
}

/**
 * `types.GenesisDoc` as CometBFT serves it: `consensus_params` and `validators` omitted when absent
 * or empty, `app_state` raw. A backend can render its genesis with this for `genesisJson()`.
 */
export function encodeGenesisDoc(doc: GenesisDocFields): JsonObject {
  return {
    genesis_time: encodeTime(doc.genesisTime),
    chain_id: doc.chainId,
    initial_height: encodeInt64(doc.initialHeight),
    consensus_params: doc.consensusParams ? encodeConsensusParams(doc.consensusParams) : undefined,
    validators:
      doc.validators.length === 0
        ? undefined
        : doc.validators.map((v) => ({
            address: encodeHexBytes(v.address),
            pub_key: encodePubKey(v.pubKey),
            power: encodeInt64(v.power),
            name: v.name,
          })),
    app_hash: encodeHexBytes(doc.appHash),
    app_state: doc.appStateJson ? new RawJson(doc.appStateJson) : undefined,
  }
}
