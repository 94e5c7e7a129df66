/**
 * The resolved configuration of a node: defaults < config files (config.toml, app.toml) < environment
 * (NODECTL_*) < flags, validated once at start-up (`config/load.ts`). Durations are milliseconds,
 * sizes bytes. The defaults quoted below live in `config/defaults.ts`; the keys that set them are
 * listed in `config/settings.ts`.
 */
import type { LogFormat, LogLevel } from '../utils/logger.js'
import type { GenesisDoc } from './genesis.js'

/** The EVM JSON-RPC namespaces (docs/decisions.md); `evm`, `anvil` and `hardhat` hold the dev methods (docs/dev-chain.md). */
/** Who web3_clientVersion says the node is (`[json-rpc] client-identity`). */
export const CLIENT_IDENTITIES = ['nodectl', 'anvil', 'hardhat'] as const
export type ClientIdentity = (typeof CLIENT_IDENTITIES)[number]

export const EVM_NAMESPACES = ['web3', 'net', 'eth', 'personal', 'debug', 'miner', 'txpool', 'evm', 'anvil', 'hardhat'] as const
/** One of {@link EVM_NAMESPACES}. */
export type EvmNamespace = (typeof EVM_NAMESPACES)[number]

/** A TCP listen address. */
/** A TCP address or a unix socket path. */
export type SocketAddress = HostPort | { path: string }

export interface HostPort {
  /** Interface to bind; "0.0.0.0" = all IPv4 interfaces. */
  host: string
  /** TCP port; 0 = any free port (the node reports the one it got). */
  port: number
}

/** `[consensus]` of config.toml (CometBFT `ConsensusConfig`); timeouts grow by `<x>Delta` per round. */
export interface ConsensusConfig {
  /** Wait for a proposal before prevoting nil (ms, default 3000). */
  timeoutPropose: number
  /** Added to timeoutPropose per round (ms, default 500). */
  timeoutProposeDelta: number
  /** Wait after +2/3 prevotes for anything (ms, default 1000). */
  timeoutPrevote: number
  /** Added to timeoutPrevote per round (ms, default 500). */
  timeoutPrevoteDelta: number
  /** Wait after +2/3 precommits for anything (ms, default 1000). */
  timeoutPrecommit: number
  /** Added to timeoutPrecommit per round (ms, default 500). */
  timeoutPrecommitDelta: number
  /** Wait after a commit before the next height starts (ms, default 1000; dev 0). */
  timeoutCommit: number
  /** Start the next height as soon as all precommits are in (default false; dev true). */
  skipTimeoutCommit: boolean
  /** false = wait for transactions before proposing (except proof blocks) (default true). */
  createEmptyBlocks: boolean
  /** 0 = never wait for txs (propose every height); > 0 = longest wait before an empty block (ms, default 0; dev 5000). */
  createEmptyBlocksInterval: number
  /** Refuse to start if our signature is in the last N blocks (default 0 = off). */
  doubleSignCheckHeight: number
}

/** `[rpc]` of config.toml: the consensus-engine RPC (CometBFT `RPCConfig`). */
export interface CometRpcConfig {
  /** undefined = listener disabled (`laddr = ""`) (default tcp://127.0.0.1:26657). */
  laddr: HostPort | undefined
  /** Origins allowed by CORS; [] = CORS off, ["*"] = any (default []). */
  corsAllowedOrigins: string[]
  /** Methods allowed by CORS (default HEAD, GET, POST). */
  corsAllowedMethods: string[]
  /** Headers allowed by CORS (default Origin, Accept, Content-Type, X-Requested-With, X-Server-Time). */
  corsAllowedHeaders: string[]
  /** Simultaneous connections including WebSocket; 0 = unlimited (default 900). */
  maxOpenConnections: number
  /** Distinct subscriber clients (default 100). */
  maxSubscriptionClients: number
  /** Subscriptions per client (default 5). */
  maxSubscriptionsPerClient: number
  /** How long broadcast_tx_commit waits for the block (ms, default 10000). */
  timeoutBroadcastTxCommit: number
  /** Requests per JSON-RPC batch; 0 = unlimited (default 10). */
  maxRequestBatchSize: number
  /** Request body limit, also the WebSocket frame limit (bytes, default 1000000). */
  maxBodyBytes: number
  /** Request header limit (bytes, default 1048576). */
  maxHeaderBytes: number
}

/** `[instrumentation]` of config.toml: the Prometheus metrics server (CometBFT `InstrumentationConfig`). */
export interface InstrumentationConfig {
  /** Serve metrics at `/metrics` (default false). */
  prometheus: boolean
  /** Where the metrics server listens (default ":26660", every interface). */
  prometheusListenAddr: HostPort
  /** Simultaneous connections to the metrics server; 0 = unlimited (default 3). */
  maxOpenConnections: number
  /** Prefix of the consensus-side series, `<namespace>_<subsystem>_<name>`; "" = none (default "cometbft"). */
  namespace: string
}

/**
 * `[statesync]` of config.toml (CometBFT `StateSyncConfig`): a new node restores a peer's snapshot of the
 * application state, verified against a light-client-verified header, instead of replaying every block.
 */
export interface StateSyncConfig {
  /** State-sync a node with an empty home on start (default false). */
  enable: boolean
  /** Consensus RPC servers (at least two) the light client fetches headers, commits and validator sets from. */
  rpcServers: string[]
  /** A height the operator trusts (its header's hash is `trustHash`); 0 = unset. */
  trustHeight: number
  /** Upper-case hex hash of the header at `trustHeight`; "" = unset. */
  trustHash: string
  /** How long a trusted header may be used to verify later ones, ms (default 168h). */
  trustPeriod: number
  /** Time spent discovering snapshots before picking one, ms (default 15 s; 0 = pick from the first found). */
  discoveryTime: number
  /** A chunk not received within this is asked of another peer, ms (default 10 s). */
  chunkRequestTimeout: number
  /** Chunks fetched in parallel (default 4). */
  chunkFetchers: number
}

/** `[mempool]` of config.toml, with geth's txpool limits (nodectl's pool follows geth). */
export interface MempoolConfig {
  /** geth GlobalSlots: executable txs held in total (default 5120). */
  size: number
  /** geth GlobalQueue: non-executable (queued) txs in total (default 1024). */
  queueSize: number
  /** geth AccountSlots: executable txs guaranteed per account (default 16). */
  accountSlots: number
  /** geth AccountQueue: queued txs per account (default 64). */
  accountQueue: number
  /** Largest accepted transaction (bytes, default 131072 = geth's txMaxSize). */
  maxTxBytes: number
  /** Replacement price bump in percent (default 10). */
  priceBump: number
}

/** `[json-rpc]` (and `[api] enabled-unsafe-cors`) of app.toml: the EVM JSON-RPC servers, Evmos keys. */
export interface JsonRpcConfig {
  /** Start the HTTP and WebSocket servers (default false; dev true). */
  enable: boolean
  /** HTTP listen address (default 127.0.0.1:8545). */
  address: HostPort
  /** WebSocket listen address (default 0.0.0.0:8546, the spec's default). */
  wsAddress: HostPort
  /** Namespaces served (default eth, net, web3; dev all ten). */
  api: EvmNamespace[]
  /** Gas cap of eth_call / eth_estimateGas; 0 = none (gas, default 25000000). */
  gasCap: bigint
  /** Time limit of eth_call; 0 = none (ms, default 5000). */
  evmTimeout: number
  /** Fee cap of sent transactions; 0 = no cap (ether, default 1). */
  txFeeCap: number
  /** Installed polling filters, all kinds together (default 200). */
  filterCap: number
  /** Most blocks eth_feeHistory returns; > 0 (default 100). */
  feeHistoryCap: number
  /** Most logs returned by eth_getLogs / eth_getFilterLogs (default 10000). */
  logsCap: number
  /** Largest `toBlock - fromBlock` of eth_getLogs (blocks, default 10000). */
  blockRangeCap: number
  /** HTTP read/write timeout (ms, default 30000). */
  httpTimeout: number
  /** HTTP keep-alive idle timeout (ms, default 120000). */
  httpIdleTimeout: number
  /** Simultaneous HTTP connections; 0 = unlimited (default 0). */
  maxOpenConnections: number
  /** Accept transactions without EIP-155 replay protection over RPC (default false). */
  allowUnprotectedTxs: boolean
  /**
   * Serve personal_unlockAccount to callers that are not on loopback (geth `--allow-insecure-unlock`;
   * default false): an unlocked account signs eth_sendTransaction for anyone who reaches the JSON-RPC.
   */
  allowInsecureUnlock: boolean
  /**
   * What web3_clientVersion names: `nodectl` (default), or on a dev chain `anvil` / `hardhat`, whose
   * prefix test suites' helpers look for before they call the dev methods (docs/dev-chain.md).
   */
  clientIdentity: ClientIdentity
  /** debug_trace* requests re-executing at once; more wait in a FIFO queue (default 2). */
  tracerConcurrency: number
  /** Most bytes of JSON in one debug_trace* answer; 0 = no cap (default 25000000, as batch-response-max-size). */
  traceResponseMaxSize: number
  /** eth_call / eth_estimateGas worker threads; 0 = on the main thread (default 1). */
  callWorkers: number
  /** Kept for Evmos compatibility; nodectl always indexes EVM transactions (default false). Added by config/. */
  enableIndexer: boolean
  /** Requests per batch (default 1000). */
  batchRequestLimit: number
  /** Largest batch response (bytes, default 25000000). */
  batchResponseMaxSize: number
  /** HTTP request body limit (bytes, default 5242880 = 5 MiB). */
  httpBodyLimit: number
  /** Origins allowed to open a WebSocket (default 127.0.0.1, localhost). */
  wsOrigins: string[]
  /**
   * Browser origins allowed to read the HTTP server's answers (geth `--http.corsdomain`): [] = no CORS
   * header at all, so a page of another origin gets nothing; `*` = any origin (default [], `--dev` too).
   */
  httpCorsDomain: string[]
  /**
   * Host names the HTTP server answers (geth `--http.vhosts`): a request naming another gets 403, so a
   * page reaching a loopback node by DNS rebinding is refused; IP addresses always pass; `*` = any
   * (default localhost, `--dev` too).
   */
  httpVhosts: string[]
  /** `[api] enabled-unsafe-cors`: allow every origin on the HTTP server, whatever `httpCorsDomain` says (default false). */
  enabledUnsafeCors: boolean
}

/** Everything the node needs to start. */
export interface NodeConfig {
  /** Absolute home directory. */
  home: string
  /** Human-readable node name (config.toml `moniker`, default the host name). */
  moniker: string
  /** True for `start --dev`: dev keys printed, loopback callers trusted. */
  dev: boolean
  /** Chain id from genesis.json (e.g. nodectl_9000-1). */
  chainId: string
  /** EIP-155 chain id: the middle number of the chain id (`nodectl_9000-1` → 9000). */
  evmChainId: bigint
  /** Minimum level logged (default info). */
  logLevel: LogLevel
  /** Log line format (default plain). */
  logFormat: LogFormat
  /** Consensus timeouts and block production. */
  consensus: ConsensusConfig
  /** Consensus-engine RPC server. */
  rpc: CometRpcConfig
  /** Transaction pool limits. */
  mempool: MempoolConfig
  /** EVM JSON-RPC servers. */
  jsonRpc: JsonRpcConfig
  /** Floor of the base fee and of accepted gas prices, in wei (from `minimum-gas-prices`, default 0). */
  minGasPrice: bigint
  /**
   * True when `--minimum-gas-prices` or NODECTL_MINIMUM_GAS_PRICES was given: that value then wins
   * over app.toml at every start, so miner_setGasPrice (which rewrites app.toml) cannot take effect.
   */
  minGasPriceFromFlag: boolean
  /**
   * `min-retain-blocks` (app.toml): heights of blocks and EVM history kept; older ones are pruned by the
   * application (its Commit returns the retain height) and the consensus engine. 0 keeps everything
   * (default 100000; `--dev` 0).
   */
  minRetainBlocks: number
  /** `[tx_index] indexer`: "kv" indexes transactions and blocks for tx_search, "null" does not (default kv). */
  txIndex: { indexer: 'kv' | 'null' }
  /** `[instrumentation]`: Prometheus metrics. */
  instrumentation: InstrumentationConfig
  /** `[statesync]`: join from peers' snapshots. */
  statesync: StateSyncConfig
  /** app.toml `pruning`, `pruning-keep-recent`, `pruning-interval`: which heights' state stays on disk. */
  pruning: PruningConfig
  /** app.toml `[evm]`. */
  evm: {
    /** `trie-node-cache-mb`: memory for state trie nodes shared by execution and RPC reads, MiB (0 = none). */
    trieNodeCacheMb: number
    /** `disable-code-size-limit`: no EIP-170 / EIP-3860 size limits; a dev chain only (default false). */
    disableCodeSizeLimit: boolean
  }
  /** app.toml `[abci]`: where `nodectl start --abci` listens for CometBFT (default tcp://127.0.0.1:26658). */
  abci: { laddr: SocketAddress }
  /** app.toml `[state-sync]`: the application's state-sync snapshots (Cosmos SDK keys). */
  snapshots: {
    /** `snapshot-interval`: heights between two snapshots; 0 takes none (default 0). */
    interval: number
    /** `snapshot-keep-recent`: snapshots kept, older ones deleted; 0 keeps all (default 2). */
    keepRecent: number
  }
  /**
   * `[p2p]`: listen address (default tcp://0.0.0.0:26656), `<node id>@host:port` peers to keep connected to,
   * peer limits (default 40 inbound, 10 outbound) and timeouts in ms (handshake 20 s, dial 3 s), as CometBFT.
   */
  p2p: {
    laddr: HostPort
    persistentPeers: string[]
    maxNumInboundPeers: number
    maxNumOutboundPeers: number
    handshakeTimeout: number
    dialTimeout: number
  }
  /** The validated genesis document (config/genesis.json). Added by config/. */
  genesis: GenesisDoc
  /** Absolute paths of the home's files (config.toml `*_file` keys and `db_dir` honoured). */
  paths: HomePaths
}

/** Absolute paths of a home's files (`config/home.ts homePaths`). */
export interface HomePaths {
  /** The home directory itself. */
  home: string
  /** `<home>/config`. */
  configDir: string
  /** `<home>/data`. */
  dataDir: string
  /** `<home>/keystore` (mode 0700): Web3 Secret Storage files. */
  keystoreDir: string
  /** `config/config.toml`. */
  configToml: string
  /** `config/app.toml`. */
  appToml: string
  /** `config/genesis.json`. */
  genesis: string
  /** `config/node_key.json` (p2p identity). */
  nodeKey: string
  /** `config/priv_validator_key.json` (consensus signing key, mode 0600). */
  privValidatorKey: string
  /** `data/priv_validator_state.json` (last signed height/round/step: double-sign protection). */
  privValidatorState: string
  /** LevelDB directory of the node's one database (`data/nodectl.db`). */
  db: string
  /** Consensus WAL file (`data/cs.wal/wal`). */
  wal: string
  /** `config/jwt.hex`: 32-byte hex secret of the private-namespace JWTs (mode 0600). */
  jwtSecret: string
}

/** The state-pruning strategies of Cosmos SDK's app.toml `pruning`. */
export const PRUNING_STRATEGIES = ['default', 'nothing', 'everything', 'custom'] as const
export type PruningStrategy = (typeof PRUNING_STRATEGIES)[number]

/**
 * app.toml `pruning` (default "default"; "nothing" on a dev chain) and, for "custom" only,
 * `pruning-keep-recent` and `pruning-interval` (Cosmos SDK's keys and meanings).
 */
export interface PruningConfig {
  strategy: PruningStrategy
  keepRecent: number
  interval: number
}
