/**
 * The composition root (docs/architecture.md): the only place that constructs components and wires them:
 * database → application → pool → stores → p2p host → engine → api → servers, each part after what it needs;
 * `stop()` tears down in reverse, idempotently.
 */
import { mkdir } from 'node:fs/promises'
import { CometRpcServer, cometRpcOptionsFromConfig } from '../api/comet/index.js'
import { CometEventSubscriptions } from '../api/comet/events/event-subscriptions.js'
import { BlockStore } from '../comet/block-store.js'
import type { EvmApplication } from '../evm/app.js'
import type { ContractConsole } from '../evm/tracing/contract-console.js'
import { EventIndexer } from '../indexer/event-indexer.js'
import { formatLaddr } from '../config/listen-address.js'
import type { NodeConfig } from '../config/node-config.js'
import { ConsensusEngine, FilePV, LoopbackTransport, StateStore, genesisFromDoc } from '../consensus/index.js'
import { EquivocatingValidator } from '../consensus/equivocating-validator.js'
import { SignedMsgType } from '../comet/types.js'
import { Database } from '../db/database.js'
import { loadNodeKey, nodeIdOf } from '../keystore/validator-key.js'
import { devAccounts } from '../keystore/dev-accounts.js'
import type { TxPool } from '../txpool/index.js'
import { TypedEmitter } from '../utils/events.js'
import type { Logger } from '../utils/logger.js'
import { MemoryReducer } from '../utils/memory-reducer.js'
import { NodeCometBackend } from './comet-backend.js'
import { openAppParts, type AppPartsOptions } from './app-parts.js'
import { DevNodeInfo } from './dev-node-info.js'
import { DevPool } from './dev-pool.js'
import { EvmRpc, type DevRpcBackends, type EvmRpcOverrides } from './evm-rpc.js'
import { publishEvmBlock, type NodeEventMap, type NodeEvents } from './node-events.js'
import { DevMining, type DevMiningSettings } from './dev-mining.js'
import { DevSnapshots } from './dev-snapshots.js'
import type { StateSnapshots } from '../evm/snapshots/state-snapshots.js'
import type { MinerSettings } from './miner-settings.js'
import type { NodeAccounts } from './node-accounts.js'
import { withDevOps } from './dev-mempool.js'
import { createDevRpcBackends } from './dev-backends.js'
import { connectNodeP2P, createNodeP2P, needsP2P, type NodeP2P } from './p2p.js'
import type { NodeMetrics } from './metrics/node-metrics.js'
import type { MetricsServer } from './metrics/metrics-server.js'

/** Addresses the running node listens on (ports resolved when 0 was asked). */
export interface NodeAddresses {
  /** e.g. http://127.0.0.1:8545, undefined when the HTTP JSON-RPC is disabled. */
  jsonRpcHttp: string | undefined
  /** e.g. ws://127.0.0.1:8546, undefined when disabled. */
  jsonRpcWs: string | undefined
  /** e.g. tcp://127.0.0.1:26657, undefined when disabled. */
  cometRpc: string | undefined
  /** The Prometheus endpoint, e.g. http://127.0.0.1:26660/metrics; undefined when `[instrumentation] prometheus` is off. */
  metrics?: string | undefined
}

/**
 * Settings that are not configuration keys: timings and bounds tests shorten (a filter expiry of a
 * second instead of five minutes, a tiny WebSocket send buffer). Production uses the defaults.
 */
export interface NodeOptions extends AppPartsOptions {
  jsonRpc?: EvmRpcOverrides
  /** Byzantine behaviour for fault tests; never set in production. */
  consensus?: {
    /** Sign one conflicting prevote at the first height ≥ this (`nodectl start --unsafe-double-sign-at`). */
    doubleSignAt?: number
  }
  /** Test-only: chunk indexes this node serves corrupted to state-syncing peers (`--unsafe-corrupt-snapshot-chunk`). */
  corruptSnapshotChunks?: number[]
}

interface Components {
  db: Database
  app: EvmApplication
  pool: TxPool
  blockStore: BlockStore
  engine: ConsensusEngine
  miner: MinerSettings
  /** The kv event indexer; undefined when `[tx_index] indexer = "null"`. */
  indexer: EventIndexer | undefined
  /** The key store (`<home>/keystore`) and the unlocked accounts. */
  accounts: NodeAccounts
  /** The p2p host and consensus transport; undefined for a node with no one to talk to (a single validator). */
  p2p: NodeP2P | undefined
  /** The dev methods' state, header and impersonation backends, mining control and snapshots (`--dev` only). */
  devRpc: Pick<DevRpcBackends, 'state' | 'header' | 'impersonation'> | undefined
  devMining: DevMining | undefined
  devSnapshots: DevSnapshots | undefined
  /** State-sync snapshots taken after Commits and served to syncing peers. */
  stateSnapshots: StateSnapshots
  /** Contract console.log printing (`--dev` only). */
  contractConsole: ContractConsole | undefined
  /** The Prometheus metrics; undefined when `[instrumentation] prometheus` is off. */
  metrics: NodeMetrics | undefined
}

export class Node {
  private evmRpc: EvmRpc | undefined
  private memoryReducer: MemoryReducer | undefined
  private cometRpc: CometRpcServer | undefined
  private cometSubscriptions: CometEventSubscriptions | undefined
  private metricsServer: MetricsServer | undefined
  private stopping: Promise<void> | undefined
  private resolveHalted: (err: Error) => void = () => {}
  /**
   * Resolves, once the node has stopped, with the error that halted consensus (the height's batch could
   * not be written, a replayed block disagrees...); never otherwise. CometBFT panics there: a node that
   * answers `/health` while it commits nothing would hide the failure, so this one stops and says why.
   */
  readonly halted = new Promise<Error>((resolve) => (this.resolveHalted = resolve))

  private constructor(
    readonly config: NodeConfig,
    private readonly log: Logger,
    private readonly c: Components,
    /** The node's one event emitter (node-events.ts): committed heights, consensus steps, sync progress. */
    readonly events: NodeEvents,
    private readonly options: NodeOptions = {},
  ) {}

  /** Builds every component from the resolved configuration and opens the database. */
  static async create(config: NodeConfig, log: Logger, options: NodeOptions = {}): Promise<Node> {
    await mkdir(config.paths.dataDir, { recursive: true })
    const db = new Database({ path: config.paths.db })
    await db.open()
    try {
      // Loaded only when on: a node without metrics runs no prom-client code and counts nothing.
      const metrics = config.instrumentation.prometheus
        ? new (await import('./metrics/node-metrics.js')).NodeMetrics(
            config.instrumentation,
            config.chainId,
            log.child({ module: 'metrics' }),
          )
        : undefined
      const { app, pool, miner, accounts, contractConsole, snapshots } = await openAppParts(config, db, log, options, metrics?.txPool)
      const blockStore = new BlockStore(db)
      await blockStore.open()
      // Consensus state (FinalizeBlock responses, validator sets): written by the engine, read by the indexer.
      const stateStore = new StateStore(db)
      // Staged by the engine with each height's block; reads the tx results and block events back from the state store.
      const indexer =
        config.txIndex.indexer === 'null'
          ? undefined
          : new EventIndexer({
              db,
              loadTx: async (height, index) => {
                const [tx, result] = await Promise.all([blockStore.loadBlockTx(height, index), stateStore.loadTxResult(height, index)])
                return tx && result ? { tx, result } : undefined
              },
              loadBlockEvents: (height) => stateStore.loadFinalizeBlockEvents(height),
            })
      const filePV = await FilePV.load(config.paths.privValidatorKey, config.paths.privValidatorState)
      const snapshotFaults = options.corruptSnapshotChunks ? { corruptChunks: options.corruptSnapshotChunks } : undefined
      const p2p = needsP2P(config)
        ? await createNodeP2P(config, { blockStore, pool, snapshots, ...(snapshotFaults ? { snapshotFaults } : {}) }, log)
        : undefined
      const doubleSignAt = options.consensus?.doubleSignAt
      const privValidator =
        doubleSignAt === undefined
          ? filePV
          : new EquivocatingValidator(
              filePV,
              filePV.key,
              () => p2p?.transport ?? new LoopbackTransport(),
              (vote) => vote.height >= doubleSignAt && vote.type === SignedMsgType.Prevote,
            )
      const events: NodeEvents = new TypedEmitter<NodeEventMap>()
      const devOps = app.devOps
      // With automine off, a set (a queued dev operation) still makes its block at once.
      const miningSettings: DevMiningSettings | undefined =
        config.dev && devOps ? { automine: true, blockWanted: () => devOps.blockWanted() > 0 } : undefined
      const engine = new ConsensusEngine({
        config: config.consensus,
        genesis: genesisFromDoc(config.genesis),
        db,
        blockStore,
        stateStore,
        app: metrics ? metrics.timeApplication(app) : app,
        mempool: app.devOps ? withDevOps(pool, app.devOps, () => app.nextBlockGasLimit()) : pool,
        privValidator,
        walPath: config.paths.wal,
        logger: log,
        events,
        onCommitted: (height) => publishEvmBlock(events, app, height),
        ...(miningSettings ? { mining: miningSettings } : {}),
        ...(indexer ? { indexer } : {}),
        ...(p2p
          ? {
              transport: p2p.transport,
              blockSync: p2p.blockSync,
              onPendingEvidence: (ev) => p2p.evidence.announce(ev),
              onSyncProgress: (progress) => events.emit('syncProgress', progress),
              stateSync: {
                config: config.statesync,
                source: p2p.snapshots,
                snapshots,
                onChunk: (progress) => events.emit('stateSyncProgress', progress),
              },
            }
          : {}),
      })
      if (p2p) connectNodeP2P(p2p, engine, pool)
      metrics?.watch({
        engine,
        pool,
        blockStore,
        events,
        p2p: p2p?.host,
        latestHeight: () => app.latestHeight(),
        stateSyncing: () => engine.stateSyncing,
      })
      const devLog = log.child({ module: 'dev' })
      const devRpc = devOps && createDevRpcBackends(app, devOps, pool)
      const devMining = miningSettings && devOps && devRpc && new DevMining(miningSettings, engine, app, devLog, devRpc.header, devOps)
      const devSnapshots = config.dev ? new DevSnapshots(engine, app, pool, events, devLog) : undefined
      const components = {
        db,
        app,
        pool,
        blockStore,
        engine,
        miner,
        indexer,
        accounts,
        p2p,
        devRpc,
        devMining,
        devSnapshots,
        stateSnapshots: snapshots,
        contractConsole,
        metrics,
      }
      return new Node(config, log, components, events, options)
    } catch (err) {
      await db.close()
      throw err
    }
  }

  /**
   * Starts the p2p host (when there is one), the consensus handshake, the EVM RPC listeners, consensus
   * (WAL replay, the first round) and the consensus RPC listener.
   */
  async start(): Promise<NodeAddresses> {
    const { config, c } = this
    // As geth --dev, Anvil and Hardhat: the dev accounts sign from the first request on.
    if (config.dev) c.accounts.unlockDevAccounts(devAccounts())
    await c.p2p?.host.start()
    const addresses: NodeAddresses = { jsonRpcHttp: undefined, jsonRpcWs: undefined, cometRpc: undefined }
    try {
      // Before the handshake: a state sync (part of it) shows in `statesync_syncing` while it runs.
      if (c.metrics) {
        this.metricsServer = await c.metrics.serve()
        addresses.metrics = `${this.metricsServer.url}/metrics`
      }
      await c.engine.handshake()
      if (config.jsonRpc.enable) {
        this.evmRpc = await EvmRpc.start({
          config,
          log: this.log,
          app: c.app,
          events: this.events,
          pool: c.pool,
          accounts: c.accounts,
          // A dev chain's anvil_setCoinbase, once a block has carried it, comes first.
          coinbase: () =>
            c.app.currentDevSettings().coinbase ??
            c.miner.etherbase ??
            c.app.feeRecipientOf(c.engine.validatorAddress ?? new Uint8Array(20)),
          syncStatus: () => c.engine.syncStatus(),
          peerCount: () => c.p2p?.host.peers().length ?? 0,
          miner: c.miner,
          overrides: this.options.jsonRpc,
          ...(c.metrics ? { methodObserver: c.metrics.rpc } : {}),
          ...(config.dev ? { dev: this.devBackends() } : {}),
        })
        addresses.jsonRpcHttp = this.evmRpc.httpUrl
        addresses.jsonRpcWs = this.evmRpc.wsUrl
      }
      // After the handshake the app's state is current: EVM clients are served while consensus replays its WAL.
      await c.engine.start()
      void c.engine.halted.then(async (err) => {
        this.log.error('consensus halted, stopping the node', { err })
        await this.stop().catch((stopErr: unknown) => this.log.error('error while stopping the node', { err: stopErr }))
        this.resolveHalted(err)
      })
      if (config.rpc.laddr) {
        const nodeKey = await loadNodeKey(config.paths.nodeKey)
        const backend = new NodeCometBackend({
          app: c.app,
          pool: c.pool,
          blockStore: c.blockStore,
          engine: c.engine,
          genesis: config.genesis,
          genesisPath: config.paths.genesis,
          nodeId: nodeIdOf(nodeKey),
          moniker: config.moniker,
          p2pListenAddr: c.p2p ? c.p2p.host.nodeInfo.listenAddr : formatLaddr(config.p2p.laddr),
          ...(c.p2p ? { p2p: c.p2p } : {}),
          rpcAddress: () => (this.cometRpc ? formatLaddr(this.cometRpc.address) : formatLaddr(config.rpc.laddr)),
          txIndex: config.txIndex.indexer !== 'null',
          ...(c.indexer ? { indexer: c.indexer } : {}),
        })
        const cometLog = this.log.child({ module: 'rpc' })
        this.cometSubscriptions = new CometEventSubscriptions(
          this.events,
          { maxSubscriptionClients: config.rpc.maxSubscriptionClients, maxSubscriptionsPerClient: config.rpc.maxSubscriptionsPerClient },
          cometLog,
        )
        this.cometRpc = await CometRpcServer.start({
          backend,
          options: cometRpcOptionsFromConfig(config.rpc),
          log: cometLog,
          subscriptions: this.cometSubscriptions,
        })
        addresses.cometRpc = formatLaddr(this.cometRpc.address)
      }
    } catch (err) {
      await this.stop()
      throw err
    }
    this.memoryReducer = new MemoryReducer({}, undefined, (before, after) =>
      this.log.debug('returned heap memory to the system', {
        beforeMb: Math.round(before / 2 ** 20),
        afterMb: Math.round(after / 2 ** 20),
      }),
    )
    this.memoryReducer.start()
    if (config.dev) c.accounts.writeDevKeyFiles(devAccounts())
    this.log.info('node started', { chainId: config.chainId, height: c.app.latestHeight() })
    return addresses
  }

  /** Stops accepting requests, finishes the current height's write, closes the database. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown()
    return this.stopping
  }

  private async shutdown(): Promise<void> {
    this.memoryReducer?.stop()
    this.c.devMining?.stop()
    this.cometSubscriptions?.close()
    await this.metricsServer?.close()
    this.c.metrics?.stop()
    await this.cometRpc?.close(1000)
    await this.evmRpc?.close()
    // No request can sign any more: finish the dev key files, then overwrite every unlocked key.
    await this.c.accounts.stop()
    await this.c.engine.stop()
    await this.c.stateSnapshots.close()
    await this.c.app.close()
    await this.c.p2p?.host.stop()
    await this.c.db.close()
    this.log.info('node stopped')
  }

  /** The dev methods' backends over this node's parts (`--dev` only: docs/dev-chain.md). */
  private devBackends(): DevRpcBackends {
    const { devRpc, devMining, devSnapshots, contractConsole } = this.c
    if (!devRpc || !devMining || !devSnapshots || !contractConsole) throw new Error('the dev methods need a node started with --dev')
    return {
      ...devRpc,
      mining: devMining,
      snapshots: devSnapshots,
      pool: new DevPool(this.c.pool, this.c.app),
      logging: {
        setLoggingEnabled: (on) => {
          contractConsole.enabled = on
        },
      },
      nodeInfo: new DevNodeInfo(this.c.app, () => devSnapshots.entries(), this.config.jsonRpc.clientIdentity),
    }
  }

  /** The components, for tests and in-process tools. */
  get components(): Readonly<Components> {
    return this.c
  }
}
