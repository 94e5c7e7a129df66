/**
 * The consensus RPC results the commands read, as the node sends them (CometBFT v0.38 cmtjson:
 * 64-bit integers as decimal strings, hashes as upper-case hex, byte strings as base64; the shapes of
 * CometBFT's `rpc/core/types`). Only the members the commands use are typed; `--json`
 * prints the whole result unchanged.
 */

/** `BlockID`. */
export interface CometBlockId {
  hash: string
  parts: { total: number; hash: string }
}

/** `Header` (the members shown). */
export interface CometHeader {
  chain_id: string
  height: string
  time: string
  app_hash: string
  proposer_address: string
  last_block_id: CometBlockId
}

/** `Block`. */
export interface CometBlock {
  header: CometHeader
  data: { txs: string[] | null }
  last_commit: CometCommit | null
}

/** `CommitSig`: `block_id_flag` 1 absent, 2 commit, 3 nil. */
export interface CometCommitSig {
  block_id_flag: number
  validator_address: string
  timestamp: string
  signature: string | null
}

/** `Commit`. */
export interface CometCommit {
  height: string
  round: number
  block_id: CometBlockId
  signatures: CometCommitSig[] | null
}

/** `abci.Event`. */
export interface CometEvent {
  type: string
  attributes?: { key: string; value: string; index?: boolean }[]
}

/** `abci.ExecTxResult` (jsonpb: every member present; inside events cmtjson omits zero ones). */
export interface CometExecTxResult {
  code?: number
  data?: string | null
  log?: string
  gas_wanted?: string
  gas_used?: string
  events?: CometEvent[]
  codespace?: string
}

/** `ResultTx`. */
export interface CometTx {
  hash: string
  height: string
  index: number
  tx_result: CometExecTxResult
  tx: string
  proof?: unknown
}

/** `status`. */
export interface CometStatus {
  node_info: CometNodeInfo
  sync_info: {
    latest_block_hash: string
    latest_app_hash: string
    latest_block_height: string
    latest_block_time: string
    earliest_block_height: string
    earliest_block_time: string
    catching_up: boolean
  }
  validator_info: { address: string; pub_key: CometPubKey; voting_power: string }
}

/** `p2p.DefaultNodeInfo`. */
export interface CometNodeInfo {
  id: string
  listen_addr: string
  network: string
  version: string
  moniker: string
  other: { tx_index?: string; rpc_address?: string }
}

/** Amino-style public key `{type: "tendermint/PubKeyEd25519", value: <base64>}`. */
export interface CometPubKey {
  type: string
  value: string
}

/** `tx_search`. */
export interface CometTxSearch {
  txs: CometTx[]
  total_count: string
}

/** `block_search`. */
export interface CometBlockSearch {
  blocks: { block_id: CometBlockId; block: CometBlock }[]
  total_count: string
}

/** `validators`. */
export interface CometValidators {
  block_height: string
  validators: { address: string; pub_key: CometPubKey; voting_power: string; proposer_priority: string }[]
  count: string
  total: string
}

/** `block_results`. */
export interface CometBlockResults {
  height: string
  txs_results: CometExecTxResult[] | null
  finalize_block_events: CometEvent[] | null
  validator_updates: { pub_key: unknown; power?: string }[] | null
  consensus_param_updates: unknown
  app_hash: string
}

/** `commit`. */
export interface CometSignedHeader {
  signed_header: { header: CometHeader; commit: CometCommit }
  canonical: boolean
}

/** `consensus_state` (`RoundStateSimple`). */
export interface CometConsensusState {
  round_state: {
    'height/round/step': string
    start_time: string
    proposal_block_hash: string
    locked_block_hash: string
    valid_block_hash: string
    height_vote_set: { round: number; prevotes_bit_array: string; precommits_bit_array: string }[]
    proposer: { address: string; index: number }
  }
}

/** `net_info`. */
export interface CometNetInfo {
  listening: boolean
  listeners: string[]
  n_peers: string
  peers: { node_info: CometNodeInfo; is_outbound: boolean; remote_ip: string }[]
}

/** `unconfirmed_txs`. */
export interface CometUnconfirmedTxs {
  n_txs: string
  total: string
  total_bytes: string
  txs: string[] | null
}

/** One event pushed to a `subscribe`: the query, `data: {type: "tendermint/event/X", value}` and the composite-key map. */
export interface CometEventMessage {
  query: string
  data: { type: string; value: unknown }
  events?: Record<string, string[]>
}
