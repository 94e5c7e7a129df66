/**
 * The EVM application behind the ABCI-shaped boundary: it executes consensus blocks of raw signed EVM
 * transactions with @ethereumjs/vm (Cancun), keeps the EVM view (blocks, transactions, receipts, logs)
 * and answers the reads the eth API needs.
 *
 * Writes: every height's state nodes, EVM view records and head pointer are *staged* into the shared
 * Database during FinalizeBlock; the consensus engine writes them in one atomic batch
 * (`db.commitStaged()`) after `commit()`. InitChain stages the genesis state and block the same way:
 * the engine must call `commitStaged()` after InitChain too (if it does not, they are written with the
 * first block's batch, which is equally atomic).
 *
 * Genesis block: the EVM view shows the genesis state as block `initialHeight - 1` (0), with
 * hash = keccak256(RLP[utf8(chainId), genesisStateRoot]) (deterministic, distinct per chain), parent
 * hash zero. Block 1's parentHash is that hash; later blocks carry the consensus block hashes.
 */
import { bytesToHex, bytesToUpperHex, bigintToBytes, hexToBytes, utf8ToBytes } from '../../primitives/hex.js'
import { isAddress } from '../../primitives/address.js'
import { keccak256 } from '../../crypto/index.js'
import { RLP } from '@ethereumjs/rlp'
import type { Common } from '@ethereumjs/common'
import type { Proof } from '@ethereumjs/common'
import type { VM } from '@ethereumjs/vm'
import type { Database } from '../../db/database.js'
import type { ValidatorUpdate } from '../comet/types.js'
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
} from '../../consensus/application.js'
import { TypedEmitter } from '../../utils/events.js'
import { silentLogger, type Logger } from '../../utils/logger.js'
import { BlockHashes } from './block-hashes.js'
import { CallService, defaultCallOptions, type AccountState, type CallArgs, type CallOptions, type CallResult, type StateAt } from './calls.js'
import { getCommon } from './common.js'
import { UnknownBlockError } from './errors.js'
import { createBlockEvents, createTxEvents } from './events.js'
import { toEvmLogs, toEvmReceipt, toEvmTx, type TxRecord } from './evm-records.js'
import { EvmStore, type LogQuery } from './evm-store.js'
import { executeBlock, type BlockExecution } from './executor.js'
import { calcBaseFee, initialBaseFee } from './fee-market.js'
import { parseEvmChainId, type EvmGenesis } from './genesis.js'
import { EMPTY_TRIE_ROOT } from './ordered-trie.js'
import { applyGenesisAlloc, createConsensusVm } from './state.js'
import { TX_CODESPACE, TxCode } from './tx-codes.js'
import { DecodedTxCache } from './tx-cache.js'
import { TxDecodeError, type DecodedTx } from './tx.js'
import type { EvmBlock, EvmLog, EvmReceipt, EvmTx } from './views.js'

/** Block gas limit when consensus `block.max_gas` is -1 (unlimited) or unset. */
export const DEFAULT_BLOCK_GAS_LIMIT = 30_000_000n
/** ABCI Info `version` / `appVersion`. */
export const APP_VERSION = 1n
const ZERO_ADDRESS = new Uint8Array(20)
const ZERO_HASH = new Uint8Array(32)
const EMPTY = new Uint8Array(0)

export interface EvmApplicationOptions {
  db: Database
  /** Consensus chain id, e.g. `nodectl_9000-1`. */
  chainId: string
  /** EVM chain id; default: the middle number of `chainId`. */
  evmChainId?: bigint
  /** Parsed genesis `app_state` (fee market, fee recipients, genesis accounts). */
  genesis: EvmGenesis
  /** Node-local minimum gas price (wei) CheckTx requires of a fee cap; default 0. Not consensus. */
  minGasPrice?: bigint
  /** Accept unprotected (pre-EIP-155) transactions in CheckTx; default false. */
  allowUnprotectedTxs?: boolean
  logger?: Logger
  /**
   * Fee recipient (coinbase) of a proposer, by its consensus address. Consensus-critical: it must
   * answer the same on every node. Fallbacks: genesis `fee_recipients`, then the 20-byte consensus
   * address itself.
   */
  feeRecipient?: (proposerAddress: Uint8Array) => Uint8Array | undefined
  /** Size in bytes of the consensus block of a height (EvmBlock.size); default: sum of its tx bytes. */
  blockSize?: (req: FinalizeBlockRequest) => number
  /** Validator updates returned by FinalizeBlock (hook for a future staking module); default none. */
  validatorUpdates?: (height: number, execution: BlockExecution) => ValidatorUpdate[]
  /** eth_call / estimateGas limits. */
  calls?: Partial<CallOptions>
}

/** A committed block with its receipts and logs (for subscriptions and filters). */
export interface CommittedEvmBlock {
  block: EvmBlock
  transactions: EvmTx[]
  receipts: EvmReceipt[]
  logs: EvmLog[]
}

export type EvmApplicationEvents = {
  /** Emitted by commit(), before the engine writes the height's batch (reads already see it). */
  block: CommittedEvmBlock
}

interface Head {
  height: number
  stateRoot: Uint8Array
  block: EvmBlock
}

interface Pending {
  block: EvmBlock
  records: (TxRecord & { cometHash: Uint8Array })[]
}

export class EvmApplication implements Application {
  /** Committed EVM blocks, in order. */
  readonly events = new TypedEmitter<EvmApplicationEvents>()
  readonly evmChainId: bigint
  readonly common: Common
  private readonly store: EvmStore
  private readonly blockHashes: BlockHashes
  private readonly calls: CallService
  private readonly txs: DecodedTxCache
  private readonly log: Logger
  private vm: VM | undefined
  private head: Head | undefined
  private pending: Pending | undefined
  private gasLimit = DEFAULT_BLOCK_GAS_LIMIT
  private genesisHeight = 0
  private opening: Promise<void> | undefined

  constructor(private readonly opts: EvmApplicationOptions) {
    this.evmChainId = opts.evmChainId ?? parseEvmChainId(opts.chainId)
    this.common = getCommon(this.evmChainId)
    this.log = (opts.logger ?? silentLogger).child({ module: 'evm' })
    this.store = new EvmStore(opts.db)
    this.blockHashes = new BlockHashes(this.store)
    this.txs = new DecodedTxCache(this.common)
    this.calls = new CallService({ db: opts.db, common: this.common, blockchain: this.blockHashes, resolve: (h) => this.resolveState(h) }, { ...defaultCallOptions, ...opts.calls })
  }

  /** Builds and opens an application (loads the head and the state at its root). */
  static async create(opts: EvmApplicationOptions): Promise<EvmApplication> {
    const app = new EvmApplication(opts)
    await app.open()
    return app
  }

  /** Loads the committed head; idempotent. The database must be open. */
  open(): Promise<void> {
    this.opening ??= this.load()
    return this.opening
  }

  private async load(): Promise<void> {
    const params = await this.store.loadParams()
    if (params) {
      this.gasLimit = params.gasLimit
      this.genesisHeight = params.genesisHeight
    }
    const head = await this.store.loadHead()
    if (head) {
      const block = await this.store.getBlock(head.height)
      if (!block) throw new Error(`EVM store: head block ${head.height} missing`)
      this.head = { height: head.height, stateRoot: head.stateRoot, block }
      this.store.setHead(block)
    }
    this.vm = (await createConsensusVm(this.opts.db, this.common, this.blockHashes, head?.stateRoot)).vm
    this.log.info('EVM state loaded', { height: head?.height ?? null, stateRoot: head ? bytesToHex(head.stateRoot) : null })
  }

  // ─── Application (ABCI) ─────────────────────────────────────────────────

  async info(): Promise<InfoResponse> {
    await this.open()
    const height = this.head && this.head.height > this.genesisHeight ? this.head.height : 0
    return { data: 'nodectl-evm', version: String(APP_VERSION), appVersion: APP_VERSION, lastBlockHeight: height, lastBlockAppHash: this.head?.stateRoot ?? EMPTY }
  }

  async initChain(req: InitChainRequest): Promise<InitChainResponse> {
    await this.open()
    const genesisHeight = Math.max(req.initialHeight, 1) - 1
    if (this.head) {
      if (this.head.height !== genesisHeight) throw new Error(`InitChain at height ${this.head.height}: the chain is already initialised`)
      return { validators: [], appHash: this.head.stateRoot }
    }
    const maxGas = req.consensusParams.block.maxGas
    this.gasLimit = maxGas > 0n ? maxGas : DEFAULT_BLOCK_GAS_LIMIT
    this.genesisHeight = genesisHeight
    const sm = this.vm!.stateManager as Parameters<typeof applyGenesisAlloc>[0]
    const stateRoot = await applyGenesisAlloc(sm, this.opts.genesis.accounts)
    const block: EvmBlock = {
      number: genesisHeight,
      hash: genesisBlockHash(this.opts.chainId, stateRoot),
      parentHash: ZERO_HASH,
      stateRoot,
      transactionsRoot: EMPTY_TRIE_ROOT,
      receiptsRoot: EMPTY_TRIE_ROOT,
      logsBloom: new Uint8Array(256),
      miner: ZERO_ADDRESS,
      gasLimit: this.gasLimit,
      gasUsed: 0n,
      baseFeePerGas: initialBaseFee(this.opts.genesis.feeMarket),
      timestamp: req.time.seconds,
      size: 0,
      extraData: EMPTY,
      mixHash: ZERO_HASH,
      transactions: [],
    }
    this.store.stageParams({ gasLimit: this.gasLimit, genesisHeight })
    this.store.stageBlock(block, [])
    this.store.stageHead({ height: genesisHeight, stateRoot })
    this.head = { height: genesisHeight, stateRoot, block }
    this.store.setHead(block)
    this.log.info('genesis state created', { accounts: this.opts.genesis.accounts.length, stateRoot: bytesToHex(stateRoot), hash: bytesToHex(block.hash) })
    return { validators: [], appHash: stateRoot }
  }

  async checkTx(raw: Uint8Array, _type: CheckTxType): Promise<CheckTxResponse> {
    let tx: DecodedTx
    try {
      tx = this.txs.decode(raw)
    } catch (err) {
      return checkResult(TxCode.TxDecode, err instanceof Error ? err.message : String(err), 0n)
    }
    if (tx.chainId === undefined && this.opts.allowUnprotectedTxs !== true) {
      return checkResult(TxCode.NotSupported, 'only replay-protected (EIP-155) transactions allowed over RPC', tx.gasLimit)
    }
    if (tx.gasLimit > this.gasLimit) return checkResult(TxCode.OutOfGas, `exceeds block gas limit: tx gas ${tx.gasLimit}, block gas limit ${this.gasLimit}`, tx.gasLimit)
    const intrinsic = tx.tx.getIntrinsicGas()
    if (tx.gasLimit < intrinsic) return checkResult(TxCode.OutOfGas, `intrinsic gas too low: have ${tx.gasLimit}, want ${intrinsic}`, tx.gasLimit)
    const minGasPrice = this.opts.minGasPrice ?? 0n
    if (tx.maxFeePerGas < minGasPrice) {
      return checkResult(TxCode.InsufficientFee, `transaction underpriced: gas fee cap ${tx.maxFeePerGas} below the minimum gas price ${minGasPrice}`, tx.gasLimit)
    }
    return checkResult(TxCode.OK, '', tx.gasLimit)
  }

  /** Keeps the txs in order while their gas limits fit the block; drops undecodable ones. */
  async prepareProposal(req: PrepareProposalRequest): Promise<{ txs: Uint8Array[] }> {
    const kept: Uint8Array[] = []
    let gas = 0n
    let bytes = 0
    for (const raw of req.txs) {
      let tx: DecodedTx
      try {
        tx = this.txs.decode(raw)
      } catch {
        continue
      }
      if (tx.gasLimit > this.gasLimit) continue
      if (gas + tx.gasLimit > this.gasLimit) break
      if (req.maxTxBytes > 0 && bytes + raw.length > req.maxTxBytes) break
      gas += tx.gasLimit
      bytes += raw.length
      kept.push(raw)
    }
    return { txs: kept }
  }

  /** Rejects a proposal with undecodable txs or whose gas limits exceed the block gas limit. */
  async processProposal(req: ProcessProposalRequest): Promise<{ accept: boolean }> {
    let gas = 0n
    for (const raw of req.txs) {
      try {
        gas += this.txs.decode(raw).gasLimit
      } catch {
        return { accept: false }
      }
      if (gas > this.gasLimit) return { accept: false }
    }
    return { accept: true }
  }

  async finalizeBlock(req: FinalizeBlockRequest): Promise<FinalizeBlockResponse> {
    await this.open()
    const head = this.head
    if (!head) throw new Error('FinalizeBlock before InitChain')
    if (req.height !== head.height + 1) throw new Error(`FinalizeBlock height ${req.height}, expected ${head.height + 1}`)
    const started = performance.now()
    const decoded = req.txs.map((raw) => {
      try {
        return this.txs.decode(raw)
      } catch (err) {
        return err instanceof Error ? err : new TxDecodeError(String(err))
      }
    })
    const baseFee = this.nextBaseFee()
    const coinbase = this.feeRecipientOf(req.proposerAddress)
    const env = { height: req.height, timestamp: req.time.seconds, gasLimit: this.gasLimit, baseFee, coinbase }
    const exec = await executeBlock(this.vm!, this.common, env, decoded)
    const block: EvmBlock = {
      number: req.height,
      hash: req.hash,
      parentHash: head.block.hash,
      stateRoot: exec.stateRoot,
      transactionsRoot: exec.transactionsRoot,
      receiptsRoot: exec.receiptsRoot,
      logsBloom: exec.bloom,
      miner: coinbase,
      gasLimit: this.gasLimit,
      gasUsed: exec.gasUsed,
      baseFeePerGas: baseFee,
      timestamp: req.time.seconds,
      size: this.opts.blockSize ? this.opts.blockSize(req) : req.txs.reduce((n, t) => n + t.length, 0),
      extraData: EMPTY,
      mixHash: ZERO_HASH,
      transactions: exec.executed.map((e) => e.tx.hash),
    }
    const records = exec.executed.map((e) => ({
      hash: e.tx.hash,
      cometHash: e.tx.cometHash,
      height: req.height,
      index: e.index,
      blockHash: req.hash,
      raw: e.tx.raw,
      from: e.tx.from,
      status: e.status,
      cumulativeGasUsed: e.cumulativeGasUsed,
      gasUsed: e.gasUsed,
      effectiveGasPrice: e.effectiveGasPrice,
      firstLogIndex: e.firstLogIndex,
      logs: e.logs,
    }))
    this.store.stageBlock(block, records)
    this.store.stageHead({ height: req.height, stateRoot: exec.stateRoot })
    this.pending = { block, records }
    const txResults = exec.outcomes.map((o) => {
      const e = o.executed
      const events = e
        ? createTxEvents({
            hash: e.tx.hash,
            cometHash: e.tx.cometHash,
            txIndex: e.index,
            gasUsed: e.gasUsed,
            from: e.tx.from,
            to: e.tx.tx.to?.bytes,
            value: e.tx.value,
            type: e.tx.type,
            failed: e.vmError,
            logs: toEvmLogs(records[e.index]!),
          })
        : []
      return { code: o.code, data: o.data, log: o.log, info: '', gasWanted: o.gasWanted, gasUsed: o.gasUsed, events, codespace: o.code === TxCode.OK ? '' : TX_CODESPACE }
    })
    this.log.debug('executed block', { height: req.height, txs: req.txs.length, executed: exec.executed.length, gasUsed: exec.gasUsed, ms: Math.round(performance.now() - started) })
    return {
      events: createBlockEvents(exec.bloom, baseFee),
      txResults,
      validatorUpdates: this.opts.validatorUpdates ? this.opts.validatorUpdates(req.height, exec) : [],
      appHash: exec.stateRoot,
    }
  }

  async commit(): Promise<{ retainHeight: number }> {
    const pending = this.pending
    if (!pending) return { retainHeight: 0 }
    this.pending = undefined
    this.head = { height: pending.block.number, stateRoot: pending.block.stateRoot, block: pending.block }
    this.store.setHead(pending.block)
    this.calls.invalidate()
    for (const r of pending.records) this.txs.delete(r.raw)
    if (this.events.listenerCount('block') > 0) {
      const receipts = pending.records.map(toEvmReceipt)
      this.events.emit('block', {
        block: pending.block,
        transactions: pending.records.map(toEvmTx),
        receipts,
        logs: receipts.flatMap((r) => r.logs),
      })
    }
    return { retainHeight: 0 }
  }

  /**
   * Paths `/evm/balance/<0xaddr>`, `/evm/nonce/<0xaddr>` (big-endian unsigned bytes),
   * `/evm/code/<0xaddr>` (raw code), `/evm/storage/<0xaddr>/<0xslot>` (32 bytes); height 0 = latest.
   */
  async query(req: QueryRequest): Promise<QueryResponse> {
    const parts = req.path.split('/').filter((p) => p !== '')
    const fail = (log: string): QueryResponse => ({ code: 1, log, info: '', index: 0n, key: req.data, value: EMPTY, height: req.height, codespace: TX_CODESPACE })
    if (parts[0] !== 'evm' || parts.length < 3) return fail(`unknown query path: ${req.path}`)
    const [, kind, address, slot] = parts as [string, string, string, string | undefined]
    if (!isAddress(address)) return fail(`invalid address: ${address}`)
    const addr = hexToBytes(address)
    try {
      const state = await this.resolveState(req.height > 0 ? req.height : undefined)
      const h = state.height
      let value: Uint8Array
      if (kind === 'balance' && parts.length === 3) value = bigintToBytes((await this.getAccount(addr, h)).balance)
      else if (kind === 'nonce' && parts.length === 3) value = bigintToBytes((await this.getAccount(addr, h)).nonce)
      else if (kind === 'code' && parts.length === 3) value = await this.getCode(addr, h)
      else if (kind === 'storage' && parts.length === 4 && slot !== undefined && /^0x[0-9a-fA-F]{1,64}$/.test(slot)) value = await this.getStorageAt(addr, hexToBytes(slot.slice(2).padStart(64, '0')), h)
      else return fail(`unknown query path: ${req.path}`)
      return { code: 0, log: '', info: '', index: 0n, key: req.data, value, height: h, codespace: '' }
    } catch (err) {
      return fail(err instanceof Error ? err.message : String(err))
    }
  }

  // ─── reads for the eth API ──────────────────────────────────────────────

  /** Height of the newest committed EVM block (the genesis height before the first block). */
  latestHeight(): number {
    return this.head?.height ?? 0
  }

  /** Height of the genesis block of the EVM view (`initialHeight - 1`, normally 0). */
  earliestHeight(): number {
    return this.genesisHeight
  }

  /** The block gas limit (consensus `block.max_gas`, 30,000,000 when unlimited). */
  blockGasLimit(): bigint {
    return this.gasLimit
  }

  /** A committed block by height or by (32-byte) hash. */
  async getBlock(ref: number | Uint8Array): Promise<EvmBlock | undefined> {
    const height = typeof ref === 'number' ? ref : await this.store.getHeightByHash(ref)
    if (height === undefined || !this.isCommitted(height)) return undefined
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

  /** The receipt of a committed transaction by EVM hash. */
  async getReceipt(hash: Uint8Array): Promise<EvmReceipt | undefined> {
    const r = await this.committedTx(hash)
    return r ? toEvmReceipt(r) : undefined
  }

  async getBlockReceipts(height: number): Promise<EvmReceipt[] | undefined> {
    const block = await this.getBlock(height)
    return block ? (await this.store.getBlockTxs(block)).map(toEvmReceipt) : undefined
  }

  /** eth_getLogs over resolved heights; throws LogLimitError beyond `limit` logs. */
  getLogs(query: LogQuery, limit: number): Promise<EvmLog[]> {
    return this.store.getLogs(query, limit)
  }

  /** eth_call at `height` (default latest); throws ExecutionRevertedError / VmExecutionError / CallArgsError. */
  call(args: CallArgs, height?: number): Promise<CallResult> {
    return this.calls.call(args, height)
  }

  estimateGas(args: CallArgs, height?: number): Promise<bigint> {
    return this.calls.estimateGas(args, height)
  }

  getAccount(address: Uint8Array, height?: number): Promise<AccountState> {
    return this.calls.getAccount(address, height)
  }

  async getBalance(address: Uint8Array, height?: number): Promise<bigint> {
    return (await this.calls.getAccount(address, height)).balance
  }

  async getNonce(address: Uint8Array, height?: number): Promise<bigint> {
    return (await this.calls.getAccount(address, height)).nonce
  }

  getCode(address: Uint8Array, height?: number): Promise<Uint8Array> {
    return this.calls.getCode(address, height)
  }

  /** 32-byte storage value at a 32-byte slot. */
  getStorageAt(address: Uint8Array, slot: Uint8Array, height?: number): Promise<Uint8Array> {
    return this.calls.getStorageAt(address, slot, height)
  }

  /** EIP-1186 proof (hex strings, ethereumjs `Proof`) against the height's stateRoot. */
  getProof(address: Uint8Array, slots: Uint8Array[], height?: number): Promise<Proof> {
    return this.calls.getProof(address, slots, height)
  }

  /** Base fee of the next block (EIP-1559 from the head block; the initial base fee after genesis). */
  nextBaseFee(): bigint {
    const head = this.head
    const fm = this.opts.genesis.feeMarket
    if (!head || head.height <= this.genesisHeight) return initialBaseFee(fm)
    return calcBaseFee({ gasLimit: head.block.gasLimit, gasUsed: head.block.gasUsed, baseFee: head.block.baseFeePerGas }, fm)
  }

  /** Decodes a raw transaction through the shared cache (the pool should use this: decoded once). */
  decodeTx(raw: Uint8Array): DecodedTx {
    return this.txs.decode(raw)
  }

  // ─── internals ──────────────────────────────────────────────────────────

  private isCommitted(height: number): boolean {
    return this.head !== undefined && height >= this.genesisHeight && height <= this.head.height
  }

  private async committedTx(hash: Uint8Array): Promise<TxRecord | undefined> {
    const r = await this.store.getTx(hash)
    return r && this.isCommitted(r.height) ? r : undefined
  }

  private feeRecipientOf(proposer: Uint8Array): Uint8Array {
    const custom = this.opts.feeRecipient?.(proposer)
    if (custom) return custom
    const fromGenesis = this.opts.genesis.feeRecipients.get(bytesToUpperHex(proposer))
    if (fromGenesis) return fromGenesis
    return proposer.length === 20 ? proposer : ZERO_ADDRESS
  }

  private async resolveState(height: number | undefined): Promise<StateAt> {
    await this.open()
    const head = this.head
    if (!head) throw new UnknownBlockError()
    const h = height ?? head.height
    const block = h === head.height ? head.block : this.isCommitted(h) ? await this.store.getBlock(h) : undefined
    if (!block) throw new UnknownBlockError()
    return {
      height: h,
      stateRoot: block.stateRoot,
      env: { height: h, timestamp: block.timestamp, gasLimit: block.gasLimit, baseFee: block.baseFeePerGas, coinbase: block.miner },
    }
  }
}

/** The genesis block's hash: keccak256(RLP[utf8(chainId), stateRoot]). */
export function genesisBlockHash(chainId: string, stateRoot: Uint8Array): Uint8Array {
  return keccak256(RLP.encode([utf8ToBytes(chainId), stateRoot]))
}

function checkResult(code: number, log: string, gasWanted: bigint): CheckTxResponse {
  return { code, data: EMPTY, log, gasWanted, gasUsed: 0n, events: [], codespace: code === 0 ? '' : TX_CODESPACE }
}
