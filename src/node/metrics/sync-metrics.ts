/**
 * CometBFT's `blocksync` and `statesync` series: whether the node is catching up, and how far block
 * sync got, read from the engine at scrape time.
 */
import type { ConsensusEngine } from '../../consensus/consensus-engine.js'
import type { CometSeries } from './comet-series.js'

export interface SyncMetricsSources {
  engine: Pick<ConsensusEngine, 'syncStatus'>
  /** True while the node restores a state snapshot from its peers; never, until state sync exists. */
  stateSyncing?: () => boolean
}

export function watchSync(series: CometSeries, { engine, stateSyncing }: SyncMetricsSources): void {
  series.gauge('blocksync', 'syncing', 'Whether or not a node is block syncing. 1 if yes, 0 if no.', () =>
    engine.syncStatus().catchingUp ? 1 : 0,
  )
  series.gauge(
    'blocksync',
    'latest_block_height',
    'The latest block height block sync applied.',
    () => engine.syncStatus().progress?.height,
  )
  series.gauge('statesync', 'syncing', 'Whether or not a node is state syncing. 1 if yes, 0 if no.', () => (stateSyncing?.() ? 1 : 0))
}
