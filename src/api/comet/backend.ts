/**
 * What the consensus-engine RPC needs from the node (CometBFT `rpc/core.Environment`): the block
 * store, the state store, the indexer, the mempool, the application's query connection and the
 * consensus state. The node implements it over its real components; tests give a double.
 *
 * Every method may return a value or a promise. Errors thrown by a method reach the client as
 * CometBFT's -32603 `Internal error` with the error's message as `data`, so a backend throws with
 * CometBFT's texts where a client could see them (e.g. `tx already exists in cache`).
 */
import type { BlockMeta } from '../../chain/comet/block-store.js'
import type {
  AbciEvent,
  Block,
  Commit,
  ConsensusParams,
  DuplicateVoteEvidence,
  ExecTxResult,
  Proposal,
  Validator,
  ValidatorUpdate,
  Vote,
} from '../../chain/comet/types.js'
import type { ValidatorSet } from '../../chain/comet/validator-set.js'
import type { RoundStep } from '../../consensus/round-step.js'
import type { Timestamp } from '../../utils/time.js'

/** A value or a promise of it. */
export type Awaitable<T> = T | Promise<T>

/** `p2p.DefaultNodeInfo`: who this node is (status.node_info, net_info peers). */
export interface CometNodeInfo {
  /** p2p 8, block 11, app = the application's protocol version (CometBFT v0.38 `version.go`). */
  protocolVersion: { p2p: bigint; block: bigint; app: bigint }
  /** Node ID: lower-case hex of the node key's address (40 characters). */
  id: string
  /** p2p listen address, e.g. `tcp://0.0.0.0:26656`. */
  listenAddr: string
  /** The chain id. */
  network: string
  /** CometBFT version this node is compatible with: must start with `0.38.` (cosmjs picks its client by it). */
  version: string
  /** p2p channel ids this node speaks (`40202122233038606100` in CometBFT v0.38). */
  channels: Uint8Array
  moniker: string
  /** `other.tx_index`: true = "on". When off, `tx`, `tx_search` and `block_search` answer "…indexing is disabled". */
  txIndex: boolean
  /** `other.rpc_address`, e.g. `tcp://127.0.0.1:26657`. */
  rpcAddress: string
}

/** A connected peer for `net_info`. */
export interface CometPeer {
  nodeInfo: CometNodeInfo
  isOutbound: boolean
  remoteIp: string
  /** How long the connection has been up, in nanoseconds. */
  connectionDurationNs: bigint
}

/** The FinalizeBlock response of a height, as stored for `block_results`. */
export interface FinalizeBlockResults {
  txResults: ExecTxResult[]
  events: AbciEvent[]
  validatorUpdates: ValidatorUpdate[]
  /** Only the parts the block changed; undefined = no change. */
  consensusParamUpdates?: ConsensusParamUpdates
  appHash: Uint8Array
}

/** Proto-form consensus params in `consensus_param_updates`: any member may be missing. */
export interface ConsensusParamUpdates {
  block?: Partial<ConsensusParams['block']>
  evidence?: Partial<ConsensusParams['evidence']>
  validator?: Partial<ConsensusParams['validator']>
  version?: Partial<ConsensusParams['version']>
  abci?: Partial<ConsensusParams['abci']>
}

/** An indexed transaction (`abci.TxResult`): where it landed and what it did. */
export interface TxRecord {
  height: number
  index: number
  tx: Uint8Array
  result: ExecTxResult
}

/** `abci.ResponseCheckTx` (v0.38 fields). */
export interface CheckTxResult {
  code: number
  data: Uint8Array
  log: string
  info?: string
  gasWanted: bigint
  gasUsed: bigint
  events: AbciEvent[]
  codespace: string
}

/** `abci.ResponseInfo`. */
export interface AbciInfo {
  data: string
  version: string
  appVersion: bigint
  lastBlockHeight: number
  lastBlockAppHash: Uint8Array
}

/** `abci.RequestQuery`. */
export interface AbciQueryRequest {
  path: string
  data: Uint8Array
  /** 0 = latest (the application decides). */
  height: bigint
  prove: boolean
}

/** `abci.ResponseQuery`, with optional Merkle proof operations. */
export interface AbciQueryResponse {
  code: number
  log: string
  info: string
  index: bigint
  key: Uint8Array
  value: Uint8Array
  proofOps?: { type: string; key: Uint8Array; data: Uint8Array }[]
  height: number
  codespace: string
}

/** The votes of one round, indexed by validator index (undefined = not received). */
export interface RoundVotes {
  round: number
  prevotes: (Vote | undefined)[]
  precommits: (Vote | undefined)[]
}

/** A part set's progress for `dump_consensus_state`. */
export interface PartSetProgress {
  count: number
  total: number
  /** Which parts are in, by index. */
  have: boolean[]
}

/** A snapshot of the consensus state machine (`consensus/types.RoundState`). */
export interface RoundStateSnapshot {
  height: number
  round: number
  step: RoundStep
  /** When the height started (commit time + timeout_commit). */
  startTime: Timestamp
  commitTime: Timestamp
  /** The validator set of `height`, with the round's proposer. */
  validators: ValidatorSet
  proposal?: Proposal
  proposalBlock?: Block
  proposalBlockParts?: PartSetProgress
  /** -1 when not locked. */
  lockedRound: number
  lockedBlock?: Block
  lockedBlockParts?: PartSetProgress
  /** -1 when there is no valid block. */
  validRound: number
  validBlock?: Block
  validBlockParts?: PartSetProgress
  /** Votes of every round of `height` seen so far. */
  votes: RoundVotes[]
  /** -1 until a commit round is known. */
  commitRound: number
  /** Precommits of the previous height, by validator index. */
  lastCommit?: (Vote | undefined)[]
  lastValidators?: ValidatorSet
  triggeredTimeoutPrecommit: boolean
}

/** What the routes need from the node. */
export interface CometBackend {
  // ---- node ----
  nodeInfo(): Awaitable<CometNodeInfo>
  /** The node's validator key (status.validator_info), ed25519. */
  validatorKey(): Awaitable<{ address: Uint8Array; pubKey: Uint8Array }>
  /** True while block-syncing (status.sync_info.catching_up; validators/consensus_params then default to the store height). */
  isCatchingUp(): Awaitable<boolean>
  /** p2p listen addresses and whether the p2p transport listens (net_info). */
  p2pListeners(): Awaitable<{ listening: boolean; listeners: string[] }>
  peers(): Awaitable<CometPeer[]>

  // ---- block store ----
  /** Lowest stored height (0 when empty). */
  baseHeight(): Awaitable<number>
  /** Highest stored height (0 before the first block). */
  latestHeight(): Awaitable<number>
  loadBlock(height: number): Awaitable<Block | undefined>
  loadBlockMeta(height: number): Awaitable<BlockMeta | undefined>
  /** Height of the block with this header hash. */
  heightByHash(hash: Uint8Array): Awaitable<number | undefined>
  /** The canonical commit of `height` (from block height+1). */
  loadBlockCommit(height: number): Awaitable<Commit | undefined>
  /** The commit this node saw for `height` (used for the latest height). */
  loadSeenCommit(height: number): Awaitable<Commit | undefined>

  // ---- state store ----
  /** The stored FinalizeBlock response of `height`. */
  loadFinalizeBlockResults(height: number): Awaitable<FinalizeBlockResults | undefined>
  /** The validator set that validates `height` (height = latest + 1 gives the next set), in canonical order. */
  loadValidators(height: number): Awaitable<ValidatorSet | readonly Validator[] | undefined>
  /** The consensus params in force at `height` (latest + 1 allowed). */
  loadConsensusParams(height: number): Awaitable<ConsensusParams | undefined>
  /** The genesis document as cmtjson text (see `encodeGenesisDoc`); served compacted. */
  genesisJson(): Awaitable<string>

  // ---- indexer ----
  /** The indexed tx with this consensus hash (SHA-256 of its bytes). */
  getTx(hash: Uint8Array): Awaitable<TxRecord | undefined>
  /**
   * Every tx matching the event query (any order; the route sorts and paginates). Throws with the
   * query error text (`failed to parse query: …`).
   */
  searchTxs(query: string): Awaitable<TxRecord[]>
  /** Heights of every block whose FinalizeBlock events match the query. */
  searchBlocks(query: string): Awaitable<number[]>

  // ---- mempool ----
  /** Executable txs in the pool: count and total bytes. */
  mempoolSize(): Awaitable<{ count: number; bytes: number }>
  /** Up to `max` pool txs in proposal order. */
  reapTxs(max: number): Awaitable<Uint8Array[]>
  /**
   * Submits a tx to the mempool and resolves with its CheckTx result (code ≠ 0 = rejected by the
   * application). Throws the mempool's own errors (`tx already exists in cache`, too large, full).
   */
  broadcastTx(tx: Uint8Array): Awaitable<CheckTxResult>
  /** Resolves when the tx with this hash is committed in a block; rejects when `signal` aborts. */
  waitForTx(hash: Uint8Array, signal: AbortSignal): Promise<TxRecord>
  /** Runs the application's CheckTx only (the tx is not added to the mempool). */
  checkTx(tx: Uint8Array): Awaitable<CheckTxResult>

  // ---- application ----
  abciInfo(): Awaitable<AbciInfo>
  abciQuery(req: AbciQueryRequest): Awaitable<AbciQueryResponse>

  // ---- consensus ----
  roundState(): Awaitable<RoundStateSnapshot>
  /** Verifies and adds evidence to the pool; throws the reason it is rejected. */
  addEvidence(ev: DuplicateVoteEvidence): Awaitable<void>
}
