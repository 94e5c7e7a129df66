/**
 * Protobuf encodings of CometBFT types (proto/tendermint/**), used for block bytes (part sets), the WAL,
 * the block store and the p2p wire. Round-trips exactly: decode(encode(x)) deep-equals x.
 * Field numbers are those of CometBFT v0.38's .proto files; gogoproto `nullable=false` messages are always
 * written (even empty), nullable ones left out when absent (see proto.ts for the scalar rules).
 */
import type { Timestamp } from '../utils/time.js'
import type { MerkleProof } from './merkle.js'
import { ProtoReader, ProtoWriter } from './proto.js'
import {
  SignedMsgType,
  type Block,
  type BlockID,
  type Commit,
  type CommitSig,
  type ConsensusVersion,
  type DuplicateVoteEvidence,
  type Header,
  type Part,
  type PartSetHeader,
  type Proposal,
  type Vote,
} from './types.js'
import { BlockIDFlag } from '../abci/types.js'

// ---- Timestamp, version, BlockID ----

/** `google.protobuf.Timestamp`: seconds=1 int64, nanos=2 int32, zeros left out. */
export function encodeTimestamp(t: Timestamp): Uint8Array {
  return new ProtoWriter().int(1, t.seconds).int(2, t.nanos).finish()
}

/** Inverse of `encodeTimestamp` (absent fields are zero). */
export function decodeTimestamp(bytes: Uint8Array): Timestamp {
  const t: Timestamp = { seconds: 0, nanos: 0 }
  const r = new ProtoReader(bytes)
  while (r.next()) {
    if (r.field === 1) t.seconds = r.int64Number()
    else if (r.field === 2) t.nanos = r.int32()
    else r.skip()
  }
  return t
}

/** `tendermint.version.Consensus`: block=1, app=2 (uint64). */
export function encodeConsensusVersion(v: ConsensusVersion): Uint8Array {
  return new ProtoWriter().uint(1, v.block).uint(2, v.app).finish()
}

function decodeConsensusVersion(bytes: Uint8Array): ConsensusVersion {
  const v: ConsensusVersion = { block: 0n, app: 0n }
  const r = new ProtoReader(bytes)
  while (r.next()) {
    if (r.field === 1) v.block = r.uint64()
    else if (r.field === 2) v.app = r.uint64()
    else r.skip()
  }
  return v
}

/** `PartSetHeader`: total=1 uint32, hash=2. */
export function encodePartSetHeader(psh: PartSetHeader): Uint8Array {
  return new ProtoWriter().uint(1, psh.total).bytes(2, psh.hash).finish()
}

function decodePartSetHeader(bytes: Uint8Array): PartSetHeader {
  const psh: PartSetHeader = { total: 0, hash: new Uint8Array(0) }
  const r = new ProtoReader(bytes)
  while (r.next()) {
    if (r.field === 1) psh.total = r.uint32()
    else if (r.field === 2) psh.hash = r.bytes()
    else r.skip()
  }
  return psh
}

/** `BlockID`: hash=1, part_set_header=2 (non-nullable, always emitted). Same layout as CanonicalBlockID. */
export function encodeBlockId(blockId: BlockID): Uint8Array {
  return new ProtoWriter().bytes(1, blockId.hash).message(2, encodePartSetHeader(blockId.partSetHeader)).finish()
}

/** Inverse of `encodeBlockId`; empty bytes give the zero BlockID. */
export function decodeBlockId(bytes: Uint8Array): BlockID {
  const id: BlockID = { hash: new Uint8Array(0), partSetHeader: { total: 0, hash: new Uint8Array(0) } }
  const r = new ProtoReader(bytes)
  while (r.next()) {
    if (r.field === 1) id.hash = r.bytes()
    else if (r.field === 2) id.partSetHeader = decodePartSetHeader(r.bytes())
    else r.skip()
  }
  return id
}

// ---- Header ----

/** `tendermint.types.Header`; version, time and last_block_id are always emitted. */
export function encodeHeader(header: Header): Uint8Array {
  return new ProtoWriter()
    .message(1, encodeConsensusVersion(header.version))
    .string(2, header.chainId)
    .int(3, header.height)
    .message(4, encodeTimestamp(header.time))
    .message(5, encodeBlockId(header.lastBlockId))
    .bytes(6, header.lastCommitHash)
    .bytes(7, header.dataHash)
    .bytes(8, header.validatorsHash)
    .bytes(9, header.nextValidatorsHash)
    .bytes(10, header.consensusHash)
    .bytes(11, header.appHash)
    .bytes(12, header.lastResultsHash)
    .bytes(13, header.evidenceHash)
    .bytes(14, header.proposerAddress)
    .finish()
}

/** Inverse of `encodeHeader`. */
export function decodeHeader(bytes: Uint8Array): Header {
  const empty = (): Uint8Array => new Uint8Array(0)
  const h: Header = {
    version: { block: 0n, app: 0n },
    chainId: '',
    height: 0,
    time: { seconds: 0, nanos: 0 },
    lastBlockId: decodeBlockId(empty()),
    lastCommitHash: empty(),
    dataHash: empty(),
    validatorsHash: empty(),
    nextValidatorsHash: empty(),
    consensusHash: empty(),
    appHash: empty(),
    lastResultsHash: empty(),
    evidenceHash: empty(),
    proposerAddress: empty(),
  }
  const r = new ProtoReader(bytes)
  while (r.next()) {
    switch (r.field) {
      case 1:
        h.version = decodeConsensusVersion(r.bytes())
        break
      case 2:
        h.chainId = r.string()
        break
      case 3:
        h.height = r.int64Number()
        break
      case 4:
        h.time = decodeTimestamp(r.bytes())
        break
      case 5:
        h.lastBlockId = decodeBlockId(r.bytes())
        break
      case 6:
        h.lastCommitHash = r.bytes()
        break
      case 7:
        h.dataHash = r.bytes()
        break
      case 8:
        h.validatorsHash = r.bytes()
        break
      case 9:
        h.nextValidatorsHash = r.bytes()
        break
      case 10:
        h.consensusHash = r.bytes()
        break
      case 11:
        h.appHash = r.bytes()
        break
      case 12:
        h.lastResultsHash = r.bytes()
        break
      case 13:
        h.evidenceHash = r.bytes()
        break
      case 14:
        h.proposerAddress = r.bytes()
        break
      default:
        r.skip()
    }
  }
  return h
}

// ---- Commit ----

/** `CommitSig`: block_id_flag=1, validator_address=2, timestamp=3 (always), signature=4. */
export function encodeCommitSig(sig: CommitSig): Uint8Array {
  return new ProtoWriter()
    .uint(1, sig.blockIdFlag)
    .bytes(2, sig.validatorAddress)
    .message(3, encodeTimestamp(sig.timestamp))
    .bytes(4, sig.signature)
    .finish()
}

function decodeCommitSig(bytes: Uint8Array): CommitSig {
  let flag = 0
  const sig: Omit<CommitSig, 'blockIdFlag'> = {
    validatorAddress: new Uint8Array(0),
    timestamp: { seconds: 0, nanos: 0 },
    signature: new Uint8Array(0),
  }
  const r = new ProtoReader(bytes)
  while (r.next()) {
    switch (r.field) {
      case 1:
        flag = r.uint32()
        break
      case 2:
        sig.validatorAddress = r.bytes()
        break
      case 3:
        sig.timestamp = decodeTimestamp(r.bytes())
        break
      case 4:
        sig.signature = r.bytes()
        break
      default:
        r.skip()
    }
  }
  return { blockIdFlag: toBlockIdFlag(flag), ...sig }
}

/** `Commit`: height=1 int64, round=2 int32, block_id=3 (always), signatures=4 (repeated, non-nullable). */
export function encodeCommit(commit: Commit): Uint8Array {
  const w = new ProtoWriter().int(1, commit.height).int(2, commit.round).message(3, encodeBlockId(commit.blockId))
  for (const sig of commit.signatures) w.message(4, encodeCommitSig(sig))
  return w.finish()
}

/** Inverse of `encodeCommit`; empty bytes give the empty commit. */
export function decodeCommit(bytes: Uint8Array): Commit {
  const c: Commit = { height: 0, round: 0, blockId: decodeBlockId(new Uint8Array(0)), signatures: [] }
  const r = new ProtoReader(bytes)
  while (r.next()) {
    switch (r.field) {
      case 1:
        c.height = r.int64Number()
        break
      case 2:
        c.round = r.int32()
        break
      case 3:
        c.blockId = decodeBlockId(r.bytes())
        break
      case 4:
        c.signatures.push(decodeCommitSig(r.bytes()))
        break
      default:
        r.skip()
    }
  }
  return c
}

// ---- Vote, Proposal ----

/** `Vote` fields 1–8: type, height, round, block_id (always), timestamp (always), address, index, signature. */
export function encodeVote(vote: Vote): Uint8Array {
  return new ProtoWriter()
    .uint(1, vote.type)
    .int(2, vote.height)
    .int(3, vote.round)
    .message(4, encodeBlockId(vote.blockId))
    .message(5, encodeTimestamp(vote.timestamp))
    .bytes(6, vote.validatorAddress)
    .int(7, vote.validatorIndex)
    .bytes(8, vote.signature)
    .finish()
}

/** Decodes a `Vote`; the extension fields (9, 10) are not kept (extensions are disabled). */
export function decodeVote(bytes: Uint8Array): Vote {
  let type = 0
  const v: Omit<Vote, 'type'> = {
    height: 0,
    round: 0,
    blockId: decodeBlockId(new Uint8Array(0)),
    timestamp: { seconds: 0, nanos: 0 },
    validatorAddress: new Uint8Array(0),
    validatorIndex: 0,
    signature: new Uint8Array(0),
  }
  const r = new ProtoReader(bytes)
  while (r.next()) {
    switch (r.field) {
      case 1:
        type = r.uint32()
        break
      case 2:
        v.height = r.int64Number()
        break
      case 3:
        v.round = r.int32()
        break
      case 4:
        v.blockId = decodeBlockId(r.bytes())
        break
      case 5:
        v.timestamp = decodeTimestamp(r.bytes())
        break
      case 6:
        v.validatorAddress = r.bytes()
        break
      case 7:
        v.validatorIndex = r.int32()
        break
      case 8:
        v.signature = r.bytes()
        break
      default:
        r.skip()
    }
  }
  if (type !== SignedMsgType.Prevote && type !== SignedMsgType.Precommit) throw new Error(`invalid vote type ${type}`)
  return { type, ...v }
}

/** `Proposal` (wire): type=1 (always 32), height=2, round=3, pol_round=4 int32, block_id=5, timestamp=6, signature=7. */
export function encodeProposal(proposal: Proposal): Uint8Array {
  return new ProtoWriter()
    .uint(1, SignedMsgType.Proposal)
    .int(2, proposal.height)
    .int(3, proposal.round)
    .int(4, proposal.polRound)
    .message(5, encodeBlockId(proposal.blockId))
    .message(6, encodeTimestamp(proposal.timestamp))
    .bytes(7, proposal.signature)
    .finish()
}

/** Inverse of `encodeProposal`; throws unless type is PROPOSAL (32). */
export function decodeProposal(bytes: Uint8Array): Proposal {
  let type = 0
  const p: Proposal = {
    height: 0,
    round: 0,
    polRound: 0,
    blockId: decodeBlockId(new Uint8Array(0)),
    timestamp: { seconds: 0, nanos: 0 },
    signature: new Uint8Array(0),
  }
  const r = new ProtoReader(bytes)
  while (r.next()) {
    switch (r.field) {
      case 1:
        type = r.uint32()
        break
      case 2:
        p.height = r.int64Number()
        break
      case 3:
        p.round = r.int32()
        break
      case 4:
        p.polRound = r.int32()
        break
      case 5:
        p.blockId = decodeBlockId(r.bytes())
        break
      case 6:
        p.timestamp = decodeTimestamp(r.bytes())
        break
      case 7:
        p.signature = r.bytes()
        break
      default:
        r.skip()
    }
  }
  if (type !== SignedMsgType.Proposal) throw new Error(`invalid proposal type ${type}`)
  return p
}

// ---- Evidence ----

/** `DuplicateVoteEvidence` (the concrete message, as `ev.Bytes()`): vote_a=1, vote_b=2, powers 3/4, timestamp=5. */
export function encodeEvidence(ev: DuplicateVoteEvidence): Uint8Array {
  return new ProtoWriter()
    .message(1, encodeVote(ev.voteA))
    .message(2, encodeVote(ev.voteB))
    .int(3, ev.totalVotingPower)
    .int(4, ev.validatorPower)
    .message(5, encodeTimestamp(ev.timestamp))
    .finish()
}

/** Inverse of `encodeEvidence`; both votes are required. */
export function decodeEvidence(bytes: Uint8Array): DuplicateVoteEvidence {
  let voteA: Vote | undefined
  let voteB: Vote | undefined
  let totalVotingPower = 0n
  let validatorPower = 0n
  let timestamp: Timestamp = { seconds: 0, nanos: 0 }
  const r = new ProtoReader(bytes)
  while (r.next()) {
    switch (r.field) {
      case 1:
        voteA = decodeVote(r.bytes())
        break
      case 2:
        voteB = decodeVote(r.bytes())
        break
      case 3:
        totalVotingPower = r.int64()
        break
      case 4:
        validatorPower = r.int64()
        break
      case 5:
        timestamp = decodeTimestamp(r.bytes())
        break
      default:
        r.skip()
    }
  }
  if (!voteA || !voteB) throw new Error('duplicate vote evidence without both votes')
  return { voteA, voteB, totalVotingPower, validatorPower, timestamp }
}

/** `EvidenceList{evidence=1 repeated Evidence}`, each in the `Evidence` oneof (duplicate_vote_evidence=1). */
function encodeEvidenceList(list: DuplicateVoteEvidence[]): Uint8Array {
  const w = new ProtoWriter()
  for (const ev of list) w.message(1, new ProtoWriter().message(1, encodeEvidence(ev)).finish())
  return w.finish()
}

function decodeEvidenceList(bytes: Uint8Array): DuplicateVoteEvidence[] {
  const out: DuplicateVoteEvidence[] = []
  const r = new ProtoReader(bytes)
  while (r.next()) {
    if (r.field !== 1) {
      r.skip()
      continue
    }
    const e = new ProtoReader(r.bytes())
    while (e.next()) {
      if (e.field === 1) out.push(decodeEvidence(e.bytes()))
      else if (e.field === 2) throw new Error('light client attack evidence is not supported')
      else e.skip()
    }
  }
  return out
}

// ---- Block ----

/** `Block{header=1, data=2 {txs=1}, evidence=3, last_commit=4}`; 1–3 always emitted, last_commit always set here. */
export function encodeBlock(block: Block): Uint8Array {
  const data = new ProtoWriter()
  for (const tx of block.txs) data.lenDelimited(1, tx)
  return new ProtoWriter()
    .message(1, encodeHeader(block.header))
    .message(2, data.finish())
    .message(3, encodeEvidenceList(block.evidence))
    .message(4, encodeCommit(block.lastCommit))
    .finish()
}

/** The `index`-th tx of an encoded block, read without decoding the rest (undefined past the end). */
export function decodeBlockTx(bytes: Uint8Array, index: number): Uint8Array | undefined {
  const r = new ProtoReader(bytes)
  while (r.next()) {
    if (r.field !== 2) {
      r.skip()
      continue
    }
    const d = new ProtoReader(r.bytes())
    let i = 0
    while (d.next()) {
      if (d.field !== 1) d.skip()
      else if (i++ === index) return d.bytes()
      else d.skip()
    }
    return undefined
  }
  return undefined
}

/** Inverse of `encodeBlock`; throws on light-client-attack evidence, which this node does not handle. */
export function decodeBlock(bytes: Uint8Array): Block {
  let header: Header | undefined
  const txs: Uint8Array[] = []
  let evidence: DuplicateVoteEvidence[] = []
  let lastCommit: Commit | undefined
  const r = new ProtoReader(bytes)
  while (r.next()) {
    switch (r.field) {
      case 1:
        header = decodeHeader(r.bytes())
        break
      case 2: {
        const d = new ProtoReader(r.bytes())
        while (d.next()) {
          if (d.field === 1) txs.push(d.bytes())
          else d.skip()
        }
        break
      }
      case 3:
        evidence = decodeEvidenceList(r.bytes())
        break
      case 4:
        lastCommit = decodeCommit(r.bytes())
        break
      default:
        r.skip()
    }
  }
  if (!header) throw new Error('block without header')
  lastCommit ??= decodeCommit(new Uint8Array(0))
  return { header, txs, evidence, lastCommit }
}

// ---- Part ----

/** `tendermint.crypto.Proof`: total=1 int64, index=2 int64, leaf_hash=3, aunts=4 (repeated bytes). */
function encodeProof(proof: MerkleProof): Uint8Array {
  const w = new ProtoWriter().int(1, proof.total).int(2, proof.index).bytes(3, proof.leafHash)
  for (const aunt of proof.aunts) w.lenDelimited(4, aunt)
  return w.finish()
}

function decodeProof(bytes: Uint8Array): MerkleProof {
  const p: MerkleProof = { total: 0, index: 0, leafHash: new Uint8Array(0), aunts: [] }
  const r = new ProtoReader(bytes)
  while (r.next()) {
    switch (r.field) {
      case 1:
        p.total = r.int64Number()
        break
      case 2:
        p.index = r.int64Number()
        break
      case 3:
        p.leafHash = r.bytes()
        break
      case 4:
        p.aunts.push(r.bytes())
        break
      default:
        r.skip()
    }
  }
  return p
}

/** `Part{index=1 uint32, bytes=2, proof=3 (always)}` (the BlockPart gossip message body). */
export function encodePart(part: Part): Uint8Array {
  return new ProtoWriter().uint(1, part.index).bytes(2, part.bytes).message(3, encodeProof(part.proof)).finish()
}

/** Inverse of `encodePart` (check the result with `verifyPart`). */
export function decodePart(bytes: Uint8Array): Part {
  const part: Part = { index: 0, bytes: new Uint8Array(0), proof: decodeProof(new Uint8Array(0)) }
  const r = new ProtoReader(bytes)
  while (r.next()) {
    switch (r.field) {
      case 1:
        part.index = r.uint32()
        break
      case 2:
        part.bytes = r.bytes()
        break
      case 3:
        part.proof = decodeProof(r.bytes())
        break
      default:
        r.skip()
    }
  }
  return part
}

function toBlockIdFlag(flag: number): BlockIDFlag {
  if (flag === BlockIDFlag.Absent || flag === BlockIDFlag.Commit || flag === BlockIDFlag.Nil) return flag
  throw new Error(`unknown BlockIDFlag ${flag}`)
}
