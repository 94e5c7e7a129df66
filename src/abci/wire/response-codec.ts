/**
 * `tendermint.abci.Response` (CometBFT v0.38): the oneof case numbers and each answer's payload. The server
 * encodes what the application answers; the decoder serves tests and clients.
 */
import { ProtoReader, ProtoWriter } from '../../primitives/protobuf.js'
import type { CheckTxResponse, FinalizeBlockResponse, InfoResponse, InitChainResponse, QueryResponse } from '../application.js'
import {
  type AbciResponse,
  ApplySnapshotChunkResult,
  OfferSnapshotResult,
  type ResponsePayloads,
  type Snapshot,
  VerdictStatus,
} from './messages.js'
import { type CaseCodec, OneofCodec } from './oneof.js'
import { decodeConsensusParams, encodeConsensusParams } from './params-codec.js'
import {
  decodeEvent,
  decodeProofOps,
  decodeTxResult,
  decodeValidatorUpdate,
  encodeEvent,
  encodeProofOps,
  encodeTxResult,
  encodeValidatorUpdate,
} from './result-codec.js'
import { readEnum } from './scalars.js'
import { decodeSnapshot, encodeSnapshot } from './snapshot-codec.js'

/** A response whose only field is one string at 1 (exception, echo). */
function stringCase(field: number): CaseCodec<string> {
  return {
    field,
    encode: (v) => new ProtoWriter().string(1, v).finish(),
    decode: (body) => {
      let v = ''
      const r = new ProtoReader(body)
      while (r.next()) {
        if (r.field === 1) v = r.string()
        else r.skip()
      }
      return v
    },
  }
}

/** A response whose only field is the enum `status`/`result` at 1. */
function enumCase<V extends number>(field: number, values: Record<string, V>, name: string): CaseCodec<V> {
  return {
    field,
    encode: (v) => new ProtoWriter().uint(1, v).finish(),
    decode: (body) => {
      let v = 0 as V
      const r = new ProtoReader(body)
      while (r.next()) {
        if (r.field === 1) v = readEnum(r, values, name)
        else r.skip()
      }
      return v
    },
  }
}

/** A response whose only field is one bytes value at 1 (load_snapshot_chunk, extend_vote). */
function bytesCase(field: number): CaseCodec<Uint8Array> {
  return {
    field,
    encode: (v) => new ProtoWriter().bytes(1, v).finish(),
    decode: (body) => {
      let v: Uint8Array = new Uint8Array()
      const r = new ProtoReader(body)
      while (r.next()) {
        if (r.field === 1) v = r.bytes()
        else r.skip()
      }
      return v
    },
  }
}

/** Wraps the payload codec of a one-field response into its object shape. */
function wrap<K extends string, T>(codec: CaseCodec<T>, key: K): CaseCodec<{ [P in K]: T }> {
  return {
    field: codec.field,
    encode: (v) => codec.encode(v[key]),
    decode: (body) => ({ [key]: codec.decode(body) }) as { [P in K]: T },
  }
}

const info: CaseCodec<InfoResponse> = {
  field: 4,
  encode: (v) =>
    new ProtoWriter()
      .string(1, v.data)
      .string(2, v.version)
      .uint(3, v.appVersion)
      .int(4, v.lastBlockHeight)
      .bytes(5, v.lastBlockAppHash)
      .finish(),
  decode: (body) => {
    const v: InfoResponse = { data: '', version: '', appVersion: 0n, lastBlockHeight: 0, lastBlockAppHash: new Uint8Array() }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 1) v.data = r.string()
      else if (r.field === 2) v.version = r.string()
      else if (r.field === 3) v.appVersion = r.uint64()
      else if (r.field === 4) v.lastBlockHeight = r.int64Number()
      else if (r.field === 5) v.lastBlockAppHash = r.bytes()
      else r.skip()
    }
    return v
  },
}

/** `consensus_params` (1) is never sent: the application keeps the genesis parameters. */
const initChain: CaseCodec<InitChainResponse> = {
  field: 6,
  encode: (v) => {
    const w = new ProtoWriter()
    for (const u of v.validators) w.message(2, encodeValidatorUpdate(u))
    return w.bytes(3, v.appHash).finish()
  },
  decode: (body) => {
    const v: InitChainResponse = { validators: [], appHash: new Uint8Array() }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 2) v.validators.push(decodeValidatorUpdate(r.bytes()))
      else if (r.field === 3) v.appHash = r.bytes()
      else r.skip()
    }
    return v
  },
}

const query: CaseCodec<QueryResponse> = {
  field: 7,
  encode: (v) => {
    const w = new ProtoWriter().uint(1, v.code).string(3, v.log).string(4, v.info).int(5, v.index).bytes(6, v.key).bytes(7, v.value)
    if (v.proofOps) w.message(8, encodeProofOps(v.proofOps))
    return w.int(9, v.height).string(10, v.codespace).finish()
  },
  decode: (body) => {
    const v: QueryResponse = {
      code: 0,
      log: '',
      info: '',
      index: 0n,
      key: new Uint8Array(),
      value: new Uint8Array(),
      height: 0,
      codespace: '',
    }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 1) v.code = r.uint32()
      else if (r.field === 3) v.log = r.string()
      else if (r.field === 4) v.info = r.string()
      else if (r.field === 5) v.index = r.int64()
      else if (r.field === 6) v.key = r.bytes()
      else if (r.field === 7) v.value = r.bytes()
      else if (r.field === 8) v.proofOps = decodeProofOps(r.bytes())
      else if (r.field === 9) v.height = r.int64Number()
      else if (r.field === 10) v.codespace = r.string()
      else r.skip()
    }
    return v
  },
}

const checkTx: CaseCodec<CheckTxResponse> = { field: 9, encode: encodeTxResult, decode: decodeTxResult }

const commit: CaseCodec<{ retainHeight: number }> = {
  field: 12,
  encode: (v) => new ProtoWriter().int(3, v.retainHeight).finish(),
  decode: (body) => {
    const v = { retainHeight: 0 }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 3) v.retainHeight = r.int64Number()
      else r.skip()
    }
    return v
  },
}

const listSnapshots: CaseCodec<{ snapshots: Snapshot[] }> = {
  field: 13,
  encode: (v) => {
    const w = new ProtoWriter()
    for (const s of v.snapshots) w.message(1, encodeSnapshot(s))
    return w.finish()
  },
  decode: (body) => {
    const v: { snapshots: Snapshot[] } = { snapshots: [] }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 1) v.snapshots.push(decodeSnapshot(r.bytes()))
      else r.skip()
    }
    return v
  },
}

/** result=1, refetch_chunks=2 (packed uint32), reject_senders=3. */
const applySnapshotChunk: CaseCodec<ResponsePayloads['applySnapshotChunk']> = {
  field: 16,
  encode: (v) => {
    const w = new ProtoWriter().uint(1, v.result).packed(2, v.refetchChunks)
    for (const sender of v.rejectSenders) w.lenDelimited(3, new TextEncoder().encode(sender))
    return w.finish()
  },
  decode: (body) => {
    const v: ResponsePayloads['applySnapshotChunk'] = { result: ApplySnapshotChunkResult.Unknown, refetchChunks: [], rejectSenders: [] }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 1) v.result = readEnum(r, ApplySnapshotChunkResult, 'apply_snapshot_chunk result')
      else if (r.field === 2) v.refetchChunks.push(...r.repeatedUint64().map((c) => Number(c & 0xffffffffn)))
      else if (r.field === 3) v.rejectSenders.push(r.string())
      else r.skip()
    }
    return v
  },
}

const prepareProposal: CaseCodec<{ txs: Uint8Array[] }> = {
  field: 17,
  encode: (v) => {
    const w = new ProtoWriter()
    for (const tx of v.txs) w.lenDelimited(1, tx)
    return w.finish()
  },
  decode: (body) => {
    const v: { txs: Uint8Array[] } = { txs: [] }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 1) v.txs.push(r.bytes())
      else r.skip()
    }
    return v
  },
}

const finalizeBlock: CaseCodec<FinalizeBlockResponse> = {
  field: 21,
  encode: (v) => {
    const w = new ProtoWriter()
    for (const e of v.events) w.message(1, encodeEvent(e))
    for (const t of v.txResults) w.message(2, encodeTxResult(t))
    for (const u of v.validatorUpdates) w.message(3, encodeValidatorUpdate(u))
    if (v.consensusParamUpdates) w.message(4, encodeConsensusParams(v.consensusParamUpdates))
    return w.bytes(5, v.appHash).finish()
  },
  decode: (body) => {
    const v: FinalizeBlockResponse = { events: [], txResults: [], validatorUpdates: [], appHash: new Uint8Array() }
    const r = new ProtoReader(body)
    while (r.next()) {
      if (r.field === 1) v.events.push(decodeEvent(r.bytes()))
      else if (r.field === 2) v.txResults.push(decodeTxResult(r.bytes()))
      else if (r.field === 3) v.validatorUpdates.push(decodeValidatorUpdate(r.bytes()))
      else if (r.field === 4) v.consensusParamUpdates = decodeConsensusParams(r.bytes())
      else if (r.field === 5) v.appHash = r.bytes()
      else r.skip()
    }
    return v
  },
}

const responseCodec = new OneofCodec<ResponsePayloads>('Response', {
  exception: wrap(stringCase(1), 'error'),
  echo: wrap(stringCase(2), 'message'),
  flush: { field: 3, encode: () => new Uint8Array(), decode: () => ({}) },
  info,
  initChain,
  query,
  checkTx,
  commit,
  listSnapshots,
  offerSnapshot: wrap(enumCase(14, OfferSnapshotResult, 'offer_snapshot result'), 'result'),
  loadSnapshotChunk: wrap(bytesCase(15), 'chunk'),
  applySnapshotChunk,
  prepareProposal,
  processProposal: wrap(enumCase(18, VerdictStatus, 'process_proposal status'), 'status'),
  extendVote: wrap(bytesCase(19), 'voteExtension'),
  verifyVoteExtension: wrap(enumCase(20, VerdictStatus, 'verify_vote_extension status'), 'status'),
  finalizeBlock,
})

/** The protobuf body of a `Response` (without the length prefix). */
export function encodeResponse(res: AbciResponse): Uint8Array {
  return responseCodec.encode(res)
}

/** Decodes a `Response` body; throws on malformed input or a response without a known method. */
export function decodeResponse(body: Uint8Array): AbciResponse {
  return responseCodec.decode(body)
}
