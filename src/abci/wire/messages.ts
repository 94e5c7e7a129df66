/**
 * The messages of the ABCI 2.0 socket protocol (CometBFT v0.38 `tendermint.abci.Request` and `Response`) as
 * tagged values: `{ method, value }`, one method per oneof case. Payloads the `Application` boundary already
 * defines are reused; the rest (echo, info's request, vote extensions, state-sync snapshots) are declared
 * here because only the socket speaks them.
 */
import type { Timestamp } from '../../utils/time.js'
import type {
  CheckTxResponse,
  CheckTxType,
  CommitInfo,
  FinalizeBlockRequest,
  FinalizeBlockResponse,
  InfoResponse,
  InitChainRequest,
  InitChainResponse,
  Misbehavior,
  PrepareProposalRequest,
  ProcessProposalRequest,
  QueryRequest,
  QueryResponse,
} from '../application.js'

/** `RequestInfo`: CometBFT's own versions, sent in the handshake. */
export interface InfoRequest {
  version: string
  blockVersion: bigint
  p2pVersion: bigint
  abciVersion: string
}

/** `RequestExtendVote`: this validator is about to precommit `hash`. */
export interface ExtendVoteRequest {
  hash: Uint8Array
  height: number
  time: Timestamp
  txs: Uint8Array[]
  proposedLastCommit: CommitInfo
  misbehavior: Misbehavior[]
  nextValidatorsHash: Uint8Array
  proposerAddress: Uint8Array
}

/** `RequestVerifyVoteExtension`: another validator's extension to its precommit. */
export interface VerifyVoteExtensionRequest {
  hash: Uint8Array
  validatorAddress: Uint8Array
  height: number
  voteExtension: Uint8Array
}

/** `Snapshot`: one state-sync snapshot an application offers or is offered. */
export interface Snapshot {
  height: bigint
  format: number
  chunks: number
  hash: Uint8Array
  metadata: Uint8Array
}

/** `RequestOfferSnapshot`: a snapshot found on the network, with the light-client-verified app hash. */
export interface OfferSnapshotRequest {
  snapshot?: Snapshot
  appHash: Uint8Array
}

export interface LoadSnapshotChunkRequest {
  height: bigint
  format: number
  chunk: number
}

export interface ApplySnapshotChunkRequest {
  index: number
  chunk: Uint8Array
  sender: string
}

/** `ResponseProcessProposal.ProposalStatus` and `ResponseVerifyVoteExtension.VerifyStatus` (same values). */
export const VerdictStatus = { Unknown: 0, Accept: 1, Reject: 2 } as const
export type VerdictStatus = (typeof VerdictStatus)[keyof typeof VerdictStatus]

/** `ResponseOfferSnapshot.Result`. */
export const OfferSnapshotResult = { Unknown: 0, Accept: 1, Abort: 2, Reject: 3, RejectFormat: 4, RejectSender: 5 } as const
export type OfferSnapshotResult = (typeof OfferSnapshotResult)[keyof typeof OfferSnapshotResult]

/** `ResponseApplySnapshotChunk.Result`. */
export const ApplySnapshotChunkResult = {
  Unknown: 0,
  Accept: 1,
  Abort: 2,
  Retry: 3,
  RetrySnapshot: 4,
  RejectSnapshot: 5,
} as const
export type ApplySnapshotChunkResult = (typeof ApplySnapshotChunkResult)[keyof typeof ApplySnapshotChunkResult]

/** The payload of each `Request` case. */
export interface RequestPayloads {
  echo: { message: string }
  flush: Record<string, never>
  info: InfoRequest
  initChain: InitChainRequest
  query: QueryRequest
  checkTx: { tx: Uint8Array; type: CheckTxType }
  commit: Record<string, never>
  listSnapshots: Record<string, never>
  offerSnapshot: OfferSnapshotRequest
  loadSnapshotChunk: LoadSnapshotChunkRequest
  applySnapshotChunk: ApplySnapshotChunkRequest
  prepareProposal: PrepareProposalRequest
  processProposal: ProcessProposalRequest
  extendVote: ExtendVoteRequest
  verifyVoteExtension: VerifyVoteExtensionRequest
  finalizeBlock: FinalizeBlockRequest
}

/** The payload of each `Response` case. */
export interface ResponsePayloads {
  /** CometBFT stops when it reads one. */
  exception: { error: string }
  echo: { message: string }
  flush: Record<string, never>
  info: InfoResponse
  initChain: InitChainResponse
  query: QueryResponse
  checkTx: CheckTxResponse
  commit: { retainHeight: number }
  listSnapshots: { snapshots: Snapshot[] }
  offerSnapshot: { result: OfferSnapshotResult }
  loadSnapshotChunk: { chunk: Uint8Array }
  applySnapshotChunk: { result: ApplySnapshotChunkResult; refetchChunks: number[]; rejectSenders: string[] }
  prepareProposal: { txs: Uint8Array[] }
  processProposal: { status: VerdictStatus }
  extendVote: { voteExtension: Uint8Array }
  verifyVoteExtension: { status: VerdictStatus }
  finalizeBlock: FinalizeBlockResponse
}

export type RequestMethod = keyof RequestPayloads
export type ResponseMethod = keyof ResponsePayloads

/** One `tendermint.abci.Request`. */
export type AbciRequest = { [M in RequestMethod]: { method: M; value: RequestPayloads[M] } }[RequestMethod]

/** One `tendermint.abci.Response`. */
export type AbciResponse = { [M in ResponseMethod]: { method: M; value: ResponsePayloads[M] } }[ResponseMethod]
