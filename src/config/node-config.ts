/**
 * The resolved configuration of a node: defaults < config files (config.toml, app.toml) < environment
 * (NODECTL_*) < flags, validated once at start-up. Durations are milliseconds, sizes bytes.
 */
import type { LogFormat, LogLevel } from '../utils/logger.js'

/** The seven EVM JSON-RPC namespaces (shared/spec/decisions.md). */
export const EVM_NAMESPACES = ['web3', 'net', 'eth', 'personal', 'debug', 'miner', 'txpool'] as const
export type EvmNamespace = (typeof EVM_NAMESPACES)[number]

export interface HostPort {
  host: string
  port: number
}

export interface ConsensusConfig {
  timeoutPropose: number
  timeoutProposeDelta: number
  timeoutPrevote: number
  timeoutPrevoteDelta: number
  timeoutPrecommit: number
  timeoutPrecommitDelta: number
  timeoutCommit: number
  skipTimeoutCommit: boolean
  createEmptyBlocks: boolean
  /** 0 = never wait for txs (propose every height); > 0 = longest wait before an empty block. */
  createEmptyBlocksInterval: number
  doubleSignCheckHeight: number
}

export interface CometRpcConfig {
  /** undefined = listener disabled (`laddr = ""`). */
  laddr: HostPort | undefined
  corsAllowedOrigins: string[]
  corsAllowedMethods: string[]
  corsAllowedHeaders: string[]
  maxOpenConnections: number
  maxSubscriptionClients: number
  maxSubscriptionsPerClient: number
  timeoutBroadcastTxCommit: number
  maxRequestBatchSize: number
  maxBodyBytes: number
  maxHeaderBytes: number
}

export interface MempoolConfig {
  /** geth GlobalSlots: executable txs held in total. */
  size: number
  /** geth GlobalQueue: non-executable (queued) txs in total. */
  queueSize: number
  /** geth AccountSlots / AccountQueue. */
  accountSlots: number
  accountQueue: number
  maxTxBytes: number
  /** Replacement price bump in percent. */
  priceBump: number
}

export interface JsonRpcConfig {
  enable: boolean
  address: HostPort
  wsAddress: HostPort
  api: EvmNamespace[]
  gasCap: bigint
  evmTimeout: number
  /** In ether; 0 = no cap. */
  txFeeCap: number
  filterCap: number
  feeHistoryCap: number
  logsCap: number
  blockRangeCap: number
  httpTimeout: number
  httpIdleTimeout: number
  maxOpenConnections: number
  allowUnprotectedTxs: boolean
  batchRequestLimit: number
  batchResponseMaxSize: number
  httpBodyLimit: number
  wsOrigins: string[]
  enabledUnsafeCors: boolean
}

export interface NodeConfig {
  home: string
  moniker: string
  /** True for `start --dev`: dev keys printed, loopback callers trusted. */
  dev: boolean
  chainId: string
  /** EIP-155 chain id: the middle number of the chain id (`nodectl_9000-1` → 9000). */
  evmChainId: bigint
  logLevel: LogLevel
  logFormat: LogFormat
  consensus: ConsensusConfig
  rpc: CometRpcConfig
  mempool: MempoolConfig
  jsonRpc: JsonRpcConfig
  /** Floor of the base fee and of accepted gas prices, in wei (from `minimum-gas-prices`). */
  minGasPrice: bigint
  /** True when `--minimum-gas-prices` was given on the command line (it then wins over miner_setGasPrice). */
  minGasPriceFromFlag: boolean
  txIndex: { indexer: 'kv' | 'null' }
  p2p: { laddr: HostPort; persistentPeers: string[] }
  /** Absolute paths of the home's files. */
  paths: HomePaths
}

export interface HomePaths {
  home: string
  configDir: string
  dataDir: string
  keystoreDir: string
  configToml: string
  appToml: string
  genesis: string
  nodeKey: string
  privValidatorKey: string
  privValidatorState: string
  /** LevelDB directory of the node's one database. */
  db: string
  /** Consensus WAL file. */
  wal: string
  jwtSecret: string
}
