/**
 * The node's Prometheus metrics (docs/metrics.md), built only when `[instrumentation] prometheus` is on:
 * node.ts loads this module then, so a node without metrics loads no prom-client and counts nothing.
 * Two registries: CometBFT's series under `<namespace>_<subsystem>_<name>` with the label `chain_id`,
 * and geth's EVM series with the process metrics, unprefixed and unlabelled as geth exports them.
 * Components count through narrow recorders (the pool's `TxPoolMetrics`, the JSON-RPC's
 * `MethodCallObserver`, the timed application); gauges of state are read from the parts at each scrape.
 */
import { Registry, collectDefaultMetrics } from 'prom-client'
import type { Application } from '../../abci/application.js'
import type { BlockStore } from '../../comet/block-store.js'
import type { InstrumentationConfig } from '../../config/node-config.js'
import type { ConsensusEngine } from '../../consensus/consensus-engine.js'
import type { ConsensusEvents } from '../../consensus/events.js'
import type { P2PNode } from '../../p2p/p2p-node.js'
import type { MethodCallObserver } from '../../rpc/timed-methods.js'
import type { TxPool, TxPoolMetrics } from '../../txpool/index.js'
import type { TypedEmitter } from '../../utils/events.js'
import type { Logger } from '../../utils/logger.js'
import { watchChainHead } from './chain-metrics.js'
import { CometSeries } from './comet-series.js'
import { watchConsensus } from './consensus-metrics.js'
import { createMempoolMetrics } from './mempool-metrics.js'
import { MetricsServer } from './metrics-server.js'
import { watchPeers } from './p2p-metrics.js'
import { createRpcMetrics } from './rpc-metrics.js'
import { createStateMetrics, timeApplication, type AbciTimer } from './state-metrics.js'
import { watchSync } from './sync-metrics.js'

/** The parts whose state the gauges read, once the node has built them. */
export interface MetricsSources {
  engine: ConsensusEngine
  pool: TxPool
  blockStore: BlockStore
  events: TypedEmitter<ConsensusEvents>
  /** The p2p host; undefined for a node without peers. */
  p2p: Pick<P2PNode, 'peers'> | undefined
  /** Height of the latest block the EVM side serves. */
  latestHeight(): number
  /** True while the node restores a state snapshot (state sync); never when absent. */
  stateSyncing?: () => boolean
}

export class NodeMetrics {
  private readonly comet = new Registry()
  private readonly geth = new Registry()
  private readonly series: CometSeries
  private sources: MetricsSources | undefined
  private unwatch: (() => void) | undefined
  /** What the pool counts through (hand it to the pool as it is built). */
  readonly txPool: TxPoolMetrics
  /** What the EVM JSON-RPC's tables report each call to. */
  readonly rpc: MethodCallObserver
  private readonly abciTimer: AbciTimer

  constructor(
    private readonly config: InstrumentationConfig,
    chainId: string,
    private readonly log: Logger,
  ) {
    this.series = new CometSeries(this.comet, config.namespace, chainId)
    this.txPool = createMempoolMetrics(this.series, this.geth, () => this.sources?.pool)
    this.rpc = createRpcMetrics(this.geth)
    this.abciTimer = createStateMetrics(this.series, this.geth)
    collectDefaultMetrics({ register: this.geth })
  }

  /** `app` as the engine should call it: each ABCI call timed. */
  timeApplication<A extends Application>(app: A): A {
    return timeApplication(app, this.abciTimer)
  }

  /** Starts reading the parts' state and listening to their events. */
  watch(sources: MetricsSources): void {
    this.sources = sources
    this.unwatch = watchConsensus(this.series, sources, this.log)
    watchSync(this.series, { engine: sources.engine, ...(sources.stateSyncing ? { stateSyncing: sources.stateSyncing } : {}) })
    watchPeers(this.series, this.geth, sources.p2p)
    watchChainHead(this.geth, sources.latestHeight)
  }

  /** Starts the `/metrics` listener. */
  serve(): Promise<MetricsServer> {
    return MetricsServer.start(
      {
        contentType: this.comet.contentType,
        render: async () => (await this.comet.metrics()) + (await this.geth.metrics()),
      },
      this.config,
      this.log,
    )
  }

  /** Stops listening to the node's events. */
  stop(): void {
    this.unwatch?.()
  }
}
