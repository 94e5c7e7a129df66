/**
 * State sync as the engine runs it once, before consensus, on a node without state: validates the
 * `[statesync]` options (CometBFT `StateSyncConfig.ValidateBasic`), builds the light client over the
 * `rpc_servers`, and runs the syncer.
 */
import type { InfoResponse } from '../../abci/application.js'
import type { SnapshotProvider } from '../../abci/snapshots.js'
import type { StateSyncConfig } from '../../config/node-config.js'
import { hexToBytes } from '../../primitives/hex.js'
import type { Logger } from '../../utils/logger.js'
import type { ChainState } from '../chain-state.js'
import { type LightBlockSource, LightStateProvider } from './light-state-provider.js'
import { RpcLightSource } from './rpc-light-source.js'
import { type SnapshotSource, StateSyncer, type StateSyncResult } from './syncer.js'

export type { StateSyncConfig }

/** What the engine needs to state-sync: the options, the peers and the application's snapshot connection. */
export interface StateSyncSetup {
  config: StateSyncConfig
  source: SnapshotSource
  snapshots: SnapshotProvider
  /** Where light blocks come from; default the `rpc_servers`. */
  lightSource?: LightBlockSource
  /** After each chunk applied (the start command's progress lines). */
  onChunk?: (progress: { height: number; applied: number; total: number }) => void
}

/** CometBFT's floor for `discovery_time` (when not 0) and `chunk_request_timeout`. */
const MIN_TIMEOUT_MS = 5000
/** A header hash is a SHA-256. */
const HASH_BYTES = 32

/** `ValidateBasic` of an enabled `[statesync]`; messages name the config.toml key. */
export function validateStateSyncConfig(cfg: StateSyncConfig): void {
  if (!cfg.enable) return
  const fail = (key: string, reason: string): never => {
    throw new Error(`statesync.${key}: ${reason}`)
  }
  if (cfg.rpcServers.length < 2) fail('rpc_servers', 'at least two servers are required (comma-separated), to check one against another')
  if (cfg.trustHeight <= 0) fail('trust_height', 'is required (a height whose header hash you trust)')
  if (cfg.trustHash === '') fail('trust_hash', 'is required (the hash of the header at trust_height)')
  let hash: Uint8Array | undefined
  try {
    hash = hexToBytes(cfg.trustHash)
  } catch {
    fail('trust_hash', `"${cfg.trustHash}" is not hex`)
  }
  if (hash?.length !== HASH_BYTES) fail('trust_hash', `want ${HASH_BYTES} bytes of hex, got "${cfg.trustHash}"`)
  if (cfg.trustPeriod <= 0) fail('trust_period', 'must be greater than 0')
  if (cfg.discoveryTime !== 0 && cfg.discoveryTime < MIN_TIMEOUT_MS) fail('discovery_time', 'must be "0s" or at least "5s"')
  if (cfg.chunkRequestTimeout < MIN_TIMEOUT_MS) fail('chunk_request_timeout', 'must be at least "5s"')
  if (cfg.chunkFetchers <= 0) fail('chunk_fetchers', 'must be greater than 0')
}

export interface StateSyncRun {
  /** The chain state after the handshake (genesis): chain id and initial height. */
  initial: ChainState
  info(): Promise<InfoResponse>
  logger: Logger
  onStatus: (status: { complete: boolean; height: number }) => void
  signal: AbortSignal
}

/** Restores a peer's snapshot; resolves with the state after its height and that height's commit. */
export function runStateSync(setup: StateSyncSetup, run: StateSyncRun): Promise<StateSyncResult> {
  const { config } = setup
  validateStateSyncConfig(config)
  const light = new LightStateProvider(setup.lightSource ?? new RpcLightSource(config.rpcServers), run.initial.chainId, {
    height: config.trustHeight,
    hash: hexToBytes(config.trustHash),
    periodMs: config.trustPeriod,
  })
  const syncer = new StateSyncer({
    source: setup.source,
    snapshots: setup.snapshots,
    info: run.info,
    light,
    discoveryTimeMs: config.discoveryTime,
    chunkRequestTimeoutMs: config.chunkRequestTimeout,
    chunkFetchers: config.chunkFetchers,
    logger: run.logger,
    onStatus: run.onStatus,
    ...(setup.onChunk ? { onChunk: setup.onChunk } : {}),
  })
  return syncer.run(run.initial, run.signal)
}
