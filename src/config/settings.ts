/**
 * The table of every setting the node reads: one entry per TOML key, from which the templates
 * (`render-toml.ts`), the loader (`load.ts`), the environment names and the `start` flags are all
 * derived, so they cannot drift apart. Naming rules:
 *   - flag:  `--<section>.<key>`, or `--<key>` for top-level keys (CometBFT's `--rpc.laddr`,
 *            `--log_level`; Evmos's `--json-rpc.gas-cap`, `--minimum-gas-prices`);
 *   - env:   `NODECTL_<SECTION>_<KEY>`, upper-cased, `-` and `.` turned into `_`
 *            (`NODECTL_JSON_RPC_ADDRESS`, `NODECTL_RPC_LADDR`, `NODECTL_LOG_LEVEL`).
 */
import * as c from './codecs.js'
import type { Codec, TomlWritable } from './codecs.js'
import { DEFAULT_TRIE_NODE_CACHE_MB, type NodeSettings } from './defaults.js'
import { PRUNING_STRATEGIES } from './node-config.js'

/** The two TOML files of a home. */
export type ConfigFile = 'config.toml' | 'app.toml'

/** One setting. */
export interface Setting {
  /** File holding the key. */
  file: ConfigFile
  /** TOML table; '' for top-level keys. */
  section: string
  /** TOML key. */
  key: string
  /** Flag name without the leading dashes. */
  flag: string
  /** Environment variable. */
  env: string
  /** 'boolean' → a boolean flag (`--x`, `--no-x`); 'string' → a flag taking a value. */
  flagKind: 'boolean' | 'string'
  /** What it does, its default and unit: the template comment and the flag's help. */
  doc: string
  /** The value in `settings`, as TOML writes it. */
  read(settings: NodeSettings): TomlWritable
  /** Parses `raw` (TOML value or string) into `settings`; throws Error(reason) when invalid. */
  write(settings: NodeSettings, raw: unknown): void
}

/** A TOML table of a file, with the comment written above it. */
export interface SettingSection {
  /** File the table is in. */
  file: ConfigFile
  /** Table name; '' = the top-level keys. */
  name: string
  /** Heading comment in the template. */
  doc: string
}

/** Environment variable of a key: `NODECTL_<SECTION>_<KEY>`. */
export function envNameOf(section: string, key: string): string {
  return ('NODECTL_' + (section ? section + '_' : '') + key).toUpperCase().replace(/[-.]/g, '_')
}

function def<T>(
  file: ConfigFile,
  section: string,
  key: string,
  codec: Codec<T>,
  doc: string,
  get: (s: NodeSettings) => T,
  set: (s: NodeSettings, v: T) => void,
): Setting {
  return {
    file,
    section,
    key,
    flag: section ? `${section}.${key}` : key,
    env: envNameOf(section, key),
    flagKind: codec.flagKind,
    doc,
    read: (s) => codec.format(get(s)),
    write: (s, raw) => set(s, codec.parse(raw)),
  }
}

const cfg =
  (section: string) =>
  <T>(key: string, codec: Codec<T>, doc: string, get: (s: NodeSettings) => T, set: (s: NodeSettings, v: T) => void) =>
    def('config.toml', section, key, codec, doc, get, set)
const app =
  (section: string) =>
  <T>(key: string, codec: Codec<T>, doc: string, get: (s: NodeSettings) => T, set: (s: NodeSettings, v: T) => void) =>
    def('app.toml', section, key, codec, doc, get, set)

const base = cfg('')
const rpc = cfg('rpc')
const p2p = cfg('p2p')
const mempool = cfg('mempool')
const consensus = cfg('consensus')
const txIndex = cfg('tx_index')
const instrumentation = cfg('instrumentation')
const statesync = cfg('statesync')
const appBase = app('')
const jsonRpc = app('json-rpc')
const api = app('api')
const evm = app('evm')
const abci = app('abci')
const stateSync = app('state-sync')

const uint = c.integerCodec()
const path = c.stringCodec(true)
/** int32 keys of Evmos (filter-cap, logs-cap, …). */
const int32 = c.integerCodec(0, 2 ** 31 - 1)

/** Tables in file order, with their template comments. */
export const SECTIONS: readonly SettingSection[] = [
  { file: 'config.toml', name: '', doc: 'Main base config options' },
  { file: 'config.toml', name: 'rpc', doc: 'Consensus-engine RPC server (CometBFT routes over URI, JSON-RPC and WebSocket at /websocket)' },
  { file: 'config.toml', name: 'p2p', doc: 'Peer-to-peer networking (libp2p: TCP, Noise, Yamux)' },
  { file: 'config.toml', name: 'mempool', doc: 'Transaction pool (geth semantics: pending / queued, 10% replacement bump)' },
  {
    file: 'config.toml',
    name: 'consensus',
    doc: 'Consensus timeouts and block production (durations as Go strings: "500ms", "1s", "1m30s")',
  },
  { file: 'config.toml', name: 'tx_index', doc: 'Transaction indexer (tx_search, block_search)' },
  {
    file: 'config.toml',
    name: 'instrumentation',
    doc: 'Prometheus metrics (CometBFT series, geth EVM series, process metrics; docs/metrics.md)',
  },
  {
    file: 'config.toml',
    name: 'statesync',
    doc: "State sync: a node with an empty home restores a peer's snapshot, checked by a light client (docs/state-sync.md)",
  },
  { file: 'app.toml', name: '', doc: 'Base configuration' },
  { file: 'app.toml', name: 'api', doc: 'API configuration' },
  { file: 'app.toml', name: 'json-rpc', doc: 'EVM JSON-RPC configuration (Evmos keys and defaults)' },
  { file: 'app.toml', name: 'evm', doc: 'EVM execution and state' },
  { file: 'app.toml', name: 'abci', doc: 'ABCI server of `nodectl start --abci` (the application under an external CometBFT)' },
  {
    file: 'app.toml',
    name: 'state-sync',
    doc: 'State-sync snapshots the application takes and serves to joining nodes (docs/state-sync.md)',
  },
]

/** Every setting, grouped by file and section in template order. */
export const SETTINGS: readonly Setting[] = [
  base(
    'moniker',
    c.stringCodec(true),
    'A custom human readable name for this node (default: the host name).',
    (s) => s.moniker,
    (s, v) => {
      s.moniker = v
    },
  ),
  base(
    'log_level',
    c.logLevelCodec,
    'Output level for logging: debug, info, warn, error or none (default "info").',
    (s) => s.logLevel,
    (s, v) => {
      s.logLevel = v
    },
  ),
  base(
    'log_format',
    c.logFormatCodec,
    'Output format: "plain" (time, level, message, key=value pairs) or "json" (one object per line) (default "plain").',
    (s) => s.logFormat,
    (s, v) => {
      s.logFormat = v
    },
  ),
  base(
    'genesis_file',
    path,
    'Path to the JSON file containing the initial validator set and other meta data, relative to the home (default "config/genesis.json").',
    (s) => s.files.genesisFile,
    (s, v) => {
      s.files.genesisFile = v
    },
  ),
  base(
    'priv_validator_key_file',
    path,
    'Path to the JSON file containing the private key to use as a validator in the consensus protocol (default ' +
      '"config/priv_validator_key.json").',
    (s) => s.files.privValidatorKeyFile,
    (s, v) => {
      s.files.privValidatorKeyFile = v
    },
  ),
  base(
    'priv_validator_state_file',
    path,
    'Path to the JSON file containing the last sign state of the validator (default "data/priv_validator_state.json").',
    (s) => s.files.privValidatorStateFile,
    (s, v) => {
      s.files.privValidatorStateFile = v
    },
  ),
  base(
    'node_key_file',
    path,
    'Path to the JSON file containing the private key to use for node authentication in the p2p protocol (default "config/node_key.json").',
    (s) => s.files.nodeKeyFile,
    (s, v) => {
      s.files.nodeKeyFile = v
    },
  ),
  base(
    'db_dir',
    path,
    'Database directory; the node keeps one LevelDB database, nodectl.db, inside it (default "data").',
    (s) => s.files.dbDir,
    (s, v) => {
      s.files.dbDir = v
    },
  ),

  rpc(
    'laddr',
    c.laddrCodec,
    'TCP address for the RPC server to listen on; "" disables it (default "tcp://127.0.0.1:26657").',
    (s) => s.rpc.laddr,
    (s, v) => {
      s.rpc.laddr = v
    },
  ),
  rpc(
    'cors_allowed_origins',
    c.stringListCodec,
    'Origins a cross-domain request can be executed from; ["*"] allows any, [] disables CORS (default []).',
    (s) => s.rpc.corsAllowedOrigins,
    (s, v) => {
      s.rpc.corsAllowedOrigins = v
    },
  ),
  rpc(
    'cors_allowed_methods',
    c.stringListCodec,
    'Methods the client is allowed to use with cross-domain requests (default ["HEAD", "GET", "POST"]).',
    (s) => s.rpc.corsAllowedMethods,
    (s, v) => {
      s.rpc.corsAllowedMethods = v
    },
  ),
  rpc(
    'cors_allowed_headers',
    c.stringListCodec,
    'Non-simple headers the client is allowed to use with cross-domain requests (default ["Origin", "Accept", "Content-Type", ' +
      '"X-Requested-With", "X-Server-Time"]).',
    (s) => s.rpc.corsAllowedHeaders,
    (s, v) => {
      s.rpc.corsAllowedHeaders = v
    },
  ),
  rpc(
    'max_open_connections',
    uint,
    'Maximum number of simultaneous connections, including WebSocket; up to an eighth more wait for a slot, others are ' +
      'closed; lowered to fit a third of the open-file limit (ulimit -n) less a fifth for the database and 100 for peers ' +
      'and files; 0 = that share (default 900).',
    (s) => s.rpc.maxOpenConnections,
    (s, v) => {
      s.rpc.maxOpenConnections = v
    },
  ),
  rpc(
    'max_subscription_clients',
    uint,
    'Maximum number of unique clients that can /subscribe (default 100).',
    (s) => s.rpc.maxSubscriptionClients,
    (s, v) => {
      s.rpc.maxSubscriptionClients = v
    },
  ),
  rpc(
    'max_subscriptions_per_client',
    uint,
    'Maximum number of unique queries a client can /subscribe to (default 5).',
    (s) => s.rpc.maxSubscriptionsPerClient,
    (s, v) => {
      s.rpc.maxSubscriptionsPerClient = v
    },
  ),
  rpc(
    'timeout_broadcast_tx_commit',
    c.durationCodec,
    'How long to wait for a tx to be committed during /broadcast_tx_commit (default "10s").',
    (s) => s.rpc.timeoutBroadcastTxCommit,
    (s, v) => {
      s.rpc.timeoutBroadcastTxCommit = v
    },
  ),
  rpc(
    'max_request_batch_size',
    uint,
    'Maximum number of requests in a JSON-RPC batch; 0 = unlimited (default 10).',
    (s) => s.rpc.maxRequestBatchSize,
    (s, v) => {
      s.rpc.maxRequestBatchSize = v
    },
  ),
  rpc(
    'max_body_bytes',
    uint,
    'Maximum size of a request body, and of a WebSocket frame, in bytes (default 1000000).',
    (s) => s.rpc.maxBodyBytes,
    (s, v) => {
      s.rpc.maxBodyBytes = v
    },
  ),
  rpc(
    'max_header_bytes',
    uint,
    'Maximum size of request headers, in bytes (default 1048576).',
    (s) => s.rpc.maxHeaderBytes,
    (s, v) => {
      s.rpc.maxHeaderBytes = v
    },
  ),

  p2p(
    'laddr',
    c.laddrCodec,
    'Address to listen for incoming peer connections (default "tcp://0.0.0.0:26656"; dev "tcp://127.0.0.1:26656").',
    (s) => s.p2p.laddr,
    (s, v) => {
      if (v === undefined) throw new Error('must not be empty, want tcp://host:port')
      s.p2p.laddr = v
    },
  ),
  p2p(
    'persistent_peers',
    c.peersCodec,
    'Comma-separated list of <node id>@host:port peers to keep connected to (default "").',
    (s) => s.p2p.persistentPeers,
    (s, v) => {
      s.p2p.persistentPeers = v
    },
  ),
  p2p(
    'max_num_inbound_peers',
    uint,
    'Maximum number of inbound peers (default 40).',
    (s) => s.p2p.maxNumInboundPeers,
    (s, v) => {
      s.p2p.maxNumInboundPeers = v
    },
  ),
  p2p(
    'max_num_outbound_peers',
    uint,
    'Maximum number of outbound peers, persistent peers included (default 10).',
    (s) => s.p2p.maxNumOutboundPeers,
    (s, v) => {
      s.p2p.maxNumOutboundPeers = v
    },
  ),
  p2p(
    'handshake_timeout',
    c.durationCodec,
    'How long a peer has to complete the handshake (default "20s").',
    (s) => s.p2p.handshakeTimeout,
    (s, v) => {
      s.p2p.handshakeTimeout = v
    },
  ),
  p2p(
    'dial_timeout',
    c.durationCodec,
    'How long a dial may take (default "3s").',
    (s) => s.p2p.dialTimeout,
    (s, v) => {
      s.p2p.dialTimeout = v
    },
  ),

  mempool(
    'size',
    uint,
    'Maximum number of executable (pending) transactions in the pool (default 5120, geth GlobalSlots).',
    (s) => s.mempool.size,
    (s, v) => {
      s.mempool.size = v
    },
  ),
  mempool(
    'queue_size',
    uint,
    'Maximum number of non-executable (queued, nonce-gapped) transactions in the pool (default 1024, geth GlobalQueue).',
    (s) => s.mempool.queueSize,
    (s, v) => {
      s.mempool.queueSize = v
    },
  ),
  mempool(
    'account_slots',
    uint,
    'Executable transactions guaranteed to each account (default 16, geth AccountSlots).',
    (s) => s.mempool.accountSlots,
    (s, v) => {
      s.mempool.accountSlots = v
    },
  ),
  mempool(
    'account_queue',
    uint,
    'Maximum queued transactions per account (default 64, geth AccountQueue).',
    (s) => s.mempool.accountQueue,
    (s, v) => {
      s.mempool.accountQueue = v
    },
  ),
  mempool(
    'max_tx_bytes',
    c.integerCodec(1),
    'Maximum size of a single transaction, in bytes (default 131072, geth txMaxSize).',
    (s) => s.mempool.maxTxBytes,
    (s, v) => {
      s.mempool.maxTxBytes = v
    },
  ),
  mempool(
    'price_bump',
    uint,
    'Price bump, in percent, a same-nonce replacement needs (default 10).',
    (s) => s.mempool.priceBump,
    (s, v) => {
      s.mempool.priceBump = v
    },
  ),

  consensus(
    'wal_file',
    path,
    'Consensus write-ahead log, relative to the home (default "data/cs.wal/wal").',
    (s) => s.files.walFile,
    (s, v) => {
      s.files.walFile = v
    },
  ),
  consensus(
    'timeout_propose',
    c.durationCodec,
    'How long we wait for a proposal block before prevoting nil (default "3s").',
    (s) => s.consensus.timeoutPropose,
    (s, v) => {
      s.consensus.timeoutPropose = v
    },
  ),
  consensus(
    'timeout_propose_delta',
    c.durationCodec,
    'How much timeout_propose increases with each round (default "500ms").',
    (s) => s.consensus.timeoutProposeDelta,
    (s, v) => {
      s.consensus.timeoutProposeDelta = v
    },
  ),
  consensus(
    'timeout_prevote',
    c.durationCodec,
    'How long we wait after receiving +2/3 prevotes for "anything" (default "1s").',
    (s) => s.consensus.timeoutPrevote,
    (s, v) => {
      s.consensus.timeoutPrevote = v
    },
  ),
  consensus(
    'timeout_prevote_delta',
    c.durationCodec,
    'How much timeout_prevote increases with each round (default "500ms").',
    (s) => s.consensus.timeoutPrevoteDelta,
    (s, v) => {
      s.consensus.timeoutPrevoteDelta = v
    },
  ),
  consensus(
    'timeout_precommit',
    c.durationCodec,
    'How long we wait after receiving +2/3 precommits for "anything" (default "1s").',
    (s) => s.consensus.timeoutPrecommit,
    (s, v) => {
      s.consensus.timeoutPrecommit = v
    },
  ),
  consensus(
    'timeout_precommit_delta',
    c.durationCodec,
    'How much timeout_precommit increases with each round (default "500ms").',
    (s) => s.consensus.timeoutPrecommitDelta,
    (s, v) => {
      s.consensus.timeoutPrecommitDelta = v
    },
  ),
  consensus(
    'timeout_commit',
    c.durationCodec,
    'How long we wait after committing a block, before starting on the new height (default "1s"; dev "0s").',
    (s) => s.consensus.timeoutCommit,
    (s, v) => {
      s.consensus.timeoutCommit = v
    },
  ),
  consensus(
    'double_sign_check_height',
    uint,
    'How many blocks to look back for our own signatures before starting; 0 = off (default 0).',
    (s) => s.consensus.doubleSignCheckHeight,
    (s, v) => {
      s.consensus.doubleSignCheckHeight = v
    },
  ),
  consensus(
    'skip_timeout_commit',
    c.booleanCodec,
    'Make progress as soon as we have all the precommits, as if timeout_commit = 0 (default false; dev true).',
    (s) => s.consensus.skipTimeoutCommit,
    (s, v) => {
      s.consensus.skipTimeoutCommit = v
    },
  ),
  consensus(
    'create_empty_blocks',
    c.booleanCodec,
    'false = wait for transactions before proposing a block (default true).',
    (s) => s.consensus.createEmptyBlocks,
    (s, v) => {
      s.consensus.createEmptyBlocks = v
    },
  ),
  consensus(
    'create_empty_blocks_interval',
    c.durationCodec,
    'If > 0, wait for transactions at most this long, then propose an empty block (default "0s"; dev "5s").',
    (s) => s.consensus.createEmptyBlocksInterval,
    (s, v) => {
      s.consensus.createEmptyBlocksInterval = v
    },
  ),

  txIndex(
    'indexer',
    c.enumCodec(['kv', 'null'] as const, 'indexer'),
    'What indexer to use for transactions and blocks: "kv" or "null" (default "kv").',
    (s) => s.txIndex.indexer,
    (s, v) => {
      s.txIndex.indexer = v
    },
  ),

  instrumentation(
    'prometheus',
    c.booleanCodec,
    'Serve Prometheus metrics at /metrics of prometheus_listen_addr (default false).',
    (s) => s.instrumentation.prometheus,
    (s, v) => {
      s.instrumentation.prometheus = v
    },
  ),
  instrumentation(
    'prometheus_listen_addr',
    c.hostPortCodec,
    'Address the metrics server listens on; an empty host means every interface (default ":26660"; dev "127.0.0.1:26660").',
    (s) => s.instrumentation.prometheusListenAddr,
    (s, v) => {
      s.instrumentation.prometheusListenAddr = v
    },
  ),
  instrumentation(
    'max_open_connections',
    uint,
    'Maximum number of simultaneous connections to the metrics server; 0 = unlimited (default 3).',
    (s) => s.instrumentation.maxOpenConnections,
    (s, v) => {
      s.instrumentation.maxOpenConnections = v
    },
  ),
  instrumentation(
    'namespace',
    c.stringCodec(),
    'Prefix of the consensus-side series (<namespace>_consensus_height...); "" = none (default "cometbft").',
    (s) => s.instrumentation.namespace,
    (s, v) => {
      if (!/^([a-zA-Z_][a-zA-Z0-9_]*)?$/.test(v))
        throw new Error(`"${v}" is not a metric name prefix: want letters, digits and underscores`)
      s.instrumentation.namespace = v
    },
  ),

  statesync(
    'enable',
    c.booleanCodec,
    "On start, a node with an empty home state-syncs from its peers' snapshots instead of replaying every block (default false).",
    (s) => s.statesync.enable,
    (s, v) => {
      s.statesync.enable = v
    },
  ),
  statesync(
    'rpc_servers',
    c.commaListCodec,
    'Two or more consensus RPC servers, comma-separated ("host1:26657,host2:26657"), for the light client (default "").',
    (s) => s.statesync.rpcServers,
    (s, v) => {
      s.statesync.rpcServers = v
    },
  ),
  statesync(
    'trust_height',
    uint,
    "Height of a header you trust, e.g. from a block explorer or a friend's node (default 0).",
    (s) => s.statesync.trustHeight,
    (s, v) => {
      s.statesync.trustHeight = v
    },
  ),
  statesync(
    'trust_hash',
    c.stringCodec(),
    'Hash (hex) of the header at trust_height (default "").',
    (s) => s.statesync.trustHash,
    (s, v) => {
      s.statesync.trustHash = v
    },
  ),
  statesync(
    'trust_period',
    c.durationCodec,
    'How long the trusted header may be used to verify later ones; keep it under the unbonding period (default "168h0m0s").',
    (s) => s.statesync.trustPeriod,
    (s, v) => {
      s.statesync.trustPeriod = v
    },
  ),
  statesync(
    'discovery_time',
    c.durationCodec,
    'Time spent discovering snapshots before picking one; "0s" or at least "5s" (default "15s").',
    (s) => s.statesync.discoveryTime,
    (s, v) => {
      s.statesync.discoveryTime = v
    },
  ),
  statesync(
    'chunk_request_timeout',
    c.durationCodec,
    'A chunk not received within this is asked of another peer; at least "5s" (default "10s").',
    (s) => s.statesync.chunkRequestTimeout,
    (s, v) => {
      s.statesync.chunkRequestTimeout = v
    },
  ),
  statesync(
    'chunk_fetchers',
    c.integerCodec(1),
    'Chunks fetched in parallel (default 4).',
    (s) => s.statesync.chunkFetchers,
    (s, v) => {
      s.statesync.chunkFetchers = v
    },
  ),

  appBase(
    'minimum-gas-prices',
    c.gasPriceCodec,
    'The minimum gas price a validator accepts for a transaction, as wei ("1000000000") or <amount><denom> with denom anodectl (= ' +
      'wei) or gwei (default "0anodectl").',
    (s) => s.minGasPrice,
    (s, v) => {
      s.minGasPrice = v
    },
  ),

  appBase(
    'pruning',
    c.enumCodec(PRUNING_STRATEGIES, 'pruning strategy'),
    'Which heights\' EVM state stays on disk, as Cosmos SDK: "default" keeps the latest 362880 heights and prunes every 10, ' +
      '"nothing" keeps every height (an archive node; the dev chain\'s setting), "everything" keeps the latest 2, "custom" ' +
      'uses pruning-keep-recent and pruning-interval (default "default").',
    (s) => s.pruning.strategy,
    (s, v) => {
      s.pruning.strategy = v
    },
  ),
  appBase(
    'pruning-keep-recent',
    uint,
    'With pruning = "custom": heights of state kept below the latest, at least 2 (default 0: only read for "custom").',
    (s) => s.pruning.keepRecent,
    (s, v) => {
      s.pruning.keepRecent = v
    },
  ),
  appBase(
    'pruning-interval',
    uint,
    'With pruning = "custom": heights between two prunings, at least 10 (default 0: only read for "custom").',
    (s) => s.pruning.interval,
    (s, v) => {
      s.pruning.interval = v
    },
  ),
  appBase(
    'min-retain-blocks',
    uint,
    'Heights of blocks and EVM history (receipts, logs, indexes) to keep: Commit returns retain height = height - ' +
      'min-retain-blocks + 1 (never above the heights evidence may still name, consensus evidence.max_age_num_blocks) and ' +
      'older heights are pruned; 0 keeps everything (default 100000; --dev 0).',
    (s) => s.minRetainBlocks,
    (s, v) => {
      s.minRetainBlocks = v
    },
  ),

  evm(
    'disable-code-size-limit',
    c.booleanCodec,
    'Run without the 24,576-byte limit on deployed code (EIP-170) and the 49,152-byte limit on init code (EIP-3860), as ' +
      "Anvil's --disable-code-size-limit; a dev chain only (start --dev), every block replayed under it (default false).",
    (s) => s.evm.disableCodeSizeLimit,
    (s, v) => {
      s.evm.disableCodeSizeLimit = v
    },
  ),

  evm(
    'trie-node-cache-mb',
    uint,
    `Memory for state trie nodes, shared by block execution and RPC reads (eth_call, balances, proofs), in MiB; 0 turns ` +
      `the cache off (default ${DEFAULT_TRIE_NODE_CACHE_MB}).`,
    (s) => s.evm.trieNodeCacheMb,
    (s, v) => {
      s.evm.trieNodeCacheMb = v
    },
  ),

  abci(
    'laddr',
    c.socketAddressCodec,
    "Where `nodectl start --abci` listens for CometBFT's ABCI connections: tcp://host:port or unix:///path; CometBFT's " +
      '`proxy_app` must name the same address (default tcp://127.0.0.1:26658).',
    (s) => s.abci.laddr,
    (s, v) => {
      s.abci.laddr = v
    },
  ),
  stateSync(
    'snapshot-interval',
    uint,
    'Heights between two state-sync snapshots of the application, taken in the background after the Commit of ' +
      'every such height and served to nodes joining by state sync; 0 takes none (default 0).',
    (s) => s.snapshots.interval,
    (s, v) => {
      s.snapshots.interval = v
    },
  ),
  stateSync(
    'snapshot-keep-recent',
    uint,
    'State-sync snapshots kept under data/snapshots; older ones are deleted; 0 keeps every one (default 2).',
    (s) => s.snapshots.keepRecent,
    (s, v) => {
      s.snapshots.keepRecent = v
    },
  ),

  api(
    'enabled-unsafe-cors',
    c.booleanCodec,
    'Allow cross-origin requests from any origin on the EVM JSON-RPC HTTP server, whatever [json-rpc] http-corsdomain ' +
      'says: any web page the user visits can then call it, and spend from unlocked accounts (default false).',
    (s) => s.jsonRpc.enabledUnsafeCors,
    (s, v) => {
      s.jsonRpc.enabledUnsafeCors = v
    },
  ),

  jsonRpc(
    'enable',
    c.booleanCodec,
    'Start the EVM JSON-RPC HTTP and WebSocket servers (default false; dev true).',
    (s) => s.jsonRpc.enable,
    (s, v) => {
      s.jsonRpc.enable = v
    },
  ),
  jsonRpc(
    'address',
    c.hostPortCodec,
    'Address the JSON-RPC HTTP server binds to (default "127.0.0.1:8545").',
    (s) => s.jsonRpc.address,
    (s, v) => {
      s.jsonRpc.address = v
    },
  ),
  jsonRpc(
    'ws-address',
    c.hostPortCodec,
    'Address the JSON-RPC WebSocket server binds to (default "0.0.0.0:8546"; dev "127.0.0.1:8546").',
    (s) => s.jsonRpc.wsAddress,
    (s, v) => {
      s.jsonRpc.wsAddress = v
    },
  ),
  jsonRpc(
    'api',
    c.namespacesCodec,
    'Comma-separated namespaces to serve: web3, net, eth, personal, debug, miner, txpool, evm, anvil, hardhat (default "eth,net,web3"; dev all ten; evm, anvil and hardhat are dev-chain methods).',
    (s) => s.jsonRpc.api,
    (s, v) => {
      s.jsonRpc.api = v
    },
  ),
  jsonRpc(
    'gas-cap',
    c.uint64Codec,
    'Gas cap of eth_call and eth_estimateGas; 0 = infinite (default 25000000).',
    (s) => s.jsonRpc.gasCap,
    (s, v) => {
      s.jsonRpc.gasCap = v
    },
  ),
  jsonRpc(
    'evm-timeout',
    c.durationCodec,
    'Time limit of eth_call; "0s" = none (default "5s").',
    (s) => s.jsonRpc.evmTimeout,
    (s, v) => {
      s.jsonRpc.evmTimeout = v
    },
  ),
  jsonRpc(
    'txfee-cap',
    c.nonNegativeNumberCodec,
    'Fee cap of transactions sent through the node, in ether; 0 = no cap (default 1).',
    (s) => s.jsonRpc.txFeeCap,
    (s, v) => {
      s.jsonRpc.txFeeCap = v
    },
  ),
  jsonRpc(
    'filter-cap',
    int32,
    'Maximum number of installed polling filters (default 200).',
    (s) => s.jsonRpc.filterCap,
    (s, v) => {
      s.jsonRpc.filterCap = v
    },
  ),
  jsonRpc(
    'feehistory-cap',
    c.integerCodec(1, 2 ** 31 - 1),
    'Maximum number of blocks eth_feeHistory returns; > 0 (default 100).',
    (s) => s.jsonRpc.feeHistoryCap,
    (s, v) => {
      s.jsonRpc.feeHistoryCap = v
    },
  ),
  jsonRpc(
    'logs-cap',
    int32,
    'Maximum number of logs eth_getLogs and eth_getFilterLogs return (default 10000).',
    (s) => s.jsonRpc.logsCap,
    (s, v) => {
      s.jsonRpc.logsCap = v
    },
  ),
  jsonRpc(
    'block-range-cap',
    int32,
    'Maximum number of blocks eth_getLogs can query (default 10000).',
    (s) => s.jsonRpc.blockRangeCap,
    (s, v) => {
      s.jsonRpc.blockRangeCap = v
    },
  ),
  jsonRpc(
    'http-timeout',
    c.durationCodec,
    'Read/write timeout of the HTTP server (default "30s").',
    (s) => s.jsonRpc.httpTimeout,
    (s, v) => {
      s.jsonRpc.httpTimeout = v
    },
  ),
  jsonRpc(
    'http-idle-timeout',
    c.durationCodec,
    'Idle (keep-alive) timeout of the HTTP server (default "2m0s").',
    (s) => s.jsonRpc.httpIdleTimeout,
    (s, v) => {
      s.jsonRpc.httpIdleTimeout = v
    },
  ),
  jsonRpc(
    'allow-insecure-unlock',
    c.booleanCodec,
    'Allow personal_unlockAccount from callers that are not on loopback (127.0.0.0/8, ::1), as geth --allow-insecure-unlock; an ' +
      'unlocked account signs for anyone who can reach the JSON-RPC (default false).',
    (s) => s.jsonRpc.allowInsecureUnlock,
    (s, v) => {
      s.jsonRpc.allowInsecureUnlock = v
    },
  ),
  jsonRpc(
    'client-identity',
    c.clientIdentityCodec,
    'What web3_clientVersion answers: nodectl (nodectl/v<version>/…), or on a dev chain anvil (anvil/v<version>-nodectl) or ' +
      "hardhat (HardhatNetwork/<version>/nodectl), the prefixes Hardhat's network helpers require (default nodectl).",
    (s) => s.jsonRpc.clientIdentity,
    (s, v) => {
      s.jsonRpc.clientIdentity = v
    },
  ),
  jsonRpc(
    'tracer-concurrency',
    c.integerCodec(1),
    'Maximum number of debug_trace* requests re-executing at once; more wait in a FIFO queue (default 2).',
    (s) => s.jsonRpc.tracerConcurrency,
    (s, v) => {
      s.jsonRpc.tracerConcurrency = v
    },
  ),
  jsonRpc(
    'trace-response-max-size',
    uint,
    'Maximum size of one debug_trace* answer, in bytes; a trace that grows past it stops and fails with -32003 naming this ' +
      'setting; 0 = unlimited (default 25000000, as batch-response-max-size).',
    (s) => s.jsonRpc.traceResponseMaxSize,
    (s, v) => {
      s.jsonRpc.traceResponseMaxSize = v
    },
  ),
  jsonRpc(
    'call-workers',
    c.integerCodec(0, 64),
    'Worker threads that run eth_call and eth_estimateGas, beside the thread that serves requests and runs consensus; ' +
      '0 runs them on that thread (default 1).',
    (s) => s.jsonRpc.callWorkers,
    (s, v) => {
      s.jsonRpc.callWorkers = v
    },
  ),
  jsonRpc(
    'allow-unprotected-txs',
    c.booleanCodec,
    'Accept transactions without EIP-155 replay protection over RPC (default false).',
    (s) => s.jsonRpc.allowUnprotectedTxs,
    (s, v) => {
      s.jsonRpc.allowUnprotectedTxs = v
    },
  ),
  jsonRpc(
    'max-open-connections',
    uint,
    'Maximum number of simultaneous connections of the HTTP listener, and of the WebSocket listener; up to an eighth more ' +
      'wait for a slot, others are closed; lowered to fit a third of the open-file limit (ulimit -n) less a fifth for the ' +
      'database and 100 for peers and files; 0 = that share (default 900).',
    (s) => s.jsonRpc.maxOpenConnections,
    (s, v) => {
      s.jsonRpc.maxOpenConnections = v
    },
  ),
  jsonRpc(
    'enable-indexer',
    c.booleanCodec,
    'Accepted for Evmos compatibility; nodectl always indexes EVM transactions (default false).',
    (s) => s.jsonRpc.enableIndexer,
    (s, v) => {
      s.jsonRpc.enableIndexer = v
    },
  ),
  jsonRpc(
    'batch-request-limit',
    uint,
    'Maximum number of requests in a batch (default 1000).',
    (s) => s.jsonRpc.batchRequestLimit,
    (s, v) => {
      s.jsonRpc.batchRequestLimit = v
    },
  ),
  jsonRpc(
    'batch-response-max-size',
    uint,
    'Maximum size of a batch response, in bytes (default 25000000).',
    (s) => s.jsonRpc.batchResponseMaxSize,
    (s, v) => {
      s.jsonRpc.batchResponseMaxSize = v
    },
  ),
  jsonRpc(
    'http-body-limit',
    uint,
    'Maximum size of an HTTP request body, in bytes (default 5242880).',
    (s) => s.jsonRpc.httpBodyLimit,
    (s, v) => {
      s.jsonRpc.httpBodyLimit = v
    },
  ),
  jsonRpc(
    'ws-origins',
    c.stringListCodec,
    'Origins allowed to open a WebSocket connection (default ["127.0.0.1", "localhost"]).',
    (s) => s.jsonRpc.wsOrigins,
    (s, v) => {
      s.jsonRpc.wsOrigins = v
    },
  ),
  jsonRpc(
    'http-corsdomain',
    c.stringListCodec,
    'Browser origins allowed to make cross-origin requests to the EVM JSON-RPC HTTP server (geth --http.corsdomain), ' +
      'e.g. ["http://localhost:3000"]; "*" allows any. Empty: no CORS headers, so browsers refuse every page of another ' +
      'origin (default []).',
    (s) => s.jsonRpc.httpCorsDomain,
    (s, v) => {
      s.jsonRpc.httpCorsDomain = v
    },
  ),
  jsonRpc(
    'http-vhosts',
    c.stringListCodec,
    'Host names the EVM JSON-RPC HTTP server answers (geth --http.vhosts): a request naming another gets 403, which ' +
      'stops web pages that reach the node by DNS rebinding; IP addresses always pass; "*" allows any name, as a ' +
      'server behind a proxy under its own name needs (default ["localhost"]).',
    (s) => s.jsonRpc.httpVhosts,
    (s, v) => {
      s.jsonRpc.httpVhosts = v
    },
  ),
]

/** Where a value came from, as error messages name it: `config.toml [rpc] laddr`, `app.toml minimum-gas-prices`. */
export function fileKeyLabel(setting: Setting): string {
  return `${setting.file}${setting.section ? ` [${setting.section}]` : ''} ${setting.key}`
}
