/**
 * The real `CometBackend` (api/comet/backend.ts) over the node's components: the block store, the
 * consensus engine and its state store, the EVM application and the transaction pool. The adapter
 * CometBFT calls `rpc/core.Environment`; only this file knows both sides.
 */
import type { AbciQueryRequest, CometBackend, CometNodeInfo, CometPeer } from '../api/comet/backend.js'
import { checkTxRejectionOf } from '../api/comet/errors.js'
import { encodeGenesisDoc } from '../api/comet/json.js'
import { stringifyJson } from '../api/comet/wire-json.js'
import type { BlockMeta } from '../comet/block-store.js'
import type { BlockStore } from '../comet/block-store.js'
import { hashTx } from '../comet/hash.js'
import { parseQuery } from '../comet/query/index.js'
import type { Block, Commit, DuplicateVoteEvidence } from '../comet/types.js'
import type { ConsensusParams, TxResult } from '../abci/types.js'
import type { ValidatorSet } from '../comet/validator-set.js'
import type { EvmApplication } from '../evm/app.js'
import type { EventIndexer } from '../indexer/event-indexer.js'
import type { GenesisDoc } from '../config/genesis-doc.js'
import { loadGenesis } from '../config/genesis.js'
import type { CheckTxResponse, FinalizeBlockResponse, InfoResponse, QueryResponse } from '../abci/application.js'
import type { ConsensusEngine } from '../consensus/consensus-engine.js'
import type { RoundStateSummary } from '../consensus/state-machine.js'
import type { NodeP2P } from './p2p.js'
import { equalBytes } from '../primitives/hex.js'
import type { TxPool } from '../txpool/tx-pool.js'

/** The CometBFT release whose RPC this node answers like; cosmjs picks Comet38Client for `0.38.`. */
export const COMET_COMPATIBLE_VERSION = '0.38.17'
/** CometBFT v0.38 `version.P2PProtocol`. */
const P2P_PROTOCOL = 8n
/** CometBFT v0.38 `version.BlockProtocol`. */
const BLOCK_PROTOCOL = 11n
/**
 * The p2p channel ids of a CometBFT v0.38 full node (`40202122233038606100`: block sync, consensus
 * state/data/vote/vote-set-bits, mempool, evidence, state sync snapshot/chunk, PEX), reported as
 * CometBFT does so tools that inspect node_info see a familiar value.
 */
const COMET_CHANNELS = new Uint8Array([0x40, 0x20, 0x21, 0x22, 0x23, 0x30, 0x38, 0x60, 0x61, 0x00])

/** What the adapter is built from. */
export interface NodeCometBackendDeps {
  app: EvmApplication
  pool: TxPool
  blockStore: BlockStore
  engine: ConsensusEngine
  genesis: GenesisDoc
  /** genesis.json, read again for the `genesis` routes: a node's genesis document leaves the accounts in the file. */
  genesisPath: string
  /** Node ID: lower-case hex of the node key's address. */
  nodeId: string
  moniker: string
  /** `tcp://host:port` of the p2p listen address (config `p2p.laddr`). */
  p2pListenAddr: string
  /** `tcp://host:port` of the consensus RPC (known once the server has bound its port). */
  rpcAddress: () => string
  /** `[tx_index] indexer != "null"`. */
  txIndex: boolean
  /** The kv event indexer behind tx_search / block_search (undefined when `[tx_index] indexer = "null"`). */
  indexer?: EventIndexer
  /** The p2p host and protocols; undefined for a node without them (a single validator): nothing listens, no peers. */
  p2p?: NodeP2P
}

export class NodeCometBackend implements CometBackend {
  private genesisText: string | undefined

  constructor(private readonly deps: NodeCometBackendDeps) {}

  // ---- node ----

  nodeInfo(): CometNodeInfo {
    const d = this.deps
    return {
      protocolVersion: { p2p: P2P_PROTOCOL, block: BLOCK_PROTOCOL, app: d.engine.getState().appVersion },
      id: d.nodeId,
      listenAddr: d.p2pListenAddr,
      network: d.genesis.chainId,
      version: COMET_COMPATIBLE_VERSION,
      channels: COMET_CHANNELS,
      moniker: d.moniker,
      txIndex: d.txIndex,
      rpcAddress: d.rpcAddress(),
    }
  }

  validatorKey(): { address: Uint8Array; pubKey: Uint8Array } {
    const { validatorAddress: address, validatorPubKey: pubKey } = this.deps.engine
    if (!address || !pubKey) throw new Error('this node has no validator key')
    return { address, pubKey }
  }

  /** True while the engine block-syncs from peers. */
  isCatchingUp(): boolean {
    return this.deps.engine.syncStatus().catchingUp
  }

  /** CometBFT lists its listener as `Listener(@tcp://host:port)`. */
  p2pListeners(): { listening: boolean; listeners: string[] } {
    const host = this.deps.p2p?.host
    return host ? { listening: true, listeners: [`Listener(@${host.nodeInfo.listenAddr})`] } : { listening: false, listeners: [] }
  }

  /**
   * The handshake carries id, network, moniker and listen address; the protocol and CometBFT versions and
   * channels shown are this node's (peers run the same software), and the rpc address is not exchanged.
   */
  peers(): CometPeer[] {
    const ours = this.nodeInfo()
    const now = Date.now()
    const roundStates = this.deps.engine.peerRoundStates()
    return (this.deps.p2p?.host.peers() ?? []).map((p) => ({
      nodeInfo: {
        ...ours,
        id: p.info.id,
        listenAddr: p.info.listenAddr,
        network: p.info.network,
        moniker: p.info.moniker,
        rpcAddress: '',
      },
      isOutbound: p.outbound,
      remoteIp: p.remoteIp,
      connectionDurationNs: BigInt(now - p.connectedSince.getTime()) * 1_000_000n,
      roundState: roundStates?.get(p.info.id),
    }))
  }

  // ---- block store ----

  baseHeight(): number {
    return this.deps.blockStore.base()
  }

  /** The block store's height: it moves when the engine stages the block, before the app's Commit and the height's events (as CometBFT's). */
  latestHeight(): number {
    return this.deps.blockStore.height()
  }

  loadBlock(height: number): Promise<Block | undefined> {
    return this.deps.blockStore.loadBlock(height)
  }

  loadBlockMeta(height: number): Promise<BlockMeta | undefined> {
    return this.deps.blockStore.loadBlockMeta(height)
  }

  heightByHash(hash: Uint8Array): Promise<number | undefined> {
    return this.deps.blockStore.heightByHash(hash)
  }

  loadBlockCommit(height: number): Promise<Commit | undefined> {
    return this.deps.blockStore.loadBlockCommit(height)
  }

  loadSeenCommit(height: number): Promise<Commit | undefined> {
    return this.deps.blockStore.loadSeenCommit(height)
  }

  // ---- state store ----

  loadFinalizeBlockResults(height: number): Promise<FinalizeBlockResponse | undefined> {
    return this.deps.engine.stateStore.loadFinalizeBlockResponse(height)
  }

  /** The stored set of `height`; the next two heights' sets also come from the live chain state. */
  async loadValidators(height: number): Promise<ValidatorSet | undefined> {
    const stored = await this.deps.engine.stateStore.loadValidators(height)
    if (stored) return stored
    const state = this.deps.engine.getState()
    if (height === state.lastBlockHeight + 1) return state.validators
    if (height === state.lastBlockHeight + 2) return state.nextValidators
    return undefined
  }

  async loadConsensusParams(height: number): Promise<ConsensusParams | undefined> {
    const stored = await this.deps.engine.stateStore.loadConsensusParams(height)
    if (stored) return stored
    const state = this.deps.engine.getState()
    return height === state.lastBlockHeight + 1 ? state.consensusParams : undefined
  }

  /** The genesis document re-encoded as CometBFT serves it (cmtjson of `types.GenesisDoc`). */
  async genesisJson(): Promise<string> {
    if (this.genesisText === undefined) {
      const g = await loadGenesis(this.deps.genesisPath)
      this.genesisText = stringifyJson(
        encodeGenesisDoc({
          genesisTime: g.genesisTime,
          chainId: g.chainId,
          initialHeight: g.initialHeight,
          consensusParams: g.consensusParams,
          validators: g.validators,
          appHash: g.appHash,
          appStateJson: JSON.stringify(g.appState),
        }),
      )
    }
    return this.genesisText
  }

  // ---- indexer ----

  /**
   * A committed tx by consensus hash, through the EVM application's consensus-hash index: its height,
   * then its position among the block's txs (the EVM index skips txs the EVM refused, so the
   * consensus index is found in the block), and its ExecTxResult from the stored FinalizeBlock
   * response. Txs refused before execution are not in that index and are not found.
   */
  async getTx(hash: Uint8Array): Promise<TxResult | undefined> {
    // A pruned tx keeps its primary entry: its height says it is gone (CometBFT's words for a pruned height).
    const location = await this.deps.indexer?.getTxLocation(hash)
    const base = this.deps.blockStore.base()
    if (location && location.height < base) throw new Error(`height ${location.height} is not available, lowest height is ${base}`)
    // The kv indexer's primary entry (hash → height, index) also knows txs the EVM refused.
    const indexed = await this.deps.indexer?.getTx(hash)
    if (indexed) return indexed
    const evmTx = await this.deps.app.getTransactionByCometHash(hash)
    if (evmTx?.blockNumber === undefined) return undefined
    return this.findInBlock(evmTx.blockNumber, hash, evmTx.transactionIndex ?? 0)
  }

  /**
   * Every tx matching the event query, through the kv indexer (indexer/): conditions on one
   * event type hold within one event; hex values match in any letter case. Throws QueryParseError
   * for a bad query.
   */
  async searchTxs(query: string): Promise<TxResult[]> {
    const indexer = this.requireIndexer('transaction')
    return indexer.searchTxs(parseQuery(query))
  }

  /** Heights of the blocks whose FinalizeBlock events and `block.height` match the query. */
  async searchBlocks(query: string): Promise<number[]> {
    return this.requireIndexer('block').searchBlocks(parseQuery(query))
  }

  // ---- mempool ----

  mempoolSize(): { count: number; bytes: number } {
    return { count: this.deps.pool.count(), bytes: this.deps.pool.sizeBytes() }
  }

  unconfirmedTxs(max: number): Uint8Array[] {
    return this.deps.pool.unconfirmedTxs(max)
  }

  /**
   * The pool's size check (before CheckTx, as CometBFT's mempool), then the pool's admission, which
   * asks the application's CheckTx and applies the pool's own rules (nonce, funds, replacement,
   * limits). A refusal is a CheckTx result with code ≠ 0 or a thrown `TxPoolError`, as the CometBFT
   * surface's table decides (api/comet/errors.ts: a duplicate, an oversized tx and a full pool are
   * the mempool's own errors).
   */
  async broadcastTx(tx: Uint8Array): Promise<CheckTxResponse> {
    this.deps.pool.checkSize(tx)
    try {
      return (await this.deps.pool.admit(tx)).check
    } catch (err) {
      const rejection = checkTxRejectionOf(err)
      if (rejection === undefined) throw err
      return rejection
    }
  }

  /** Resolves on the engine's Tx event for this hash (the height is then in the block store and state store). */
  waitForTx(hash: Uint8Array, signal: AbortSignal): Promise<TxResult> {
    return new Promise<TxResult>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason instanceof Error ? signal.reason : new Error('wait for tx aborted'))
        return
      }
      const onAbort = (): void => {
        off()
        reject(signal.reason instanceof Error ? signal.reason : new Error('wait for tx aborted'))
      }
      const off = this.deps.engine.events.on('Tx', (ev) => {
        if (!equalBytes(hashTx(ev.tx), hash)) return
        off()
        signal.removeEventListener('abort', onAbort)
        resolve(ev)
      })
      signal.addEventListener('abort', onAbort, { once: true })
    })
  }

  checkTx(tx: Uint8Array): Promise<CheckTxResponse> {
    return this.deps.app.checkTx(tx, 'new')
  }

  // ---- application ----

  abciInfo(): Promise<InfoResponse> {
    return this.deps.app.info()
  }

  async abciQuery(req: AbciQueryRequest): Promise<QueryResponse> {
    if (req.height > BigInt(Number.MAX_SAFE_INTEGER) || req.height < 0n) throw new Error(`invalid height ${req.height}`)
    return this.deps.app.query({ ...req, height: Number(req.height) })
  }

  // ---- consensus ----

  roundState(): RoundStateSummary {
    return this.deps.engine.getRoundState()
  }

  addEvidence(ev: DuplicateVoteEvidence): Promise<void> {
    return this.deps.engine.addEvidence(ev)
  }

  // ---- internals ----

  private requireIndexer(what: 'transaction' | 'block'): EventIndexer {
    if (!this.deps.indexer || !this.deps.txIndex) throw new Error(`${what} indexing is disabled`)
    return this.deps.indexer
  }

  /** The tx with consensus hash `hash` in block `height`, searched from `from` (its EVM index, never above its consensus index). */
  private async findInBlock(height: number, hash: Uint8Array, from: number): Promise<TxResult | undefined> {
    const block = await this.deps.blockStore.loadBlock(height)
    if (!block) return undefined
    let index = -1
    for (let i = Math.min(from, block.txs.length); i < block.txs.length; i++) {
      if (equalBytes(hashTx(block.txs[i]!), hash)) {
        index = i
        break
      }
    }
    if (index < 0) return undefined
    const result = await this.deps.engine.stateStore.loadTxResult(height, index)
    return result ? { height, index, tx: block.txs[index]!, result } : undefined
  }
}
