/**
 * The boundary between the consensus engine and the application, shaped like ABCI 2.0
 * (CometBFT v0.38 `abci/types`). The engine drives it; the EVM application implements it. Keeping the
 * boundary clean lets the same application be driven later by an external CometBFT over a socket.
 */
import type { Timestamp } from '../utils/time.js'
import type { AbciEvent, BlockIDFlag, ConsensusParams, ExecTxResult, ValidatorUpdate } from './types.js'

/** ABCI `ResponseInfo`. */
export interface InfoResponse {
  data: string
  version: string
  appVersion: bigint
  /** 0 before the first block. */
  lastBlockHeight: number
  lastBlockAppHash: Uint8Array
}

export interface InitChainRequest {
  time: Timestamp
  chainId: string
  consensusParams: ConsensusParams
  validators: ValidatorUpdate[]
  /** genesis.json `app_state`, as JSON text. */
  appStateBytes: Uint8Array
  initialHeight: number
}

export interface InitChainResponse {
  /** When non-empty, replaces the genesis validators. */
  validators: ValidatorUpdate[]
  appHash: Uint8Array
}

export type CheckTxType = 'new' | 'recheck'

/** ABCI `ResponseCheckTx` (v0.38 fields). */
export interface CheckTxResponse {
  /** 0 = accepted. */
  code: number
  data: Uint8Array
  log: string
  /** Additional, non-deterministic information; '' when undefined. */
  info?: string
  gasWanted: bigint
  gasUsed: bigint
  events: AbciEvent[]
  codespace: string
}

/** A vote of the decided last commit, as ABCI's `VoteInfo`. */
export interface VoteInfo {
  validatorAddress: Uint8Array
  power: bigint
  blockIdFlag: BlockIDFlag
}

export interface CommitInfo {
  round: number
  votes: VoteInfo[]
}

/** ABCI `MisbehaviorType`. */
export const MisbehaviorType = { Unknown: 0, DuplicateVote: 1, LightClientAttack: 2 } as const
export type MisbehaviorType = (typeof MisbehaviorType)[keyof typeof MisbehaviorType]

/** ABCI `Misbehavior`: committed evidence as the application sees it (for slashing). */
export interface Misbehavior {
  type: MisbehaviorType
  /** The faulty validator and its power at `height`. */
  validator: { address: Uint8Array; power: bigint }
  /** Height of the infraction. */
  height: number
  /** Time of the block at `height`. */
  time: Timestamp
  /** Total voting power of the validator set at `height`. */
  totalVotingPower: bigint
}

export interface PrepareProposalRequest {
  maxTxBytes: number
  /** Txs reaped from the mempool, in proposal order. */
  txs: Uint8Array[]
  localLastCommit: CommitInfo
  /** The evidence in the proposal; the engine always sets it (optional for direct callers). */
  misbehavior?: Misbehavior[]
  height: number
  time: Timestamp
  nextValidatorsHash: Uint8Array
  proposerAddress: Uint8Array
}

export interface ProcessProposalRequest {
  txs: Uint8Array[]
  proposedLastCommit: CommitInfo
  /** The evidence in the proposal; the engine always sets it (optional for direct callers). */
  misbehavior?: Misbehavior[]
  hash: Uint8Array
  height: number
  time: Timestamp
  nextValidatorsHash: Uint8Array
  proposerAddress: Uint8Array
}

export interface FinalizeBlockRequest {
  txs: Uint8Array[]
  decidedLastCommit: CommitInfo
  /** The evidence committed in the block; the engine always sets it (optional for direct callers). */
  misbehavior?: Misbehavior[]
  hash: Uint8Array
  height: number
  time: Timestamp
  nextValidatorsHash: Uint8Array
  proposerAddress: Uint8Array
  /**
   * Byte size of the decided block as encoded (its part set's size, CometBFT's `BlockMeta.block_size`),
   * for the EVM view's block `size`. Not in CometBFT's request: an addition so the application never has
   * to ask the engine. The engine always sets it, to the same value live and when the handshake replays
   * the block from the store (optional for direct callers).
   */
  blockSize?: number
}

export interface FinalizeBlockResponse {
  events: AbciEvent[]
  txResults: ExecTxResult[]
  validatorUpdates: ValidatorUpdate[]
  consensusParamUpdates?: Partial<ConsensusParams>
  /** State commitment after this block; goes into the next header's app_hash. */
  appHash: Uint8Array
}

/** ABCI `RequestQuery`. */
export interface QueryRequest {
  path: string
  data: Uint8Array
  /** 0 = latest. */
  height: number
  prove: boolean
}

/** ABCI `ProofOp`: one step of a Merkle proof (`crypto.ProofOp`). */
export interface ProofOp {
  type: string
  key: Uint8Array
  data: Uint8Array
}

/** ABCI `ResponseQuery`. */
export interface QueryResponse {
  code: number
  log: string
  info: string
  index: bigint
  key: Uint8Array
  value: Uint8Array
  /** The Merkle proof of `value` when `prove` was asked and the application gives one. */
  proofOps?: ProofOp[]
  height: number
  codespace: string
}

export interface Application {
  /** The last height the application committed (written) and its app hash; 0 before its first Commit. */
  info(): Promise<InfoResponse>
  /** Sets up the genesis state; not written before the first Commit (called again while Info reports 0). */
  initChain(req: InitChainRequest): Promise<InitChainResponse>
  checkTx(tx: Uint8Array, type: CheckTxType): Promise<CheckTxResponse>
  prepareProposal(req: PrepareProposalRequest): Promise<{ txs: Uint8Array[] }>
  processProposal(req: ProcessProposalRequest): Promise<{ accept: boolean }>
  /** Executes the decided block and returns its results and app hash; computes, never persists. */
  finalizeBlock(req: FinalizeBlockRequest): Promise<FinalizeBlockResponse>
  /** Persists the finalized block atomically (the app's own write) and makes it the app's head. */
  commit(): Promise<{ retainHeight: number }>
  query(req: QueryRequest): Promise<QueryResponse>
}
