/**
 * `tendermint.abci.Request` (CometBFT v0.38): the oneof case numbers and each request's payload. The server
 * decodes what CometBFT sends; the encoder serves tests and clients.
 */
import { ProtoReader, ProtoWriter } from '../../primitives/protobuf.js'
import type {
  CheckTxType,
  CommitInfo,
  FinalizeBlockRequest,
  InitChainRequest,
  Misbehavior,
  PrepareProposalRequest,
  ProcessProposalRequest,
  QueryRequest,
} from '../application.js'
import type { Timestamp } from '../../utils/time.js'
import { decodeCommitInfo, decodeMisbehavior, encodeCommitInfo, encodeMisbehavior } from './commit-codec.js'
import type {
  AbciRequest,
  ApplySnapshotChunkRequest,
  ExtendVoteRequest,
  InfoRequest,
  LoadSnapshotChunkRequest,
  OfferSnapshotRequest,
  RequestPayloads,
  VerifyVoteExtensionRequest,
} from './messages.js'
import { type CaseCodec, OneofCodec } from './oneof.js'
import { decodeConsensusParams, encodeConsensusParams, zeroConsensusParams } from './params-codec.js'
import { decodeValidatorUpdate, encodeValidatorUpdate } from './result-codec.js'
import { decodeTimestamp, encodeTimestamp } from './scalars.js'
import { decodeSnapshot, encodeSnapshot } from './snapshot-codec.js'

/** `CheckTxType`: NEW = 0, RECHECK = 1. */
const CHECK_TX_TYPES: readonly CheckTxType[] = ['new', 'recheck']

/** A request with no fields (flush, commit, list_snapshots). */
function emptyCase(field: number): CaseCodec<Record<string, never>> {
  return { field, encode: () => new Uint8Array(), decode: () => ({}) }
}

const echo: CaseCodec<{ message: string }> = {
  field: 1,
  encode: (v) => new ProtoWriter().string(1, v.message).finish(),
  decode: (body) => {
    const v = { message: '' }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 1) v.message = r.string()
      else r.skip()
    }
    return v
  },
}

const info: CaseCodec<InfoRequest> = {
  field: 3,
  encode: (v) => new ProtoWriter().string(1, v.version).uint(2, v.blockVersion).uint(3, v.p2pVersion).string(4, v.abciVersion).finish(),
  decode: (body) => {
    const v: InfoRequest = { version: '', blockVersion: 0n, p2pVersion: 0n, abciVersion: '' }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 1) v.version = r.string()
      else if (r.field === 2) v.blockVersion = r.uint64()
      else if (r.field === 3) v.p2pVersion = r.uint64()
      else if (r.field === 4) v.abciVersion = r.string()
      else r.skip()
    }
    return v
  },
}

const initChain: CaseCodec<InitChainRequest> = {
  field: 5,
  encode: (v) => {
    const w = new ProtoWriter()
      .message(1, encodeTimestamp(v.time))
      .string(2, v.chainId)
      .message(3, encodeConsensusParams(v.consensusParams))
    for (const u of v.validators) w.message(4, encodeValidatorUpdate(u))
    return w.bytes(5, v.appStateBytes).int(6, v.initialHeight).finish()
  },
  decode: (body) => {
    const v: InitChainRequest = {
      time: { seconds: 0, nanos: 0 },
      chainId: '',
      consensusParams: zeroConsensusParams(),
      validators: [],
      appStateBytes: new Uint8Array(),
      initialHeight: 0,
    }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 1) v.time = decodeTimestamp(r.bytes())
      else if (r.field === 2) v.chainId = r.string()
      else if (r.field === 3) v.consensusParams = { ...zeroConsensusParams(), ...decodeConsensusParams(r.bytes()) }
      else if (r.field === 4) v.validators.push(decodeValidatorUpdate(r.bytes()))
      else if (r.field === 5) v.appStateBytes = r.bytes()
      else if (r.field === 6) v.initialHeight = r.int64Number()
      else r.skip()
    }
    return v
  },
}

const query: CaseCodec<QueryRequest> = {
  field: 6,
  encode: (v) =>
    new ProtoWriter()
      .bytes(1, v.data)
      .string(2, v.path)
      .int(3, v.height)
      .uint(4, v.prove ? 1 : 0)
      .finish(),
  decode: (body) => {
    const v: QueryRequest = { data: new Uint8Array(), path: '', height: 0, prove: false }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 1) v.data = r.bytes()
      else if (r.field === 2) v.path = r.string()
      else if (r.field === 3) v.height = r.int64Number()
      else if (r.field === 4) v.prove = r.uint64() !== 0n
      else r.skip()
    }
    return v
  },
}

const checkTx: CaseCodec<{ tx: Uint8Array; type: CheckTxType }> = {
  field: 8,
  encode: (v) => new ProtoWriter().bytes(1, v.tx).uint(2, CHECK_TX_TYPES.indexOf(v.type)).finish(),
  decode: (body) => {
    const v: { tx: Uint8Array; type: CheckTxType } = { tx: new Uint8Array(), type: 'new' }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 1) v.tx = r.bytes()
      else if (r.field === 2) {
        const type = CHECK_TX_TYPES[r.uint32()]
        if (type === undefined) throw new Error('ABCI: invalid CheckTx type')
        v.type = type
      } else r.skip()
    }
    return v
  },
}

const offerSnapshot: CaseCodec<OfferSnapshotRequest> = {
  field: 13,
  encode: (v) => {
    const w = new ProtoWriter()
    if (v.snapshot) w.message(1, encodeSnapshot(v.snapshot))
    return w.bytes(2, v.appHash).finish()
  },
  decode: (body) => {
    const v: OfferSnapshotRequest = { appHash: new Uint8Array() }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 1) v.snapshot = decodeSnapshot(r.bytes())
      else if (r.field === 2) v.appHash = r.bytes()
      else r.skip()
    }
    return v
  },
}

const loadSnapshotChunk: CaseCodec<LoadSnapshotChunkRequest> = {
  field: 14,
  encode: (v) => new ProtoWriter().uint(1, v.height).uint(2, v.format).uint(3, v.chunk).finish(),
  decode: (body) => {
    const v: LoadSnapshotChunkRequest = { height: 0n, format: 0, chunk: 0 }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 1) v.height = r.uint64()
      else if (r.field === 2) v.format = r.uint32()
      else if (r.field === 3) v.chunk = r.uint32()
      else r.skip()
    }
    return v
  },
}

const applySnapshotChunk: CaseCodec<ApplySnapshotChunkRequest> = {
  field: 15,
  encode: (v) => new ProtoWriter().uint(1, v.index).bytes(2, v.chunk).string(3, v.sender).finish(),
  decode: (body) => {
    const v: ApplySnapshotChunkRequest = { index: 0, chunk: new Uint8Array(), sender: '' }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 1) v.index = r.uint32()
      else if (r.field === 2) v.chunk = r.bytes()
      else if (r.field === 3) v.sender = r.string()
      else r.skip()
    }
    return v
  },
}

/**
 * The fields PrepareProposal, ProcessProposal and FinalizeBlock share, at the numbers the latter two use:
 * txs=1, commit=2, misbehavior=3, hash=4, height=5, time=6, next_validators_hash=7, proposer_address=8.
 */
interface BlockRequest {
  txs: Uint8Array[]
  commit: CommitInfo
  misbehavior: Misbehavior[]
  hash: Uint8Array
  height: number
  time: Timestamp
  nextValidatorsHash: Uint8Array
  proposerAddress: Uint8Array
}

function encodeBlockRequest(v: BlockRequest): Uint8Array {
  const w = new ProtoWriter()
  for (const tx of v.txs) w.lenDelimited(1, tx)
  w.message(2, encodeCommitInfo(v.commit))
  for (const m of v.misbehavior) w.message(3, encodeMisbehavior(m))
  return w
    .bytes(4, v.hash)
    .int(5, v.height)
    .message(6, encodeTimestamp(v.time))
    .bytes(7, v.nextValidatorsHash)
    .bytes(8, v.proposerAddress)
    .finish()
}

function decodeBlockRequest(body: Uint8Array): BlockRequest {
  const v: BlockRequest = {
    txs: [],
    commit: { round: 0, votes: [] },
    misbehavior: [],
    hash: new Uint8Array(),
    height: 0,
    time: { seconds: 0, nanos: 0 },
    nextValidatorsHash: new Uint8Array(),
    proposerAddress: new Uint8Array(),
  }
  const r = new ProtoReader(body)
  while (r.next()) {
    if (r.field === 1) v.txs.push(r.bytes())
    else if (r.field === 2) v.commit = decodeCommitInfo(r.bytes())
    else if (r.field === 3) v.misbehavior.push(decodeMisbehavior(r.bytes()))
    else if (r.field === 4) v.hash = r.bytes()
    else if (r.field === 5) v.height = r.int64Number()
    else if (r.field === 6) v.time = decodeTimestamp(r.bytes())
    else if (r.field === 7) v.nextValidatorsHash = r.bytes()
    else if (r.field === 8) v.proposerAddress = r.bytes()
    else r.skip()
  }
  return v
}

/**
 * PrepareProposal: max_tx_bytes=1, txs=2, local_last_commit=3 (an `ExtendedCommitInfo`), misbehavior=4,
 * then height..proposer_address at 5–8 as the other block requests.
 */
const prepareProposal: CaseCodec<PrepareProposalRequest> = {
  field: 16,
  encode: (v) => {
    const w = new ProtoWriter().int(1, v.maxTxBytes)
    for (const tx of v.txs) w.lenDelimited(2, tx)
    w.message(3, encodeCommitInfo(v.localLastCommit, 'extended'))
    for (const m of v.misbehavior ?? []) w.message(4, encodeMisbehavior(m))
    return w.int(5, v.height).message(6, encodeTimestamp(v.time)).bytes(7, v.nextValidatorsHash).bytes(8, v.proposerAddress).finish()
  },
  decode: (body) => {
    const v: PrepareProposalRequest = {
      maxTxBytes: 0,
      txs: [],
      localLastCommit: { round: 0, votes: [] },
      misbehavior: [],
      height: 0,
      time: { seconds: 0, nanos: 0 },
      nextValidatorsHash: new Uint8Array(),
      proposerAddress: new Uint8Array(),
    }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 1) v.maxTxBytes = r.int64Number()
      else if (r.field === 2) v.txs.push(r.bytes())
      else if (r.field === 3) v.localLastCommit = decodeCommitInfo(r.bytes(), 'extended')
      else if (r.field === 4) v.misbehavior!.push(decodeMisbehavior(r.bytes()))
      else if (r.field === 5) v.height = r.int64Number()
      else if (r.field === 6) v.time = decodeTimestamp(r.bytes())
      else if (r.field === 7) v.nextValidatorsHash = r.bytes()
      else if (r.field === 8) v.proposerAddress = r.bytes()
      else r.skip()
    }
    return v
  },
}

const processProposal: CaseCodec<ProcessProposalRequest> = {
  field: 17,
  encode: ({ proposedLastCommit, misbehavior, ...rest }) =>
    encodeBlockRequest({ ...rest, commit: proposedLastCommit, misbehavior: misbehavior ?? [] }),
  decode: (body) => {
    const { commit, ...rest } = decodeBlockRequest(body)
    return { ...rest, proposedLastCommit: commit }
  },
}

/** ExtendVote orders its fields differently: hash=1, height=2, time=3, txs=4, proposed_last_commit=5, misbehavior=6. */
const extendVote: CaseCodec<ExtendVoteRequest> = {
  field: 18,
  encode: (v) => {
    const w = new ProtoWriter().bytes(1, v.hash).int(2, v.height).message(3, encodeTimestamp(v.time))
    for (const tx of v.txs) w.lenDelimited(4, tx)
    w.message(5, encodeCommitInfo(v.proposedLastCommit))
    for (const m of v.misbehavior) w.message(6, encodeMisbehavior(m))
    return w.bytes(7, v.nextValidatorsHash).bytes(8, v.proposerAddress).finish()
  },
  decode: (body) => {
    const v: ExtendVoteRequest = {
      hash: new Uint8Array(),
      height: 0,
      time: { seconds: 0, nanos: 0 },
      txs: [],
      proposedLastCommit: { round: 0, votes: [] },
      misbehavior: [],
      nextValidatorsHash: new Uint8Array(),
      proposerAddress: new Uint8Array(),
    }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 1) v.hash = r.bytes()
      else if (r.field === 2) v.height = r.int64Number()
      else if (r.field === 3) v.time = decodeTimestamp(r.bytes())
      else if (r.field === 4) v.txs.push(r.bytes())
      else if (r.field === 5) v.proposedLastCommit = decodeCommitInfo(r.bytes())
      else if (r.field === 6) v.misbehavior.push(decodeMisbehavior(r.bytes()))
      else if (r.field === 7) v.nextValidatorsHash = r.bytes()
      else if (r.field === 8) v.proposerAddress = r.bytes()
      else r.skip()
    }
    return v
  },
}

const verifyVoteExtension: CaseCodec<VerifyVoteExtensionRequest> = {
  field: 19,
  encode: (v) => new ProtoWriter().bytes(1, v.hash).bytes(2, v.validatorAddress).int(3, v.height).bytes(4, v.voteExtension).finish(),
  decode: (body) => {
    const v: VerifyVoteExtensionRequest = {
      hash: new Uint8Array(),
      validatorAddress: new Uint8Array(),
      height: 0,
      voteExtension: new Uint8Array(),
    }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 1) v.hash = r.bytes()
      else if (r.field === 2) v.validatorAddress = r.bytes()
      else if (r.field === 3) v.height = r.int64Number()
      else if (r.field === 4) v.voteExtension = r.bytes()
      else r.skip()
    }
    return v
  },
}

/** FinalizeBlock's `blockSize` is our engine's addition, not on the wire. */
const finalizeBlock: CaseCodec<FinalizeBlockRequest> = {
  field: 20,
  encode: ({ decidedLastCommit, misbehavior, blockSize: _, ...rest }) =>
    encodeBlockRequest({ ...rest, commit: decidedLastCommit, misbehavior: misbehavior ?? [] }),
  decode: (body) => {
    const { commit, ...rest } = decodeBlockRequest(body)
    return { ...rest, decidedLastCommit: commit }
  },
}

const requestCodec = new OneofCodec<RequestPayloads>('Request', {
  echo,
  flush: emptyCase(2),
  info,
  initChain,
  query,
  checkTx,
  commit: emptyCase(11),
  listSnapshots: emptyCase(12),
  offerSnapshot,
  loadSnapshotChunk,
  applySnapshotChunk,
  prepareProposal,
  processProposal,
  extendVote,
  verifyVoteExtension,
  finalizeBlock,
})

/** The protobuf body of a `Request` (without the length prefix). */
export function encodeRequest(req: AbciRequest): Uint8Array {
  return requestCodec.encode(req)
}

/** Decodes a `Request` body; throws on malformed input or a request without a known method. */
export function decodeRequest(body: Uint8Array): AbciRequest {
  return requestCodec.decode(body)
}
