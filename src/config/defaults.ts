/**
 * Default values of every setting, and the `--dev` and test presets. Sources: CometBFT v0.38
 * `config/config.go` (Default*Config), Evmos `server/config/config.go`, geth `core/txpool` defaults,
 * and docs/decisions.md for the limits it fixes.
 */
import { hostname } from 'node:os'
import { DEFAULT_FILES, type HomeFiles } from './home.js'
import {
  EVM_NAMESPACES,
  type ConsensusConfig,
  type CometRpcConfig,
  type InstrumentationConfig,
  type JsonRpcConfig,
  type MempoolConfig,
  type NodeConfig,
  type StateSyncConfig,
} from './node-config.js'

/** The part of {@link NodeConfig} that config.toml and app.toml hold (what `init` writes). */
export interface NodeSettings
  extends Pick<
    NodeConfig,
    | 'moniker'
    | 'logLevel'
    | 'logFormat'
    | 'consensus'
    | 'rpc'
    | 'mempool'
    | 'jsonRpc'
    | 'minGasPrice'
    | 'minRetainBlocks'
    | 'txIndex'
    | 'p2p'
    | 'evm'
    | 'pruning'
    | 'abci'
    | 'snapshots'
    | 'instrumentation'
    | 'statesync'
  > {
  /** File locations relative to the home (config.toml `*_file`, `db_dir`, `[consensus] wal_file`). */
  files: HomeFiles
}

/**
 * Default of app.toml `[evm] trie-node-cache-mb`: memory for clean state trie nodes, counted as what
 * the cache costs (about 210 bytes a node with its key and its table slots). 16 MiB holds about 78,000
 * nodes: the upper levels of every trie a busy dev chain has, and the paths each block rewrites.
 */
export const DEFAULT_TRIE_NODE_CACHE_MB = 16

/** CometBFT `DefaultConsensusConfig`. */
export function defaultConsensusConfig(): ConsensusConfig {
  return {
    timeoutPropose: 3000,
    timeoutProposeDelta: 500,
    timeoutPrevote: 1000,
    timeoutPrevoteDelta: 500,
    timeoutPrecommit: 1000,
    timeoutPrecommitDelta: 500,
    timeoutCommit: 1000,
    skipTimeoutCommit: false,
    createEmptyBlocks: true,
    createEmptyBlocksInterval: 0,
    doubleSignCheckHeight: 0,
  }
}

/**
 * `--dev` block production: propose as soon as transactions wait (no commit wait, next height as soon
 * as our one precommit is in), and an empty block after {@link DEV_EMPTY_BLOCK_INTERVAL_MS} without
 * transactions so block time keeps moving (as Anvil and Hardhat mine on demand).
 */
export const DEV_EMPTY_BLOCK_INTERVAL_MS = 5000

/** Consensus settings of `--dev`: CometBFT's round timeouts, no commit wait, empty blocks every 5 s. */
export function devConsensusConfig(): ConsensusConfig {
  return {
    ...defaultConsensusConfig(),
    timeoutCommit: 0,
    skipTimeoutCommit: true,
    createEmptyBlocks: true,
    createEmptyBlocksInterval: DEV_EMPTY_BLOCK_INTERVAL_MS,
  }
}

/** CometBFT `DefaultRPCConfig` (its limits are listed in docs/decisions.md). */
export function defaultCometRpcConfig(): CometRpcConfig {
  return {
    laddr: { host: '127.0.0.1', port: 26657 },
    corsAllowedOrigins: [],
    corsAllowedMethods: ['HEAD', 'GET', 'POST'],
    corsAllowedHeaders: ['Origin', 'Accept', 'Content-Type', 'X-Requested-With', 'X-Server-Time'],
    maxOpenConnections: 900,
    maxSubscriptionClients: 100,
    maxSubscriptionsPerClient: 5,
    timeoutBroadcastTxCommit: 10_000,
    maxRequestBatchSize: 10,
    maxBodyBytes: 1_000_000,
    maxHeaderBytes: 1 << 20,
  }
}

/** CometBFT `DefaultInstrumentationConfig`: metrics off, on every interface at port 26660 when on. */
export function defaultInstrumentationConfig(): InstrumentationConfig {
  return { prometheus: false, prometheusListenAddr: { host: '0.0.0.0', port: 26660 }, maxOpenConnections: 3, namespace: 'cometbft' }
}

/** CometBFT `DefaultStateSyncConfig`: off; trust a header for a week, discover for 15 s, 4 fetchers with a 10 s timeout. */
export function defaultStateSyncConfig(): StateSyncConfig {
  return {
    enable: false,
    rpcServers: [],
    trustHeight: 0,
    trustHash: '',
    trustPeriod: 168 * 3600_000,
    discoveryTime: 15_000,
    chunkRequestTimeout: 10_000,
    chunkFetchers: 4,
  }
}

/** geth's `txMaxSize` (core/txpool/legacypool): 4 slots of 32 KiB = 131072 bytes, the default size limit of every admission path. */
export const DEFAULT_MAX_TX_BYTES = 4 * 32 * 1024

/** geth `txpool.DefaultConfig` limits (GlobalSlots 4096+1024, GlobalQueue 1024, AccountSlots 16, AccountQueue 64, PriceBump 10) and txMaxSize. */
export function defaultMempoolConfig(): MempoolConfig {
  return { size: 5120, queueSize: 1024, accountSlots: 16, accountQueue: 64, maxTxBytes: DEFAULT_MAX_TX_BYTES, priceBump: 10 }
}

/**
 * Evmos `DefaultJSONRPCConfig` (server off, eth/net/web3), except `ws-address`, whose default is the
 * spec's 0.0.0.0:8546, and `max-open-connections`, CometBFT's 900 instead of Evmos' unlimited (a client
 * could otherwise hold every file descriptor of the node), plus the limits of docs/decisions.md (batch
 * 1000 requests / 25 MB, body 5 MiB).
 */
export function defaultJsonRpcConfig(): JsonRpcConfig {
  return {
    enable: false,
    address: { host: '127.0.0.1', port: 8545 },
    wsAddress: { host: '0.0.0.0', port: 8546 },
    api: ['eth', 'net', 'web3'],
    gasCap: 25_000_000n,
    evmTimeout: 5000,
    txFeeCap: 1,
    filterCap: 200,
    feeHistoryCap: 100,
    logsCap: 10_000,
    blockRangeCap: 10_000,
    httpTimeout: 30_000,
    httpIdleTimeout: 120_000,
    maxOpenConnections: 900,
    allowUnprotectedTxs: false,
    allowInsecureUnlock: false,
    clientIdentity: 'nodectl',
    tracerConcurrency: 2,
    traceResponseMaxSize: 25_000_000,
    callWorkers: 1,
    enableIndexer: false,
    batchRequestLimit: 1000,
    batchResponseMaxSize: 25_000_000,
    httpBodyLimit: 5 * 1024 * 1024,
    wsOrigins: ['127.0.0.1', 'localhost'],
    httpCorsDomain: [],
    httpVhosts: ['localhost'],
    enabledUnsafeCors: false,
  }
}

/**
 * Default `min-retain-blocks`: CometBFT's default `evidence.max_age_num_blocks`, so a default node
 * prunes only blocks no evidence can name any more (about 5.8 days at 5 s a block); docs/decisions.md.
 */
export const DEFAULT_MIN_RETAIN_BLOCKS = 100_000

/** Every file setting at its default; `moniker` defaults to the host name, as CometBFT's. */
export function defaultNodeSettings(moniker: string = hostname()): NodeSettings {
  return {
    moniker,
    logLevel: 'info',
    logFormat: 'plain',
    files: { ...DEFAULT_FILES },
    consensus: defaultConsensusConfig(),
    rpc: defaultCometRpcConfig(),
    mempool: defaultMempoolConfig(),
    jsonRpc: defaultJsonRpcConfig(),
    minGasPrice: 0n,
    minRetainBlocks: DEFAULT_MIN_RETAIN_BLOCKS,
    txIndex: { indexer: 'kv' },
    instrumentation: defaultInstrumentationConfig(),
    statesync: defaultStateSyncConfig(),
    pruning: { strategy: 'default', keepRecent: 0, interval: 0 },
    evm: { trieNodeCacheMb: DEFAULT_TRIE_NODE_CACHE_MB, disableCodeSizeLimit: false },
    // CometBFT's `proxy_app` default.
    abci: { laddr: { host: '127.0.0.1', port: 26658 } },
    // The Cosmos SDK's: no snapshots unless asked, the two newest kept.
    snapshots: { interval: 0, keepRecent: 2 },
    p2p: {
      laddr: { host: '0.0.0.0', port: 26656 },
      persistentPeers: [],
      maxNumInboundPeers: 40,
      maxNumOutboundPeers: 10,
      handshakeTimeout: 20_000,
      dialTimeout: 3_000,
    },
  }
}

/**
 * The `--dev` preset: JSON-RPC on with all ten namespaces (the dev methods' evm, anvil, hardhat included) on loopback (127.0.0.1:8545 / :8546),
 * consensus RPC on 127.0.0.1:26657, p2p on 127.0.0.1:26656 (a dev chain has no peers to reach it), metrics (when
 * turned on) on 127.0.0.1:26660,
 * {@link devConsensusConfig}, minimum gas price 0, an archive node (no pruning, min-retain-blocks 0).
 */
export function devNodeSettings(moniker = 'dev'): NodeSettings {
  const settings = defaultNodeSettings(moniker)
  settings.consensus = devConsensusConfig()
  settings.rpc.laddr = { host: '127.0.0.1', port: 26657 }
  settings.p2p.laddr = { host: '127.0.0.1', port: 26656 }
  settings.instrumentation.prometheusListenAddr = { host: '127.0.0.1', port: 26660 }
  settings.jsonRpc.enable = true
  settings.jsonRpc.address = { host: '127.0.0.1', port: 8545 }
  settings.jsonRpc.wsAddress = { host: '127.0.0.1', port: 8546 }
  settings.jsonRpc.api = [...EVM_NAMESPACES]
  settings.minGasPrice = 0n
  settings.minRetainBlocks = 0
  // evm_revert, snapshots and the tracing of old blocks need every height's state.
  settings.pruning = { strategy: 'nothing', keepRecent: 0, interval: 0 }
  return settings
}
