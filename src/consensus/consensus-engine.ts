/**
 * The consensus component as the node sees it: start-up (handshake with the app, WAL open and catch-up
 * replay), the state machine and the reactor that connects it to peers through the transport, block sync,
 * and the getters the RPC layer needs. Built by `node/` with its slice of the options; `stop()` finishes
 * the height being written, then stops timers and closes the WAL.
 *
 * Two modes, as CometBFT's node: consensus, and block sync (block-sync.ts) while peers are ahead. The node
 * starts in consensus (so RPC and the round state are there at once); a peer reporting a height
 * `BLOCK_SYNC_LAG` or more ahead (this node was stopped, paused, partitioned or slow) stops the state
 * machine, syncs, and starts a new one at the synced height. Consensus gossip alone serves only the
 * previous height, so a node further behind could never catch up without this.
 */
import type { BlockStore } from '../comet/block-store.js'
import { hashTxResults } from '../comet/hash.js'
import type { DuplicateVoteEvidence } from '../comet/types.js'
import { BlockIDFlag } from '../abci/types.js'
import type { ValidatorSet } from '../comet/validator-set.js'
import type { ConsensusConfig } from '../config/node-config.js'
import type { Database } from '../db/database.js'
import type { WriteStage } from '../db/write-stage.js'
import { equalBytes } from '../primitives/hex.js'
import { TypedEmitter } from '../utils/events.js'
import { silentLogger, type Logger } from '../utils/logger.js'
import type { Application } from '../abci/application.js'
import type { Mempool } from './mempool.js'
import { BlockExecutor } from './block-executor.js'
import type { BlockIndexHook } from './block-index-hook.js'
import { BlockSyncer, type BlockSyncSource, type SyncProgress } from './block-sync.js'
import { copyState, makeGenesisState, type ChainState, type ConsensusGenesis } from './chain-state.js'
import type { ConsensusEvents } from './events.js'
import { EvidencePool } from './evidence-pool.js'
import { handshake } from './handshake.js'
import { validateConsensusConfig } from './options.js'
import type { PrivValidator } from './privval.js'
import type { MineRun, MiningControl } from './mining-control.js'
import type { PeerRoundState } from './peer-state.js'
import { ConsensusReactor } from './reactor.js'
import { ConsensusState, type RoundStateSummary } from './state-machine.js'
import { StateStore } from './state-store.js'
import { LoopbackTransport, type ConsensusTransport } from './transport.js'
import { voteSetFromCommit, type VoteSet } from './vote-set.js'
import { Wal } from './wal.js'
import { runStateSync, type StateSyncSetup, validateStateSyncConfig } from './statesync/state-sync.js'

/** The application's side of `ConsensusEngine.rewind`. */
export interface RewindableApp {
  /** Stages the removal of the heights above `height` and `height` as the head again. */
  stageRollback(stage: WriteStage, height: number): Promise<void>
  /** Reloads the head once the stage is written. */
  rewound(): Promise<void>
}

export interface ConsensusEngineOptions {
  /** Timeouts and empty-block behaviour (`[consensus]`). */
  config: ConsensusConfig
  genesis: ConsensusGenesis
  /** The node's one database; the engine's writes go to a stage of its own in it. */
  db: Database
  blockStore: BlockStore
  /** Defaults to a StateStore over `db`. */
  stateStore?: StateStore
  app: Application
  mempool: Mempool
  /** Our signer; undefined for a node that follows without voting. */
  privValidator?: PrivValidator
  /** Defaults to the single-node loopback. */
  transport?: ConsensusTransport
  /** WAL head file, e.g. `<home>/data/cs.wal/wal`. */
  walPath: string
  logger?: Logger
  /** Interval of the reactor's gossip to peers of what they lack, in ms (default 500; 0 = off). */
  gossipIntervalMs?: number
  /** Event indexer staged with each height's block (undefined = `[tx_index] indexer = "null"`). */
  indexer?: BlockIndexHook
  /** Where the engine emits its events: the node's one emitter; default one of its own. */
  events?: TypedEmitter<ConsensusEvents>
  /** Called with each height once both sides have written it, before its events (BlockExecutorOptions.onCommitted). */
  onCommitted?: (height: number) => void
  /** Peers to block-sync from; undefined for a node without peers (it never falls behind anyone). */
  blockSync?: BlockSyncSource
  /** Called after each block applied by block sync. */
  onSyncProgress?: (progress: SyncProgress) => void
  /** Called with each evidence that becomes pending (gossip it to peers). */
  onPendingEvidence?: (ev: DuplicateVoteEvidence) => void
  /** A dev chain's mining settings (mining-control.ts); absent on every other chain. */
  mining?: MiningControl
  /** `[statesync]` with the peers' snapshots: a node without state restores one before consensus. */
  stateSync?: StateSyncSetup
}

/**
 * A peer this many heights ahead triggers block sync: one height behind is normal (a peer that committed
 * first) and consensus gossip serves it the previous block; two or more cannot be caught up by consensus.
 */
const BLOCK_SYNC_LAG = 2

/** Sync status for `status.sync_info.catching_up`, `eth_syncing` and the CLI. */
export interface SyncStatus {
  /** True while block-syncing. */
  catchingUp: boolean
  /** The running (or last) sync; undefined before any. */
  progress: SyncProgress | undefined
}

export class ConsensusEngine {
  /** Every consensus event (events.ts); adapters (RPC subscriptions, indexers) listen here. */
  readonly events: TypedEmitter<ConsensusEvents>
  readonly stateStore: StateStore
  private readonly log: Logger
  private cs: ConsensusState | undefined
  private evidencePool: EvidencePool | undefined
  private blockExec: BlockExecutor | undefined
  private reactor: ConsensusReactor | undefined
  private wal: Wal | undefined
  private unsubscribe: (() => void)[] = []
  /** The chain state after the handshake and the last block's precommits. */
  private handshaken: { state: ChainState; lastCommit: VoteSet | undefined } | undefined
  private started = false
  private stopped: Promise<void> | undefined
  /** Set by stop(): a block sync in progress ends without starting consensus again. */
  private stopping = false
  private mode: 'consensus' | 'blocksync' = 'consensus'
  /** The switch to block sync and back, while one runs. */
  private switching: Promise<void> | undefined
  private readonly syncAbort = new AbortController()
  private lastSync: SyncProgress | undefined
  private stateSyncRunning = false
  private fatal: Error | undefined
  /** The batch of a dev chain's rewind (created at the first). */
  private rewindStage: WriteStage | undefined
  private resolveHalted: (err: Error) => void = () => {}
  /**
   * Resolves with the error once consensus stops on an unrecoverable one (the height's batch could not be
   * written, a replayed block disagrees...). The node then stops: CometBFT panics in these places, and a
   * process that serves `/health` while committing nothing is worse than one that exits and says why.
   */
  readonly halted = new Promise<Error>((resolve) => (this.resolveHalted = resolve))

  constructor(private readonly opts: ConsensusEngineOptions) {
    this.stateStore = opts.stateStore ?? new StateStore(opts.db)
    this.events = opts.events ?? new TypedEmitter<ConsensusEvents>()
    this.log = (opts.logger ?? silentLogger).child({ module: 'consensus' })
  }

  /**
   * Handshake with the app (replays the stored blocks it lacks) and check what a restart must before
   * signing. A node opens its RPC listeners after this and before `start` (as CometBFT's: the app's
   * state is current, consensus not yet running). Called by `start` when not called first.
   */
  async handshake(): Promise<void> {
    if (this.handshaken) throw new Error('consensus engine handshake already done')
    const { opts } = this
    validateConsensusConfig(opts.config)
    await opts.blockStore.open()
    if (opts.stateSync?.config.enable) await this.stateSyncIfEmpty(opts.stateSync)
    const state = await handshake({
      genesis: opts.genesis,
      db: opts.db,
      blockStore: opts.blockStore,
      stateStore: this.stateStore,
      app: opts.app,
      logger: this.log,
    })
    if (state.consensusParams.abci.voteExtensionsEnableHeight > 0n) {
      // Precommits would have to carry extensions from that height on; signing and checking them is not built yet.
      throw new Error('consensus_params.abci.vote_extensions_enable_height > 0: vote extensions are not supported by this node')
    }
    await this.checkDoubleSigningRisk(state)
    this.handshaken = { state, lastCommit: await this.reconstructLastCommit(state) }
  }

  /** True while state sync restores a snapshot (the `statesync_syncing` metric). */
  get stateSyncing(): boolean {
    return this.stateSyncRunning
  }

  /**
   * `[statesync] enable` on a node without state: restores a peer's snapshot into the application and stores
   * the state after its height and that height's commit, so that the handshake finds the application there and
   * block sync continues from the next height. As CometBFT, the application gets no InitChain then (the
   * snapshot replaces genesis), and a node that has state already starts from it, so a state-synced node
   * restarts as any other.
   */
  private async stateSyncIfEmpty(setup: StateSyncSetup): Promise<void> {
    const { opts } = this
    validateStateSyncConfig(setup.config)
    const stored = await this.stateStore.load()
    if ((stored?.lastBlockHeight ?? 0) > 0 || opts.blockStore.height() > 0) {
      this.log.info('found local state, skipping state sync', { height: stored?.lastBlockHeight ?? opts.blockStore.height() })
      return
    }
    this.stateSyncRunning = true
    const log = this.log.child({ module: 'statesync' })
    try {
      log.info('starting state sync', { trustHeight: setup.config.trustHeight, rpcServers: setup.config.rpcServers.join(',') })
      const synced = await runStateSync(setup, {
        initial: makeGenesisState(opts.genesis),
        info: () => opts.app.info(),
        logger: log,
        onStatus: (status) => this.emitSafely('StateSyncStatus', status),
        signal: this.syncAbort.signal,
      })
      const stage = opts.db.createStage()
      this.stateStore.bootstrap(stage, synced.state)
      opts.blockStore.bootstrap(stage, synced.commit)
      await stage.write()
      log.info('state sync complete, continuing with block sync', { height: synced.state.lastBlockHeight })
    } finally {
      this.stateSyncRunning = false
    }
  }

  /** Open and replay the WAL, then run (after `handshake`, which it does when not done). */
  async start(): Promise<void> {
    if (this.started) throw new Error('consensus engine already started')
    this.started = true
    if (!this.handshaken) await this.handshake()
    const { state, lastCommit } = this.handshaken!
    const { opts } = this
    this.wal = await Wal.open({ path: opts.walPath, logger: this.log })
    const evidencePool = await EvidencePool.open({
      db: opts.db,
      blockStore: opts.blockStore,
      stateStore: this.stateStore,
      state,
      logger: this.log.child({ module: 'evidence' }),
      ...(opts.onPendingEvidence ? { onPending: opts.onPendingEvidence } : {}),
    })
    this.evidencePool = evidencePool
    this.blockExec = new BlockExecutor({
      db: opts.db,
      blockStore: opts.blockStore,
      stateStore: this.stateStore,
      app: opts.app,
      mempool: opts.mempool,
      events: this.events,
      evidencePool,
      logger: this.log,
      ...(opts.indexer ? { indexer: opts.indexer } : {}),
      ...(opts.onCommitted ? { onCommitted: opts.onCommitted } : {}),
    })
    this.reactor = new ConsensusReactor({
      transport: opts.transport ?? new LoopbackTransport(),
      events: this.events,
      blockStore: opts.blockStore,
      logger: this.log.child({ module: 'reactor' }),
      ...(opts.gossipIntervalMs !== undefined ? { gossipIntervalMs: opts.gossipIntervalMs } : {}),
    })
    this.reactor.start()
    this.unsubscribe.push(() => this.reactor?.stop())
    this.unsubscribe.push(
      opts.mempool.onTxsAvailable(() => {
        if (this.mode === 'consensus') this.cs?.notifyTxsAvailable()
      }),
    )
    await this.startConsensus(state, lastCommit)
    if (opts.blockSync) {
      const source = opts.blockSync
      this.unsubscribe.push(source.onPeerHeight((height) => this.onPeerHeight(height, source)))
      // Peers that connected while the engine started have reported already (and a halted chain reports no more).
      this.onPeerHeight(source.maxPeerHeight(), source)
    }
  }

  /** Builds the state machine at `state`, replays the WAL of its height and runs it. */
  private async startConsensus(state: ChainState, lastCommit: VoteSet | undefined): Promise<void> {
    const { opts } = this
    const cs = new ConsensusState({
      config: opts.config,
      state,
      lastCommit,
      blockExec: this.blockExec!,
      evidence: this.evidencePool!,
      blockStore: opts.blockStore,
      mempool: opts.mempool,
      privValidator: opts.privValidator,
      onOwnMessage: (msg) => this.reactor!.broadcastOwn(msg),
      wal: this.wal!,
      events: this.events,
      logger: this.log,
      onFatal: (err) => this.resolveHalted(err),
      ...(opts.mining ? { mining: opts.mining } : {}),
    })
    this.cs = cs
    this.reactor!.attach(cs)
    await cs.catchupReplay()
    this.mode = 'consensus'
    cs.start()
    this.log.info('consensus started', { height: cs.roundState.height, validator: opts.privValidator !== undefined })
  }

  /** A peer reported its height: far enough ahead, leave consensus for block sync. */
  private onPeerHeight(height: number, source: BlockSyncSource): void {
    const cs = this.cs
    if (this.mode !== 'consensus' || this.switching || this.stopping || !cs?.isRunning) return
    if (height < cs.roundState.state.lastBlockHeight + BLOCK_SYNC_LAG) return
    this.switching = (async () => {
      this.mode = 'blocksync'
      this.reactor!.detach()
      await cs.stop()
      if (cs.fatalError) this.fatal = cs.fatalError
      if (this.fatal || this.stopping) return
      const state = await this.blockSync(copyState(cs.roundState.state), source)
      if (this.stopping) return
      await this.startConsensus(state, await this.reconstructLastCommit(state))
      this.emitSafely('BlockSyncStatus', { complete: true, height: state.lastBlockHeight })
    })()
      .catch((err: unknown) => {
        this.fatal = err instanceof Error ? err : new Error(String(err))
        this.log.error('consensus halted', { during: 'block sync', err: this.fatal })
        this.resolveHalted(this.fatal)
      })
      .finally(() => {
        this.switching = undefined
      })
  }

  /**
   * Applies blocks from peers until caught up; marks the last one in the WAL so a restart replays from there.
   * The caller starts consensus and then emits `BlockSyncStatus` complete.
   */
  private async blockSync(from: ChainState, source: BlockSyncSource): Promise<ChainState> {
    this.mode = 'blocksync'
    this.emitSafely('BlockSyncStatus', { complete: false, height: from.lastBlockHeight })
    this.log.info('block sync started', { height: from.lastBlockHeight, peersAt: source.maxPeerHeight() })
    this.lastSync = { startHeight: from.lastBlockHeight, height: from.lastBlockHeight, target: source.maxPeerHeight(), blocksPerSecond: 0 }
    const syncer = new BlockSyncer({
      source,
      blockExec: this.blockExec!,
      logger: this.log,
      onProgress: (progress) => {
        this.lastSync = progress
        this.opts.onSyncProgress?.(progress)
      },
    })
    const state = await syncer.run(from, this.syncAbort.signal)
    if (state.lastBlockHeight > from.lastBlockHeight) await this.wal!.writeSync({ type: 'endHeight', height: state.lastBlockHeight })
    this.log.info('block sync finished', { height: state.lastBlockHeight, synced: state.lastBlockHeight - from.lastBlockHeight })
    return state
  }

  private emitSafely<K extends keyof ConsensusEvents>(name: K, payload: ConsensusEvents[K]): void {
    try {
      this.events.emit(name, payload)
    } catch (err) {
      this.log.error('event listener failed', { event: name, err })
    }
  }

  /** Finishes the item being handled (a height being written completes), stops timers, closes the WAL. Idempotent. */
  stop(): Promise<void> {
    this.stopping = true
    this.stopped ??= (async () => {
      for (const u of this.unsubscribe) u()
      this.unsubscribe = []
      this.syncAbort.abort()
      await this.switching
      await this.cs?.stop()
      await this.blockExec?.close()
      await this.wal?.close()
      this.log.info('consensus stopped', { height: this.cs?.roundState.height })
    })()
    return this.stopped
  }

  /** Resolves once the stores are pruned to the last retain height the application returned (tests, measurements). */
  async pruned(): Promise<void> {
    await this.blockExec?.pruner.drained()
  }

  /** Resolves once everything queued for the state machine before the call has been handled (`ConsensusState.drained`). */
  drained(): Promise<void> {
    return this.requireCs().drained()
  }

  /**
   * A dev chain: makes `run.blocks` heights now, whatever the mining settings (`ConsensusState.mine`);
   * resolves once the last is committed.
   */
  mine(run: MineRun): Promise<void> {
    return this.requireCs().mine(run)
  }

  /**
   * A dev chain's revert (docs/dev-chain.md, "Snapshots"): pauses consensus, rolls every store back to
   * `state` (the chain state saved at its height) in one atomic batch, and runs again at the next height.
   * `app` stages the application's side into the same batch and reloads once it is written. Before the
   * batch, the WAL gets a #ENDHEIGHT of that height (a restart replays from there) and the signer may sign
   * that height's successor again: a crash at any point restarts on the old chain or on the reverted
   * one, never on a mix. `beforeResume` runs with the stores rolled back, before consensus runs again.
   */
  async rewind(state: ChainState, app: RewindableApp, beforeResume: () => Promise<void>): Promise<void> {
    const cs = this.requireCs()
    if (this.mode !== 'consensus' || this.switching || this.stopping || !cs.isRunning) throw new Error('consensus is not running')
    const height = state.lastBlockHeight
    const top = this.opts.blockStore.height()
    if (height > top) throw new Error(`cannot rewind to height ${height}: the chain is at ${top}`)
    this.reactor!.detach()
    await cs.stop()
    if (cs.fatalError) throw cs.fatalError
    const { blockStore, indexer, privValidator } = this.opts
    await this.wal!.writeSync({ type: 'endHeight', height })
    await privValidator?.rewindTo?.(height)
    this.rewindStage ??= this.opts.db.createStage()
    const stage = this.rewindStage
    try {
      // Each owner reads what it removes before staging the removal: reads see the stage first.
      for (let h = height + 1; h <= top && indexer; h++) {
        const [block, response] = await Promise.all([blockStore.loadBlock(h), this.stateStore.loadFinalizeBlockResponse(h)])
        if (block && response) await indexer.stageRemoval(stage, block, response)
      }
      await app.stageRollback(stage, height)
      await this.stateStore.stageRollback(stage, state, top)
      await blockStore.stageRollback(stage, height)
      await stage.write()
    } catch (err) {
      // Nothing was written: the chain is as it was, and runs on from where it was.
      stage.discard()
      await this.startConsensus(copyState(cs.roundState.state), await this.reconstructLastCommit(cs.roundState.state))
      throw err
    }
    await blockStore.open()
    this.evidencePool!.rewind(copyState(state))
    await app.rewound()
    await beforeResume()
    this.log.info('chain rewound', { height, removed: top - height })
    await this.startConsensus(state, await this.reconstructLastCommit(state))
  }

  /**
   * The chain state before the first block, as the handshake makes it after InitChain, for a chain whose
   * application returned no validators there (a dev chain's reset to genesis): `appHash` is the
   * application's genesis state root.
   */
  genesisState(appHash: Uint8Array): ChainState {
    const { appVersion } = this.requireCs().roundState.state
    return { ...makeGenesisState(this.opts.genesis), appVersion, appHash, lastResultsHash: hashTxResults([]) }
  }

  /** A dev chain whose automine was just turned on: propose what the pool holds, as if it had just arrived. */
  proposePending(): void {
    if (this.mode === 'consensus') this.cs?.notifyTxsAvailable()
  }

  /** The latest committed chain state (a copy). */
  getState(): ChainState {
    return copyState(this.requireCs().roundState.state)
  }

  /** Height and round being decided, votes received, locks. */
  getRoundState(): RoundStateSummary {
    return this.requireCs().getRoundState()
  }

  /**
   * Verifies evidence (`broadcast_evidence`) and keeps it for the next proposals; a no-op when it is
   * already pending. Throws InvalidEvidenceError with the reason it is refused (already committed included).
   */
  async addEvidence(ev: DuplicateVoteEvidence): Promise<void> {
    if (!this.evidencePool) throw new Error('consensus engine is not started')
    await this.evidencePool.add(ev)
  }

  /** The pending evidence, oldest first ([] before start). */
  pendingEvidence(): DuplicateVoteEvidence[] {
    return this.evidencePool?.pendingList() ?? []
  }

  /** Number of pending evidence (0 before start). */
  get pendingEvidenceCount(): number {
    return this.evidencePool?.size ?? 0
  }

  /** The validator set of block `height` (with the proposer priorities it started with). */
  getValidators(height: number): Promise<ValidatorSet | undefined> {
    return this.stateStore.loadValidators(height)
  }

  /** Our validator address; undefined for a node without a signer. */
  get validatorAddress(): Uint8Array | undefined {
    return this.opts.privValidator?.address
  }

  /** Our validator public key (ed25519); undefined without a signer. */
  get validatorPubKey(): Uint8Array | undefined {
    return this.opts.privValidator?.pubKey
  }

  /** Each connected peer's announced round state (`dump_consensus_state`), by node id ({} before start). */
  peerRoundStates(): Map<string, PeerRoundState> {
    return this.reactor?.peerRoundStates() ?? new Map()
  }

  /** Height of the last committed block (0 before the first). */
  get height(): number {
    if (this.mode === 'blocksync' && this.lastSync) return this.lastSync.height
    return this.cs?.roundState.state.lastBlockHeight ?? 0
  }

  /** Set when consensus stopped on an unrecoverable error. */
  get fatalError(): Error | undefined {
    return this.fatal ?? this.cs?.fatalError
  }

  get isRunning(): boolean {
    if (this.fatal || this.stopping) return false
    return this.mode === 'blocksync' || (this.cs?.isRunning ?? false)
  }

  /** Whether the node is block-syncing, and how far the last sync got. */
  syncStatus(): SyncStatus {
    return { catchingUp: this.mode === 'blocksync', progress: this.lastSync }
  }

  private requireCs(): ConsensusState {
    if (!this.cs) throw new Error('consensus engine is not started')
    return this.cs
  }

  /** `reconstructLastCommit`: the precommits of the last block from the stored seen commit. */
  private async reconstructLastCommit(state: ChainState): Promise<VoteSet | undefined> {
    if (state.lastBlockHeight === 0) return undefined
    const commit =
      (await this.opts.blockStore.loadSeenCommit(state.lastBlockHeight)) ??
      (await this.opts.blockStore.loadBlockCommit(state.lastBlockHeight))
    if (!commit) throw new Error(`failed to reconstruct last commit; seen commit for height ${state.lastBlockHeight} not found`)
    const set = voteSetFromCommit(state.chainId, commit, state.lastValidators)
    if (!set.hasTwoThirdsMajority()) throw new Error('failed to reconstruct last commit; does not have +2/3 maj')
    return set
  }

  /**
   * `checkDoubleSigningRisk` (`double_sign_check_height`): refuse to start when our signature is in one of
   * the last N commits — another instance with this key may be running.
   */
  private async checkDoubleSigningRisk(state: ChainState): Promise<void> {
    const pv = this.opts.privValidator
    const n = this.opts.config.doubleSignCheckHeight
    const height = state.lastBlockHeight + 1
    if (!pv || n <= 0) return
    const limit = Math.min(n, height)
    for (let i = 1; i < limit; i++) {
      const commit = (await this.opts.blockStore.loadBlockCommit(height - i)) ?? (await this.opts.blockStore.loadSeenCommit(height - i))
      if (!commit) continue
      for (const sig of commit.signatures) {
        if (sig.blockIdFlag === BlockIDFlag.Commit && equalBytes(sig.validatorAddress, pv.address)) {
          throw new Error(`found signature from the same key in the block of height ${height - i} (double_sign_check_height)`)
        }
      }
    }
  }
}
