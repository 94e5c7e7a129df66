/**
 * The EVM application behind the ABCI-shaped boundary: it executes consensus blocks of raw signed EVM
 * transactions with @ethereumjs/vm (Cancun), keeps the EVM view (blocks, transactions, receipts, logs)
 * and answers the reads the eth API needs.
 *
 * Persistence, as ABCI asks of an application: FinalizeBlock computes and never writes; it stages the
 * height's state nodes, EVM block, receipts, logs and indexes, and the committed-height record
 * (`evm/head`: height and state root = app hash) into the application's own stage. Commit writes that
 * stage in ONE atomic LevelDB batch and only then moves the head, so a receipt is readable only once it
 * is durable, and `info()` reports the last height whose batch is written (after a restart too). InitChain
 * stages the genesis state and block the same way; they are written with the first Commit, and a node
 * that stops before it gets InitChain again from the handshake (its height is still 0). A height
 * abandoned before its Commit (FinalizeBlock failed, or the engine runs it again) is dropped from the
 * stage, InitChain's writes kept.
 *
 * Block hashes: each height of the EVM view is an Ethereum (Cancun) header over the height's execution
 * results, with the consensus block hash as its extraData, and its hash is keccak256 of the header's
 * RLP (store/block-header.ts), so every node computes the same one, at replay too. The genesis state
 * is block `initialHeight - 1` (0), a header of its own (`createGenesisEvmBlock`); each block's
 * parentHash is the EVM hash before it, and BLOCKHASH answers the same hashes (state/block-hashes.ts).
 */
import { DEFAULT_MAX_TX_BYTES } from '../config/defaults.js'
import type { Common, Proof } from '@ethereumjs/common'
import type { Caches, MerkleStateManager } from '@ethereumjs/statemanager'
import type { VM } from '@ethereumjs/vm'
import type { Database } from '../db/database.js'
import type { StageSnapshot, WriteStage } from '../db/write-stage.js'
import { KECCAK256_RLP } from '@ethereumjs/util'
import { bytesToHex, bytesToUpperHex, equalBytes } from '../primitives/hex.js'
import type { ValidatorUpdate } from '../abci/types.js'
import type {
  Application,
  CheckTxResponse,
  CheckTxType,
  FinalizeBlockRequest,
  FinalizeBlockResponse,
  InfoResponse,
  InitChainRequest,
  InitChainResponse,
  PrepareProposalRequest,
  ProcessProposalRequest,
  QueryRequest,
  QueryResponse,
} from '../abci/application.js'
import { parseChainId } from '../config/chain-id.js'
import { silentLogger, type Logger } from '../utils/logger.js'
import { BlockHashes } from './state/block-hashes.js'
import {
  CallService,
  defaultCallOptions,
  type AccountState,
  type CallArgs,
  type CallOptions,
  type CallResult,
  type StateAt,
} from './calls/calls.js'
import { CallWorkers } from './calls/call-workers.js'
import { getCommon, type DevChainRules } from './common.js'
import { MissingStateError, PrunedHistoryError, UnknownBlockError } from './errors.js'
import { createBlockEvents } from './events.js'
import { createEvmBlock, createExecTxResults, createGenesisEvmBlock, createTxRecords, type StoredTx } from './store/block-view.js'
import { toEvmReceipt, toEvmTx, type TxRecord } from './store/evm-records.js'
import { EvmStore, type LogQuery } from './store/evm-store.js'
import { HistoryPruner } from './store/history-pruner.js'
import type { LogMatches } from './store/log-matches.js'
import { LARGE_BLOCK_TXS, executeBlock, type BlockEnv, type BlockExecution, type BlockItem } from './executor.js'
import { calcBaseFee, initialBaseFee } from './fee-market.js'
import { bothSinks, feedGenesisAccounts, type EvmGenesis, type FeeMarketParams, type GenesisAccounts } from './genesis.js'
import { createConsensusVm, trimStateCaches } from './state/state.js'
import { GenesisStateBuilder } from './state/genesis-trie.js'
import { trieKey, trieNodeCacheOf } from './state/trie-db.js'
import { StatePruner } from './state/state-pruner.js'
import { FlatState } from './state/flat-state.js'
import { checkTransaction, isAcceptableProposal, selectProposalTxs } from './txs/tx-admission.js'
import { answerQuery } from './abci-query.js'
import { createAccessList, type AccessListResult } from './calls/access-list.js'
import { simulate, type SimulateRequest, type SimulatedBlock } from './calls/simulate.js'
import { createFeeRecipientTxResult, prependFeeRecipientTx, splitFeeRecipientTx } from './txs/fee-recipient-tx.js'
import { DecodedTxCache } from './txs/tx-cache.js'
import { TxDecodeError, type DecodedTx } from './txs/tx.js'
import type { EvmBlock, EvmLog, EvmReceipt, EvmTx } from './store/views.js'
import { installValidatorAdmin, readOnlyValidatorAdmin } from './validators/validator-admin.js'
import { collectValidatorUpdates } from './validators/validator-updates.js'
import { ValidatorRegistry } from './validators/validator-registry.js'
import { TraceExecutor } from './tracing/trace-executor.js'
import type { ContractConsole } from './tracing/contract-console.js'
import { mapAwaitable, type Awaitable } from '../utils/awaitable.js'
import { planDevBlock } from './dev/dev-block.js'
import { createDevOpResult, fitProposalTxs, gasOfDevOps, leadingDevOps, splitDevOps, takeProposalOps } from './dev/dev-proposal.js'
import {
  DEFAULT_DEV_SETTINGS,
  loadBlockDevOps,
  loadDevSettings,
  sameDevSettings,
  stageBlockDevOps,
  stageDevSettings,
  type DevSettings,
} from './dev/dev-settings.js'
import { DevOpQueue } from './dev/op-queue.js'
import { isDevOp } from './dev/ops.js'
import { GenesisNotes, loadNotedAccounts, notePreimages } from './dev/preimages.js'
import { TX_CODESPACE, TxCode } from './txs/tx-codes.js'
import type { CommittedHead } from './snapshots/state-snapshots.js'
import { nextTurn } from '../utils/event-loop-yield.js'

/** Block gas limit when consensus `block.max_gas` is -1 (unlimited) or unset. */
export const DEFAULT_BLOCK_GAS_LIMIT = 30_000_000n
/**
 * Heights below the head whose EVM blocks are always kept: BLOCKHASH answers the 256 most recent
 * (EIP-2 / the yellow paper's BLOCKHASH window), and it reads them from the store.
 */
const BLOCKHASH_WINDOW = 256
/** ABCI Info `version` / `appVersion`. */
export const APP_VERSION = 1n
const ZERO_ADDRESS = new Uint8Array(20)
const EMPTY = new Uint8Array(0)
/** CheckTx's answer to a dev operation: they are carried only by blocks a dev chain's node proposes. */
const DEV_OP_REFUSED: CheckTxResponse = {
  code: TxCode.TxDecode,
  data: EMPTY,
  log: 'dev operations are not transactions: only a development chain (nodectl start --dev) puts them in its own blocks',
  gasWanted: 0n,
  gasUsed: 0n,
  events: [],
  codespace: TX_CODESPACE,
}

export interface EvmApplicationOptions {
  db: Database
  /** Consensus chain id, e.g. `nodectl_9000-1`. */
  chainId: string
  /** EVM chain id; default: the middle number of `chainId`. */
  evmChainId?: bigint
  /** Parsed genesis `app_state` (fee market, fee recipients, genesis accounts). */
  genesis: EvmGenesis
  /** Node-local minimum tip cap (legacy: gas price, wei) CheckTx requires; default 0. Not consensus. */
  minGasPrice?: bigint
  /** Accept unprotected (pre-EIP-155) transactions in CheckTx; default false. */
  allowUnprotectedTxs?: boolean
  /** Largest transaction CheckTx accepts, in encoded bytes (`[mempool] max_tx_bytes`); default geth's 131072. */
  maxTxBytes?: number
  /**
   * A development chain (`start --dev`): blocks may open with dev operations (dev/ops.ts), which
   * PrepareProposal takes from `devOps` and FinalizeBlock applies; default false (such bytes are an
   * invalid transaction, refused by CheckTx and ProcessProposal).
   */
  dev?: boolean
  logger?: Logger
  /**
   * Fee recipient (coinbase) of a proposer, by its consensus address. Consensus-critical: it must
   * answer the same on every node. Fallbacks: genesis `fee_recipients`, then the 20-byte consensus
   * address itself.
   */
  feeRecipient?: (proposerAddress: Uint8Array) => Uint8Array | undefined
  /**
   * The fee recipient this node's validator declares in the blocks it proposes (miner_setEtherbase),
   * read at each PrepareProposal; undefined: declare none (the default above applies). It reaches
   * other nodes inside the block (fee-recipient-tx.ts), never as a local setting.
   */
  proposerFeeRecipient?: () => Uint8Array | undefined
  /**
   * Validator updates returned by FinalizeBlock (hook for a future staking module); default: the
   * updates recorded by the validator-admin system contract (validator-admin.ts).
   */
  validatorUpdates?: (height: number, execution: BlockExecution) => ValidatorUpdate[]
  /** A dev chain's changes to the rules of execution (common.ts); none by default. */
  devRules?: DevChainRules
  /** A dev chain's contract console (tracing/contract-console.ts): prints the console.log calls of executed transactions. */
  contractConsole?: ContractConsole
  /**
   * Heights of history to keep (`min-retain-blocks`): Commit returns retainHeight = height - n + 1 and
   * the EVM history below it is deleted; 0 keeps everything (the default). Never above what evidence may
   * still name nor above `retainFloor`.
   */
  minRetainBlocks?: number
  /**
   * The lowest height something else still needs kept after committing `height`, e.g. the blocks a
   * node restoring a state-sync snapshot still offered syncs from (undefined: nothing); asked at each Commit.
   */
  retainFloor?: (height: number) => number | undefined
  /** eth_call / estimateGas limits. */
  calls?: Partial<CallOptions>
  /** Memory for state trie nodes shared by execution and RPC reads, bytes (`[evm] trie-node-cache-mb`; default 16 MiB). */
  trieNodeCacheBytes?: number
  /**
   * eth_call / estimateGas worker threads (`[json-rpc] call-workers`, call-workers.ts) and, for tests
   * running from the TypeScript sources, the worker's compiled script; default none (all on this thread).
   */
  callWorkers?: { count: number; script?: URL }
  /** Called after each Commit with the height written (state-sync snapshots: snapshots/state-snapshots.ts). */
  committed?: (head: CommittedHead) => void
  /**
   * State pruning (app.toml `pruning`, state-pruner.ts): the latest height and `keepRecent` below it
   * keep their state, pruned every `interval` heights; default none (an archive node).
   */
  pruning?: { keepRecent: number; interval: number }
}

/** A committed block with its receipts and logs (for subscriptions and filters). */
export interface CommittedEvmBlock {
  block: EvmBlock
  transactions: EvmTx[]
  receipts: EvmReceipt[]
  logs: EvmLog[]
}

interface Head {
  height: number
  stateRoot: Uint8Array
  block: EvmBlock
}

interface Pending {
  block: EvmBlock
  records: StoredTx[]
  /** The dev operations the block carried, encoded, and the dev settings in force after it. */
  devOps?: readonly Uint8Array[]
  devSettings?: DevSettings
}

export class EvmApplication implements Application {
  readonly evmChainId: bigint
  readonly common: Common
  private readonly store: EvmStore
  private readonly blockHashes: BlockHashes
  private readonly calls: CallService
  /** eth_call / estimateGas worker threads, when configured. */
  readonly callWorkers: CallWorkers | undefined
  /** debug_trace*: re-execution of committed blocks and calls on private state copies (tracing/trace-executor.ts). */
  readonly traces: TraceExecutor
  private readonly txs: DecodedTxCache
  private readonly log: Logger
  /** The app's copy of the validator set, for the validator-admin system contract. */
  private readonly validators: ValidatorRegistry
  /** Sets up the read-only VMs of calls, access lists and traces (the validator-admin contract). */
  private readonly prepareVm: (vm: VM) => void
  /** eth_call / estimateGas limits, with their defaults. */
  private readonly callOptions: CallOptions
  private vm: VM | undefined
  private stateManager: MerkleStateManager | undefined
  private caches: Caches | undefined
  private head: Head | undefined
  /** Whether the head is in LevelDB (false after InitChain until the first Commit); see StateAt.written. */
  private headWritten = true
  /** What FinalizeBlock and InitChain stage; Commit writes it. */
  private readonly stage: WriteStage
  /** InitChain's writes until the first Commit writes them: staged again when a height is abandoned. */
  private genesisWrites: StageSnapshot | undefined
  private pending: Pending | undefined
  /** The last committed height's block and records, for `committedBlock`. */
  private committed: Pending | undefined
  /** The block gas limit in force: the dev chain's setting, else the consensus one. */
  private gasLimit = DEFAULT_BLOCK_GAS_LIMIT
  /** The block gas limit of the consensus parameters (`block.max_gas`, or the default). */
  private consensusGasLimit = DEFAULT_BLOCK_GAS_LIMIT
  private genesisHeight = 0
  /** Whether the genesis block is stored: always, but on a node restored from a snapshot more than 256 heights above it. */
  private genesisBlockKept = true
  /** Consensus `evidence.max_age_num_blocks`: the retain height stays below the heights evidence may name. */
  private evidenceMaxAgeBlocks = 0n
  /** Deletes the EVM history below the retained window (history-pruner.ts). */
  private readonly history: HistoryPruner
  /** The dev operations waiting for a block; only on a development chain. */
  readonly devOps: DevOpQueue | undefined
  /** The dev chain's settings after the head (dev-settings.ts). */
  private devSettings: DevSettings = DEFAULT_DEV_SETTINGS
  private opening: Promise<void> | undefined
  /** Deletes the state of heights that left the pruning window; none on an archive node. */
  private readonly pruner: StatePruner | undefined
  /** The head's accounts and slots beside the trie, for reads in one lookup (state/flat-state.ts). */
  private readonly flat: FlatState
  /**
   * The genesis accounts until InitChain has written them, then undefined (also when the chain was
   * initialised before): a million parsed accounts would otherwise stay on the heap for good, and every
   * garbage collection would walk them.
   */
  private genesisAccounts: GenesisAccounts | undefined
  private readonly opts: EvmApplicationOptions

  constructor(opts: EvmApplicationOptions) {
    this.genesisAccounts = opts.genesis.accounts
    this.opts = { ...opts, genesis: { ...opts.genesis, accounts: [] } }
    this.evmChainId = opts.evmChainId ?? parseChainId(opts.chainId)
    this.common = getCommon(this.evmChainId, opts.devRules)
    this.log = (opts.logger ?? silentLogger).child({ module: 'evm' })
    if (opts.trieNodeCacheBytes !== undefined) trieNodeCacheOf(opts.db).resize(opts.trieNodeCacheBytes)
    this.stage = opts.db.createStage()
    this.store = new EvmStore(opts.db)
    this.history = new HistoryPruner(opts.db, this.store, this.log)
    this.blockHashes = new BlockHashes(this.store)
    this.flat = new FlatState(opts.db, this.log.child({ module: 'flat-state' }))
    this.txs = new DecodedTxCache(this.common)
    this.validators = new ValidatorRegistry(opts.db)
    this.prepareVm = readOnlyValidatorAdmin(opts.genesis.validatorAdmin, this.validators)
    this.callOptions = { ...defaultCallOptions, ...opts.calls }
    this.devOps = opts.dev ? new DevOpQueue() : undefined
    this.pruner = opts.pruning
      ? new StatePruner({
          db: opts.db,
          ...opts.pruning,
          stateRootAt: async (height) => (await this.store.getBlock(height))?.stateRoot,
          logger: this.log.child({ module: 'pruning' }),
        })
      : undefined
    const workers = opts.callWorkers
    this.callWorkers =
      workers && workers.count > 0
        ? new CallWorkers({
            count: workers.count,
            script: workers.script,
            data: {
              dbPath: opts.db.opts.path,
              evmChainId: this.evmChainId,
              devRules: opts.devRules ?? {},
              validatorAdmin: opts.genesis.validatorAdmin,
              calls: this.callOptions,
              trieNodeCacheBytes: trieNodeCacheOf(opts.db).capacityBytes,
            },
            logger: this.log,
          })
        : undefined
    this.calls = new CallService(
      {
        db: opts.db,
        common: this.common,
        blockchain: this.blockHashes,
        resolve: (h) => this.resolveState(h),
        prepareVm: this.prepareVm,
        remote: this.callWorkers,
      },
      this.callOptions,
    )
    this.traces = new TraceExecutor({
      db: opts.db,
      common: this.common,
      blockchain: this.blockHashes,
      prepareVm: this.prepareVm,
      gasCap: this.callOptions.gasCap,
    })
  }

  /** Builds and opens an application (loads the head and the state at its root). */
  static async create(opts: EvmApplicationOptions): Promise<EvmApplication> {
    const app = new EvmApplication(opts)
    await app.open()
    return app
  }

  /** Stops the call workers (before the database closes). */
  async close(): Promise<void> {
    await this.flat.close()
    await this.history.close()
    await this.pruner?.close()
    await this.callWorkers?.close()
  }

  /** Loads the committed head; idempotent. The database must be open. */
  open(): Promise<void> {
    this.opening ??= this.load()
    return this.opening
  }

  private async load(): Promise<void> {
    const params = await this.store.loadParams()
    if (params) {
      this.consensusGasLimit = params.gasLimit
      this.gasLimit = params.gasLimit
      this.genesisHeight = params.genesisHeight
      this.evidenceMaxAgeBlocks = params.evidenceMaxAgeBlocks
    }
    await this.history.open()
    const head = await this.store.loadHead()
    if (head) {
      const block = await this.store.getBlock(head.height)
      if (!block) throw new Error(`EVM store: head block ${head.height} missing`)
      this.head = { height: head.height, stateRoot: head.stateRoot, block }
      this.genesisAccounts = undefined
      this.store.setHead(block)
      this.genesisBlockKept = (await this.store.getBlock(this.genesisHeight)) !== undefined
      if (this.opts.dev) this.applyDevSettings(await loadDevSettings(this.opts.db, head.height))
    }
    await this.pruner?.open(this.genesisHeight)
    const noteWrite = this.pruner ? (key: string) => this.pruner!.noteWrite(key) : undefined
    const { vm, stateManager, caches } = await createConsensusVm(
      this.opts.db,
      this.stage,
      this.common,
      this.blockHashes,
      head?.stateRoot,
      noteWrite,
    )
    await this.validators.load()
    installValidatorAdmin(vm, this.opts.genesis.validatorAdmin, this.validators)
    this.opts.contractConsole?.attach(vm)
    if (this.opts.dev) notePreimages(stateManager, this.stage)
    this.vm = vm
    this.stateManager = stateManager
    this.caches = caches
    this.flat.watch(stateManager, caches)
    await this.flat.open(this.head)
    this.log.info('EVM state loaded', { height: head?.height ?? null, stateRoot: head ? bytesToHex(head.stateRoot) : null })
  }

  // ─── Application (ABCI) ─────────────────────────────────────────────────

  async info(): Promise<InfoResponse> {
    await this.open()
    const height = this.head && this.head.height > this.genesisHeight ? this.head.height : 0
    return {
      data: 'nodectl-evm',
      version: String(APP_VERSION),
      appVersion: APP_VERSION,
      lastBlockHeight: height,
      lastBlockAppHash: this.head?.stateRoot ?? EMPTY,
    }
  }

  async initChain(req: InitChainRequest): Promise<InitChainResponse> {
    await this.open()
    const genesisHeight = Math.max(req.initialHeight, 1) - 1
    if (this.head) {
      if (this.head.height !== genesisHeight) throw new Error(`InitChain at height ${this.head.height}: the chain is already initialised`)
      if (!this.validators.committedValidators()) this.validators.initGenesis(this.stage, req.validators)
      return { validators: [], appHash: this.head.stateRoot }
    }
    const maxGas = req.consensusParams.block.maxGas
    this.gasLimit = maxGas > 0n ? maxGas : DEFAULT_BLOCK_GAS_LIMIT
    this.consensusGasLimit = this.gasLimit
    this.genesisHeight = genesisHeight
    this.evidenceMaxAgeBlocks = req.consensusParams.evidence.maxAgeNumBlocks
    const accounts = this.genesisAccounts
    if (!accounts) throw new Error('InitChain: the genesis accounts were released')
    const hadFlatRecords = await this.flat.hasRecords()
    const state = new GenesisStateBuilder(this.opts.db)
    // anvil_dumpState lists what was noted; the genesis builder writes its accounts past the state manager.
    const notes = this.opts.dev ? new GenesisNotes(this.opts.db) : undefined
    await feedGenesisAccounts(accounts, notes ? bothSinks(state, notes) : state)
    const stateRoot = await state.finish()
    await notes?.flush()
    await this.stateManager!.setStateRoot(stateRoot)
    this.genesisAccounts = undefined
    const block = createGenesisEvmBlock({
      chainId: this.opts.chainId,
      height: genesisHeight,
      stateRoot,
      gasLimit: this.gasLimit,
      baseFee: initialBaseFee(this.opts.genesis.feeMarket),
      timestamp: req.time.seconds,
    })
    this.store.stageParams(this.stage, { gasLimit: this.gasLimit, genesisHeight, evidenceMaxAgeBlocks: this.evidenceMaxAgeBlocks })
    this.validators.initGenesis(this.stage, req.validators)
    this.store.stageBlock(this.stage, block, [])
    this.store.stageHead(this.stage, { height: genesisHeight, stateRoot })
    this.flat.stageGenesis(this.stage, genesisHeight, stateRoot, hadFlatRecords)
    this.genesisWrites = this.stage.snapshot()
    this.head = { height: genesisHeight, stateRoot, block }
    this.headWritten = false
    this.store.setHead(block)
    this.log.info('genesis state created', {
      accounts: state.count,
      stateRoot: bytesToHex(stateRoot),
      hash: bytesToHex(block.hash),
    })
    return { validators: [], appHash: stateRoot }
  }

  /**
   * The checks of the transaction itself (txs/tx-admission.ts), asked by the transaction pool for every
   * admission and by the check_tx route. Decodes through the shared cache, so a transaction the pool
   * decoded (and whose sender it recovered) is not decoded again. Stateless: nonce and funds are checked
   * by the pool against its view of each sender, with no second state read. `recheck` is not asked:
   * after a block the pool re-checks nonce, funds and the gas limit itself.
   */
  async checkTx(raw: Uint8Array, _type: CheckTxType): Promise<CheckTxResponse> {
    // Dev operations reach blocks only through the dev chain's own queue, never through a pool.
    if (isDevOp(raw)) return { ...DEV_OP_REFUSED }
    let tx: DecodedTx | Error
    try {
      tx = this.txs.decode(raw)
    } catch (err) {
      tx = err instanceof Error ? err : new TxDecodeError(String(err))
    }
    return checkTransaction(raw, tx, {
      maxTxBytes: this.opts.maxTxBytes ?? DEFAULT_MAX_TX_BYTES,
      gasLimit: this.nextBlockGasLimit(),
      minGasPrice: this.opts.minGasPrice ?? 0n,
      allowUnprotectedTxs: this.opts.allowUnprotectedTxs === true,
      unlimitedCodeSize: this.opts.devRules?.unlimitedCodeSize === true,
    })
  }

  /**
   * Keeps the txs in order while their gas limits fit the block; drops undecodable ones. With a
   * `proposerFeeRecipient`, the block opens with its declaration (fee-recipient-tx.ts).
   */
  async prepareProposal(req: PrepareProposalRequest): Promise<{ txs: Uint8Array[] }> {
    // A dev chain's queued operations ride in a block that is wanted (op-queue.ts), never in one the engine makes on its own.
    const queue = this.devOps
    const wanted = queue !== undefined && (queue.blockWanted() > 0 || req.txs.length > 0)
    const {
      raws: ops,
      gasLimit,
      opsGas,
    } = wanted ? takeProposalOps(queue.pendingOps(), queue.pending(), this.gasLimit) : { raws: [], gasLimit: this.gasLimit, opsGas: 0n }
    const selected = selectProposalTxs(req.txs, (raw) => this.txs.decode(raw), gasLimit - opsGas, req.maxTxBytes)
    // A dev chain's queued operations open the block, before the pool's transactions.
    const txs = ops.length > 0 ? fitProposalTxs([...ops, ...selected], req.maxTxBytes) : selected
    const feeRecipient = this.opts.proposerFeeRecipient?.()
    return { txs: feeRecipient ? prependFeeRecipientTx(feeRecipient, txs, req.maxTxBytes) : txs }
  }

  /**
   * Rejects a proposal with undecodable txs (a fee-recipient declaration is accepted as the first tx
   * only) or whose gas limits exceed the block gas limit.
   */
  async processProposal(req: ProcessProposalRequest): Promise<{ accept: boolean }> {
    const { txs } = splitFeeRecipientTx(req.txs)
    if (!this.opts.dev) return { accept: isAcceptableProposal(txs, (raw) => this.txs.decode(raw), this.gasLimit) }
    // A dev block: its operations must decode; their gas and gas limit count with the transactions'.
    const split = splitDevOps(txs)
    if (split.ops instanceof Error) return { accept: false }
    const { gasLimit, opsGas } = gasOfDevOps(split.ops, this.gasLimit)
    return { accept: opsGas <= gasLimit && isAcceptableProposal(split.txs, (raw) => this.txs.decode(raw), gasLimit - opsGas) }
  }

  async finalizeBlock(req: FinalizeBlockRequest): Promise<FinalizeBlockResponse> {
    await this.open()
    const head = this.head
    if (!head) throw new Error('FinalizeBlock before InitChain')
    if (req.height !== head.height + 1) throw new Error(`FinalizeBlock height ${req.height}, expected ${head.height + 1}`)
    // The same height again without a commit (the engine runs it again): start from the head state.
    if (this.pending) await this.abandonHeight(head)
    this.validators.discardBlock()
    const started = performance.now()
    const { feeRecipient, txs: blockTxs } = splitFeeRecipientTx(req.txs)
    const devOps = this.opts.dev ? leadingDevOps(blockTxs) : []
    const txs = devOps.length > 0 ? blockTxs.slice(devOps.length) : blockTxs
    const decoded: BlockItem[] = txs.map((raw) => {
      try {
        return this.txs.decode(raw)
      } catch (err) {
        return err instanceof Error ? err : new TxDecodeError(String(err))
      }
    })
    const baseFee = this.computeNextBaseFee()
    const coinbase = feeRecipient ?? this.feeRecipientOf(req.proposerAddress)
    let env: BlockEnv = { height: req.height, timestamp: req.time.seconds, gasLimit: this.gasLimit, baseFee, coinbase }
    let dev: { ops: readonly Uint8Array[]; settings: DevSettings } | undefined
    if (this.opts.dev) {
      const plan = planDevBlock({
        ops: devOps,
        env,
        parentTimestamp: head.block.timestamp,
        settings: this.devSettings,
        common: this.common,
      })
      env = plan.env
      decoded.unshift(...plan.items)
      dev = { ops: devOps, settings: plan.settings }
    }
    try {
      const res = await this.executeAndStage(req, head, env, decoded, started, dev)
      // The declaration is the block's first consensus tx: its result comes first too.
      if (feeRecipient) res.txResults.unshift(createFeeRecipientTxResult(req.proposerAddress, feeRecipient))
      return res
    } catch (err) {
      // executeBlock reverted its checkpoint; make sure the live state is back at the head root too.
      await this.abandonHeight(head)
      throw err
    }
  }

  /** Drops an executed but uncommitted height: its staged writes (InitChain's kept) and its state. */
  private async abandonHeight(head: Head): Promise<void> {
    this.pending = undefined
    this.validators.discardBlock()
    this.stage.discard()
    this.pruner?.forgetHeight()
    if (this.genesisWrites) this.stage.restore(this.genesisWrites)
    await this.stateManager!.setStateRoot(head.stateRoot)
    this.flat.beginBlock()
  }

  private async executeAndStage(
    req: FinalizeBlockRequest,
    head: Head,
    env: BlockEnv,
    decoded: BlockItem[],
    started: number,
    dev: { ops: readonly Uint8Array[]; settings: DevSettings } | undefined,
  ): Promise<FinalizeBlockResponse> {
    this.flat.beginBlock()
    const exec = await executeBlock(this.vm!, this.common, env, decoded, this.opts.contractConsole?.beginTx)
    // EvmBlock.size: the consensus block's encoded size, as the request carries it; the tx bytes for a caller that gives none.
    const size = req.blockSize ?? req.txs.reduce((n, t) => n + t.length, 0)
    const block = createEvmBlock(env, exec, req.hash, head.block.hash, size)
    const records = createTxRecords(exec, req.height, block.hash)
    // Its records and results take several milliseconds each for a large block: other work goes between
    // them (no reader sees the height before Commit makes it the head).
    const large = exec.executed.length >= LARGE_BLOCK_TXS
    if (large) await nextTurn()
    this.store.stageBlock(this.stage, block, records)
    this.store.stageHead(this.stage, { height: req.height, stateRoot: exec.stateRoot })
    this.pending = { block, records }
    if (dev) {
      if (!sameDevSettings(dev.settings, this.devSettings)) stageDevSettings(this.stage, req.height, dev.settings)
      if (dev.ops.length > 0) stageBlockDevOps(this.stage, req.height, dev.ops)
      this.pending.devOps = dev.ops
      this.pending.devSettings = dev.settings
    }
    this.log.debug('executed block', {
      height: req.height,
      txs: req.txs.length,
      executed: exec.executed.length,
      gasUsed: exec.gasUsed,
      ms: Math.round(performance.now() - started),
    })
    if (large) await nextTurn()
    const txResults = createExecTxResults(exec, records)
    // A dev operation that is not a transaction: its result names its kind.
    for (let i = 0; i < (dev?.ops.length ?? 0); i++) {
      if (exec.outcomes[i]!.executed === undefined && txResults[i]!.code === TxCode.OK) txResults[i] = createDevOpResult(dev!.ops[i]!)
    }
    return {
      events: createBlockEvents(exec.bloom, env.baseFee),
      txResults,
      validatorUpdates: this.opts.validatorUpdates
        ? this.opts.validatorUpdates(req.height, exec)
        : this.validators.finishBlock(this.stage, collectValidatorUpdates(exec)),
      appHash: exec.stateRoot,
    }
  }

  /**
   * Writes the executed height (with InitChain's writes before the first block) in one atomic batch,
   * then makes it the head: readers see a height only once it is durable.
   */
  async commit(): Promise<{ retainHeight: number }> {
    const pruner = this.pruner
    const height = this.pending?.block.number
    if (pruner && height !== undefined) pruner.stageJournal(this.stage, height)
    // The flat state's records of the height go in its batch, after any generation slice under way.
    await this.flat.lock.run(() => {
      if (this.pending) this.flat.stageBlock(this.stage, this.pending.block.number, this.pending.block.stateRoot)
      return pruner ? pruner.writeLock.run(() => this.stage.write()) : this.stage.write()
    })
    if (height !== undefined) pruner?.afterCommit(height)
    this.flat.resume()
    this.genesisWrites = undefined
    this.headWritten = true
    const pending = this.pending
    if (!pending) return { retainHeight: 0 }
    this.pending = undefined
    this.validators.commitBlock()
    this.head = { height: pending.block.number, stateRoot: pending.block.stateRoot, block: pending.block }
    this.store.setHead(pending.block)
    this.committed = pending
    if (pending.devSettings) this.applyDevSettings(pending.devSettings)
    if (pending.devOps) this.devOps?.confirm(pending.devOps, pending.block.number)
    this.calls.invalidate()
    trimStateCaches(this.stateManager!, this.caches!, pending.block.number)
    for (const r of pending.records) this.txs.delete(r.raw)
    this.opts.committed?.({
      height: pending.block.number,
      stateRoot: pending.block.stateRoot,
      validators: this.validators.committedValidators() ?? [],
    })
    const retainHeight = this.retainHeight(pending.block.number)
    if (retainHeight > 0) this.history.pruneBelow(Math.min(retainHeight, pending.block.number + 1 - BLOCKHASH_WINDOW), this.genesisHeight)
    return { retainHeight }
  }

  /**
   * Commit's retainHeight (Cosmos SDK `GetBlockRetentionHeight`): height - min-retain-blocks + 1, never
   * above height - evidence.max_age_num_blocks (evidence of those heights is still valid and names
   * their validators) nor above `retainFloor` (a snapshot still offered); 0 = keep everything.
   */
  private retainHeight(height: number): number {
    const keep = this.opts.minRetainBlocks ?? 0
    if (keep <= 0) return 0
    let retain = Math.min(height - keep + 1, height - Number(this.evidenceMaxAgeBlocks))
    const floor = this.opts.retainFloor?.(height)
    if (floor !== undefined) retain = Math.min(retain, floor)
    return retain > this.genesisHeight + 1 ? retain : 0
  }

  /** Resolves once the flat state is complete for the head, or its generation stopped (tests, measurements). */
  flatStateComplete(): Promise<void> {
    return this.flat.complete()
  }

  /** Resolves once the history below the retained window is deleted (tests, measurements). */
  historyPruned(): Promise<void> {
    return this.history.drained()
  }

  /**
   * After a state-sync restore wrote a height (snapshots/snapshot-restore.ts): opens again at it. What an
   * InitChain staged and no Commit wrote is dropped: the restored height supersedes the genesis.
   */
  async reload(): Promise<void> {
    this.stage.discard()
    this.genesisWrites = undefined
    this.pending = undefined
    this.headWritten = true
    this.validators.discardBlock()
    this.committed = undefined
    this.opening = this.load()
    await this.opening
    this.calls.invalidate()
  }

  /**
   * Stages into `stage` the application's side of a dev chain's revert to `height` (docs/dev-chain.md,
   * "Snapshots"): the heights above it removed, `height` the head again. The state is kept per height, so
   * going back is moving the head to that height's root. `validators` is consensus's set after `height`
   * (its next validators), which the validator-admin contract's copy takes again. Nothing is pending
   * (the engine is paused).
   */
  async stageRollback(stage: WriteStage, height: number, validators: readonly ValidatorUpdate[]): Promise<void> {
    await this.open()
    if (this.pending) throw new Error('cannot roll back while a height is being executed')
    if (this.isPruned(height)) throw new PrunedHistoryError()
    const block = await this.store.getBlock(height)
    if (!block) throw new Error(`EVM store: block ${height} missing`)
    await this.store.stageRollback(stage, height, this.latestHeight())
    this.store.stageHead(stage, { height, stateRoot: block.stateRoot })
    this.validators.stageRollback(stage, validators)
  }

  /** The logs of the committed blocks above `height`, in chain order (what a revert to `height` removes). */
  async logsAbove(height: number): Promise<EvmLog[]> {
    const query = { fromBlock: height + 1, toBlock: this.latestHeight(), addresses: [], topics: [] }
    return (await this.store.getLogs(query, Number.POSITIVE_INFINITY)).toArray()
  }

  /** After a rollback staged by `stageRollback` is written: the head, the state and the caches are back at it. */
  async rewound(): Promise<void> {
    this.committed = undefined
    // Operations queued on the abandoned chain (a timestamp, a set in flight) do not carry over.
    this.devOps?.clear('the chain was reverted before a block carried this operation')
    this.opening = this.load()
    await this.opening
    if (this.head) this.store.rewindHead(this.head.block)
    this.calls.invalidate()
  }

  /**
   * The block committed last in this process, with its transactions, receipts and logs (what newHeads,
   * log subscriptions and filters need); built on demand, undefined before the first Commit.
   */
  committedBlock(): CommittedEvmBlock | undefined {
    const c = this.committed
    if (!c) return undefined
    const receipts = c.records.map(toEvmReceipt)
    return { block: c.block, transactions: c.records.map(toEvmTx), receipts, logs: receipts.flatMap((r) => r.logs) }
  }

  /** ABCI Query: `/evm/balance|nonce|code/<0xaddr>`, `/evm/storage/<0xaddr>/<0xslot>` (abci-query.ts). */
  query(req: QueryRequest): Promise<QueryResponse> {
    return answerQuery(req, {
      resolveHeight: async (height) => {
        try {
          return (await this.resolveState(height > 0 ? height : undefined)).height
        } catch (err) {
          if (!(err instanceof MissingStateError) && !(err instanceof PrunedHistoryError)) throw err
          // Cosmos SDK's answer for a pruned version.
          throw new Error(`failed to load state at height ${height}; version does not exist (latest height: ${this.latestHeight()})`)
        }
      },
      getAccount: (address, height) => this.getAccount(address, height),
      getCode: (address, height) => this.getCode(address, height),
      getStorageAt: (address, slot, height) => this.getStorageAt(address, slot, height),
    })
  }

  // ─── reads for the eth API ──────────────────────────────────────────────

  /** Height of the newest committed EVM block (the genesis height before the first block). */
  latestHeight(): number {
    return this.head?.height ?? 0
  }

  /** The newest committed EVM block (the genesis block before the first block); undefined before InitChain. */
  latestBlock(): EvmBlock | undefined {
    return this.head?.block
  }

  /** The lowest height whose state can be read: the EVM genesis on an archive node, else the pruning window's start. */
  lowestStateHeight(): number {
    return Math.max(this.genesisHeight, this.pruner?.lowestStateHeight() ?? 0)
  }

  /** Heights whose state a pruning node keeps (the latest and `keepRecent` below it); undefined on an archive node. */
  stateRetentionBlocks(): number | undefined {
    return this.opts.pruning ? this.opts.pruning.keepRecent + 1 : undefined
  }

  /** Keeps `height`'s state (and every height's above it) from pruning until `unpinState`; throws when it is pruned. */
  pinState(height: number): void {
    if (height < this.lowestStateHeight()) throw new MissingStateError(height)
    this.pruner?.pin(height)
  }

  unpinState(height: number): void {
    this.pruner?.unpin(height)
  }

  /** Settles when no state pruning is going on. */
  async pruningIdle(): Promise<void> {
    await this.pruner?.idle()
  }

  /** Height of the genesis block of the EVM view (`initialHeight - 1`, normally 0). */
  earliestHeight(): number {
    return this.genesisHeight
  }

  /**
   * Lowest height whose block, receipts and logs are kept (what `earliest` names): the genesis height
   * until history is pruned, the height above the snapshot on a node restored from one. The genesis
   * block itself is served below the base when the node has it.
   */
  historyBase(): number {
    return Math.max(this.history.base(), this.genesisHeight)
  }

  /** The block gas limit (consensus `block.max_gas`, 30,000,000 when unlimited). */
  blockGasLimit(): bigint {
    return this.gasLimit
  }

  /**
   * The gas limit of the blocks to come, which admission holds transactions to: on a dev chain the last
   * evm_setBlockGasLimit still queued (the next wanted block takes it), else the block gas limit.
   */
  nextBlockGasLimit(): bigint {
    let limit = this.gasLimit
    for (const op of this.devOps?.pendingOps() ?? []) if (op.kind === 'gasLimit') limit = op.gasLimit
    return limit
  }

  /** A committed block by height or by (32-byte) hash; throws PrunedHistoryError below the history base. */
  async getBlock(ref: number | Uint8Array): Promise<EvmBlock | undefined> {
    const height = typeof ref === 'number' ? ref : await this.store.getHeightByHash(ref)
    if (height === undefined || !this.isCommitted(height)) return undefined
    if (this.isPruned(height)) throw new PrunedHistoryError()
    return this.store.getBlock(height)
  }

  /** The transactions of a committed block, in order. */
  async getBlockTransactions(height: number): Promise<EvmTx[] | undefined> {
    const block = await this.getBlock(height)
    return block ? (await this.store.getBlockTxs(block)).map(toEvmTx) : undefined
  }

  /** A committed transaction by EVM (Keccak) hash. */
  async getTransaction(hash: Uint8Array): Promise<EvmTx | undefined> {
    const r = await this.committedTx(hash)
    return r ? toEvmTx(r) : undefined
  }

  /** A committed transaction by consensus (SHA-256) hash. */
  async getTransactionByCometHash(cometHash: Uint8Array): Promise<EvmTx | undefined> {
    const loc = await this.store.getTxLocationByCometHash(cometHash)
    return loc ? this.getTransaction(loc.hash) : undefined
  }

  async getTransactionByBlockAndIndex(height: number, index: number): Promise<EvmTx | undefined> {
    const block = await this.getBlock(height)
    const hash = block?.transactions[index]
    return hash ? this.getTransaction(hash) : undefined
  }

  /** The stored records (raw bytes, receipt fields) of a committed block's transactions, in order. */
  async getBlockTxRecords(height: number): Promise<TxRecord[] | undefined> {
    const block = await this.getBlock(height)
    return block ? this.store.getBlockTxs(block) : undefined
  }

  /** The stored record of a committed transaction by EVM hash. */
  getTxRecord(hash: Uint8Array): Promise<TxRecord | undefined> {
    return this.committedTx(hash)
  }

  /** The state after committed block `height` (default latest); throws UnknownBlockError. */
  stateAt(height?: number): Promise<StateAt> {
    return this.resolveState(height)
  }

  /** The receipt of a committed transaction by EVM hash. */
  async getReceipt(hash: Uint8Array): Promise<EvmReceipt | undefined> {
    const r = await this.committedTx(hash)
    return r ? toEvmReceipt(r) : undefined
  }

  async getBlockReceipts(height: number): Promise<EvmReceipt[] | undefined> {
    const block = await this.getBlock(height)
    return block ? (await this.store.getBlockTxs(block)).map(toEvmReceipt) : undefined
  }

  /** eth_getLogs over resolved heights; throws LogLimitError beyond `limit` logs, PrunedHistoryError from below the history base. */
  async getLogs(query: LogQuery, limit: number): Promise<LogMatches> {
    if (this.isPruned(query.fromBlock) || (query.fromBlock <= this.genesisHeight && this.isPruned(this.genesisHeight + 1))) {
      throw new PrunedHistoryError()
    }
    return this.store.getLogs(query, limit)
  }

  /** eth_call at `height` (default latest); throws ExecutionRevertedError / VmExecutionError / CallArgsError. */
  call(args: CallArgs, height?: number): Promise<CallResult> {
    return this.calls.call(args, height)
  }

  estimateGas(args: CallArgs, height?: number): Promise<bigint> {
    return this.calls.estimateGas(args, height)
  }

  /** The account at `height` (default latest); at once when it was read at that height since the last commit. */
  getAccount(address: Uint8Array, height?: number): AccountState | Promise<AccountState> {
    return this.calls.getAccount(address, height)
  }

  getBalance(address: Uint8Array, height?: number): Awaitable<bigint> {
    return mapAwaitable(this.calls.getAccount(address, height), (a) => a.balance)
  }

  getNonce(address: Uint8Array, height?: number): Awaitable<bigint> {
    return mapAwaitable(this.calls.getAccount(address, height), (a) => a.nonce)
  }

  getCode(address: Uint8Array, height?: number): Promise<Uint8Array> {
    return this.calls.getCode(address, height)
  }

  /** 32-byte storage value at a 32-byte slot. */
  getStorageAt(address: Uint8Array, slot: Uint8Array, height?: number): Promise<Uint8Array> {
    return this.calls.getStorageAt(address, slot, height)
  }

  /** eth_createAccessList at `height` (default latest): access-list.ts. */
  async createAccessList(args: CallArgs, height?: number): Promise<AccessListResult> {
    const deps = {
      db: this.opts.db,
      common: this.common,
      blockchain: this.blockHashes,
      options: this.callOptions,
      prepareVm: this.prepareVm,
    }
    return createAccessList(deps, await this.resolveState(height), args)
  }

  /** eth_simulateV1 on the state after `height` (default latest): calls/simulate.ts. */
  async simulate(request: SimulateRequest, height?: number): Promise<SimulatedBlock[]> {
    const state = await this.resolveState(height)
    const base = await this.getBlock(state.height)
    if (!base) throw new UnknownBlockError()
    const deps = {
      db: this.opts.db,
      common: this.common,
      blockchain: this.blockHashes,
      options: this.callOptions,
      feeMarket: this.opts.genesis.feeMarket,
      prepareVm: this.prepareVm,
    }
    return simulate(deps, state, base, request)
  }

  /** Changes the node-local minimum tip CheckTx requires (miner_setGasPrice). */
  setMinGasPrice(wei: bigint): void {
    this.opts.minGasPrice = wei
  }

  /** EIP-1186 proof (hex strings, ethereumjs `Proof`) against the height's stateRoot. */
  getProof(address: Uint8Array, slots: Uint8Array[], height?: number): Promise<Proof> {
    return this.calls.getProof(address, slots, height)
  }

  /** The chain's EIP-1559 parameters (genesis `fee_market`). */
  get feeMarket(): FeeMarketParams {
    return this.opts.genesis.feeMarket
  }

  /**
   * Base fee of the next block (EIP-1559 from the head block; the initial base fee after genesis); on a
   * dev chain, the base fee a queued anvil_setNextBlockBaseFeePerGas gives it.
   */
  nextBaseFee(): bigint {
    const ops = this.devOps?.pendingOps()
    const override = ops?.findLast((op) => op.kind === 'nextBaseFee')
    return override?.kind === 'nextBaseFee' ? override.baseFee : this.computeNextBaseFee()
  }

  /** The dev operations committed block `height` carried (dev chains; none elsewhere). */
  async getBlockDevOps(height: number): Promise<Uint8Array[]> {
    return this.opts.dev && this.isCommitted(height) ? loadBlockDevOps(this.opts.db, height) : []
  }

  /** The addresses (and their slots) a dev chain's state was written at (anvil_dumpState); none elsewhere. */
  async devAccounts(): Promise<{ address: Uint8Array; slots: Uint8Array[] }[]> {
    return this.opts.dev ? loadNotedAccounts(this.opts.db) : []
  }

  /** The dev chain's settings after the head (time offset, coinbase, gas limit); the defaults elsewhere. */
  currentDevSettings(): DevSettings {
    return this.devSettings
  }

  private applyDevSettings(settings: DevSettings): void {
    this.devSettings = settings
    this.gasLimit = settings.gasLimit ?? this.consensusGasLimit
  }

  private computeNextBaseFee(): bigint {
    const head = this.head
    const fm = this.opts.genesis.feeMarket
    if (!head || head.height <= this.genesisHeight) return initialBaseFee(fm)
    return calcBaseFee({ gasLimit: head.block.gasLimit, gasUsed: head.block.gasUsed, baseFee: head.block.baseFeePerGas }, fm)
  }

  /** Decodes a raw transaction through the shared cache (the pool should use this: decoded once). */
  decodeTx(raw: Uint8Array): DecodedTx {
    return this.txs.decode(raw)
  }

  /** `decodeTx` with the sender recovered off the main thread (the pool's admission, before it asks CheckTx). */
  decodeTxOffThread(raw: Uint8Array): DecodedTx | Promise<DecodedTx> {
    return this.txs.decodeOffThread(raw)
  }

  /**
   * The fee recipient (coinbase) of blocks proposed by the validator with consensus address
   * `proposer`: the `feeRecipient` option, else genesis `fee_recipients`, else the 20-byte address itself.
   */
  feeRecipientOf(proposer: Uint8Array): Uint8Array {
    const custom = this.opts.feeRecipient?.(proposer)
    if (custom) return custom
    const fromGenesis = this.opts.genesis.feeRecipients.get(bytesToUpperHex(proposer))
    if (fromGenesis) return fromGenesis
    return proposer.length === 20 ? proposer : ZERO_ADDRESS
  }

  // ─── internals ──────────────────────────────────────────────────────────

  private isCommitted(height: number): boolean {
    return this.head !== undefined && height >= this.genesisHeight && height <= this.head.height
  }

  /**
   * Whether `height` is history this node does not keep: below the history base, the genesis block
   * aside when it is kept.
   */
  private isPruned(height: number): boolean {
    return height < this.history.base() && (height > this.genesisHeight || !this.genesisBlockKept)
  }

  private async hasStateRoot(root: Uint8Array): Promise<boolean> {
    return equalBytes(root, KECCAK256_RLP) || (await this.opts.db.get(trieKey(bytesToHex(root).slice(2)))) !== undefined
  }

  private async committedTx(hash: Uint8Array): Promise<TxRecord | undefined> {
    const r = await this.store.getTx(hash)
    return r && this.isCommitted(r.height) && !this.isPruned(r.height) ? r : undefined
  }

  private async resolveState(height: number | undefined): Promise<StateAt> {
    await this.open()
    const head = this.head
    if (!head) throw new UnknownBlockError()
    const h = height ?? head.height
    // The head's state is read whatever the base (a restored node's head block is below it until the
    // next block): CheckTx, eth_call and estimateGas at `latest` need it.
    if (h !== head.height && this.isPruned(h)) throw new PrunedHistoryError()
    const block = h === head.height ? head.block : this.isCommitted(h) ? await this.store.getBlock(h) : undefined
    if (!block) throw new UnknownBlockError()
    if (h < this.lowestStateHeight()) throw new MissingStateError(h, block.stateRoot)
    // The genesis block below the base of a node restored from a snapshot: its state was never here.
    if (h !== head.height && h < this.history.base() && !(await this.hasStateRoot(block.stateRoot))) throw new PrunedHistoryError()
    return {
      height: h,
      stateRoot: block.stateRoot,
      env: {
        height: h,
        timestamp: block.timestamp,
        gasLimit: block.gasLimit,
        baseFee: block.baseFeePerGas,
        coinbase: block.miner,
        mixHash: block.mixHash,
      },
      // Every height below the head was written by its Commit; the head is unwritten only after InitChain.
      written: this.headWritten,
    }
  }
}
