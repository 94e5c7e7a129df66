/**
 * What the consensus-engine RPC needs from the node (CometBFT `rpc/core.Environment`): the block
 * store, the state store, the indexer, the mempool, the application's query connection and the
 * consensus state. The node implements it over its real components; tests give a double.
 *
 * Every method may return a value or a promise. A method throws the domain's typed errors (a pool
 * rejection, a query that does not parse), which errors.ts maps to CometBFT's codes and texts; any
 * other error reaches the client as CometBFT's -32603 `Internal error` with its message as `data`.
 */
import type { BlockMeta } from '../../comet/block-store.js'
import type { Block, Commit, DuplicateVoteEvidence, Validator } from '../../comet/types.js'
import type { ConsensusParams, TxResult } from '../../abci/types.js'
import type { ValidatorSet } from '../../comet/validator-set.js'
import type { CheckTxResponse, FinalizeBlockResponse, InfoResponse, QueryRequest, QueryResponse } from '../../abci/application.js'
import type { RoundStateSummary } from '../../consensus/state-machine.js'
import type { PeerRoundState } from '../../consensus/peer-state.js'

import type { Awaitable } from '../../utils/awaitable.js'

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
  /** Its consensus progress as it announced it (`dump_consensus_state`); undefined before its first step. */
  roundState?: PeerRoundState
}

/** `abci_query`'s request: the application's, with the int64 height the wire carries (the node checks its range). */
export type AbciQueryRequest = Omit<QueryRequest, 'height'> & { height: bigint }

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
  loadFinalizeBlockResults(height: number): Awaitable<FinalizeBlockResponse | undefined>
  /** The validator set that validates `height` (height = latest + 1 gives the next set), in canonical order. */
  loadValidators(height: number): Awaitable<ValidatorSet | readonly Validator[] | undefined>
  /** The consensus params in force at `height` (latest + 1 allowed). */
  loadConsensusParams(height: number): Awaitable<ConsensusParams | undefined>
  /** The genesis document as cmtjson text (see `encodeGenesisDoc`); served compacted. */
  genesisJson(): Awaitable<string>

  // ---- indexer ----
  /** The indexed tx with this consensus hash (SHA-256 of its bytes). */
  getTx(hash: Uint8Array): Awaitable<TxResult | undefined>
  /**
   * Every tx matching the event query (any order; the route sorts and paginates). Throws
   * QueryParseError for a bad query (`failed to parse query: …` on the wire).
   */
  searchTxs(query: string): Awaitable<TxResult[]>
  /** Heights of every block whose FinalizeBlock events match the query. */
  searchBlocks(query: string): Awaitable<number[]>

  // ---- mempool ----
  /**
   * The unconfirmed txs, every one the mempool holds (for the EVM pool: pending and queued): count and
   * total bytes, over the same set so that the two agree.
   */
  mempoolSize(): Awaitable<{ count: number; bytes: number }>
  /** Up to `max` of the unconfirmed txs, those a proposal would take first, in proposal order. */
  unconfirmedTxs(max: number): Awaitable<Uint8Array[]>
  /**
   * Submits a tx to the mempool and resolves with its CheckTx result (code ≠ 0 = rejected by the
   * application or the pool). Throws the pool rejections CometBFT reports as the mempool's own errors
   * (`tx already exists in cache`, too large, full: errors.ts).
   */
  broadcastTx(tx: Uint8Array): Awaitable<CheckTxResponse>
  /** Resolves when the tx with this hash is committed in a block; rejects when `signal` aborts. */
  waitForTx(hash: Uint8Array, signal: AbortSignal): Promise<TxResult>
  /** Runs the application's CheckTx only (the tx is not added to the mempool). */
  checkTx(tx: Uint8Array): Awaitable<CheckTxResponse>

  // ---- application ----
  abciInfo(): Awaitable<InfoResponse>
  abciQuery(req: AbciQueryRequest): Awaitable<QueryResponse>

  // ---- consensus ----
  roundState(): Awaitable<RoundStateSummary>
  /** Verifies and adds evidence to the pool; throws the reason it is rejected. */
  addEvidence(ev: DuplicateVoteEvidence): Awaitable<void>
}
