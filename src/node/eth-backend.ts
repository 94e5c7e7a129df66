/**
 * The real `EthBackend` (api/eth/backend.ts) over the EVM application and the transaction pool: the
 * adapter geth calls `EthAPIBackend`. Only this file knows both sides.
 */
import type {
  AccessListResult,
  AccountProof,
  CallArgs,
  EthBackend,
  ExecutionOptions,
  HistoryRetention,
  LogQuery,
  PoolContent,
  SyncStatus,
} from '../api/eth/backend.js'
import type { EthBlockEvent, EthEvents, EthPendingTxEvent } from '../api/eth/events.js'
import type { EvmApplication } from '../evm/app.js'
import type { SimulateRequest, SimulatedBlock } from '../evm/calls/simulate.js'
import { calcBaseFee } from '../evm/fee-market.js'
import { describeForkConfig, type ForkConfig } from '../evm/fork-config.js'
import { createPendingEvmBlock } from '../evm/pending-block.js'
import { toPendingEvmTx } from '../evm/store/evm-records.js'
import type { DecodedTx } from '../evm/txs/tx.js'
import type { SyncStatus as EngineSyncStatus } from '../consensus/consensus-engine.js'
import type { EvmBlock, EvmLog, EvmTx } from '../evm/store/views.js'
import { bytesToHex, hexToBytes } from '../primitives/hex.js'
import type { TxPool } from '../txpool/tx-pool.js'
import type { MinerSettings } from './miner-settings.js'
import type { NodeEvents } from './node-events.js'
import { NODECTL_VERSION } from './version.js'
import type { Awaitable } from '../utils/awaitable.js'

export interface EthBackendDeps {
  app: EvmApplication
  /** The node's event emitter: committed EVM blocks come from its `EvmBlock`. */
  events: Pick<NodeEvents, 'on'>
  pool: TxPool
  /** Fee recipient of the blocks this node proposes (eth_coinbase). */
  coinbase: () => Uint8Array | undefined
  /** The engine's block-sync status. */
  syncStatus: () => EngineSyncStatus
  peerCount: () => number
  /** Persistence of miner_setGasPrice and miner_setEtherbase. */
  miner: Pick<MinerSettings, 'saveMinGasPrice' | 'setEtherbase'>
  /** `[json-rpc] txfee-cap` in ether, checked on eth_sendRawTransaction (0 = none). */
  txFeeCap: number
  /**
   * Where eth_sendRawTransaction hands a transaction when not to the pool (under CometBFT: its mempool,
   * whose CheckTx admits it to the pool); resolves with its hash or throws the pool's `TxPoolError`.
   */
  submitTx?: (raw: Uint8Array) => Promise<Uint8Array>
}

/** eth_syncing's view of block sync: undefined (`false`) unless catching up, else geth's three heights. */
export function evmSyncStatus({ catchingUp, progress }: EngineSyncStatus): SyncStatus | undefined {
  if (!catchingUp || !progress) return undefined
  return { startingBlock: progress.startHeight, currentBlock: progress.height, highestBlock: progress.target }
}

export class NodeEthBackend implements EthBackend, EthEvents {
  readonly chainId: bigint
  readonly version = NODECTL_VERSION

  constructor(private readonly deps: EthBackendDeps) {
    this.chainId = deps.app.evmChainId
  }

  latestHeight(): number {
    return this.deps.app.latestHeight()
  }

  getBlockByNumber(height: number): Promise<EvmBlock | undefined> {
    return this.deps.app.getBlock(height)
  }

  getBlockByHash(hash: Uint8Array): Promise<EvmBlock | undefined> {
    return this.deps.app.getBlock(hash)
  }

  async getBlockTransactions(block: EvmBlock): Promise<EvmTx[]> {
    return (await this.deps.app.getBlockTransactions(block.number)) ?? []
  }

  async getBlockReceipts(block: EvmBlock) {
    return (await this.deps.app.getBlockReceipts(block.number)) ?? []
  }

  async getTransaction(hash: Uint8Array): Promise<EvmTx | undefined> {
    const committed = await this.deps.app.getTransaction(hash)
    if (committed) return committed
    const pending = this.deps.pool.get(hash)
    return pending ? pendingTx(pending) : undefined
  }

  getReceipt(hash: Uint8Array) {
    return this.deps.app.getReceipt(hash)
  }

  getLogs(query: LogQuery) {
    return this.deps.app.getLogs(
      { fromBlock: query.fromBlock, toBlock: query.toBlock, addresses: query.addresses, topics: query.topics },
      query.limit,
    )
  }

  getBalance(address: Uint8Array, height: number): Awaitable<bigint> {
    return this.deps.app.getBalance(address, height)
  }

  getNonce(address: Uint8Array, height: number): Awaitable<bigint> {
    return this.deps.app.getNonce(address, height)
  }

  getCode(address: Uint8Array, height: number): Promise<Uint8Array> {
    return this.deps.app.getCode(address, height)
  }

  getStorageAt(address: Uint8Array, slot: Uint8Array, height: number): Promise<Uint8Array> {
    return this.deps.app.getStorageAt(address, slot, height)
  }

  getPendingNonce(address: Uint8Array): Promise<bigint> {
    return this.deps.pool.pendingNonce(bytesToHex(address))
  }

  /** gas-cap and evm-timeout are applied by the application's call service (configured from the same keys). */
  async call(args: CallArgs, height: number, _options: ExecutionOptions): Promise<Uint8Array> {
    return (await this.deps.app.call(toAppArgs(args), height)).returnValue
  }

  estimateGas(args: CallArgs, height: number, _options: ExecutionOptions): Promise<bigint> {
    return this.deps.app.estimateGas(toAppArgs(args), height)
  }

  /** gas-cap and evm-timeout come from the application's call options (configured from the same keys). */
  simulate(request: SimulateRequest, height: number, _options: ExecutionOptions): Promise<SimulatedBlock[]> {
    return this.deps.app.simulate(request, height)
  }

  async sendRawTransaction(raw: Uint8Array): Promise<Uint8Array> {
    if (this.deps.submitTx) return this.deps.submitTx(raw)
    return (await this.deps.pool.add(raw, { txFeeCap: this.deps.txFeeCap })).hash
  }

  async suggestGasTipCap(): Promise<bigint> {
    return suggestGasTipCap(this.deps.app)
  }

  calcNextBaseFee(parent: EvmBlock): bigint {
    return calcBaseFee({ gasLimit: parent.gasLimit, gasUsed: parent.gasUsed, baseFee: parent.baseFeePerGas }, this.deps.app.feeMarket)
  }

  /** The rules of the application's Common, on the chain of its EVM genesis block. */
  async forkConfig(): Promise<ForkConfig> {
    const app = this.deps.app
    const genesis = await app.getBlock(app.earliestHeight())
    if (!genesis) throw new Error('genesis block missing')
    return describeForkConfig(app.common, genesis.hash)
  }

  /**
   * Where history begins: blocks from the history base (the EVM genesis, or once history is pruned by
   * `min-retain-blocks` the lowest kept block); state from the later of that base and the state pruning
   * window's start (a pruned block's state root cannot be named).
   */
  historyRetention(): HistoryRetention {
    const app = this.deps.app
    const oldestBlock = app.historyBase()
    const retentionBlocks = app.stateRetentionBlocks()
    const state = {
      oldestBlock: Math.max(oldestBlock, app.lowestStateHeight()),
      ...(retentionBlocks !== undefined ? { retentionBlocks } : {}),
    }
    return { state, blocks: { oldestBlock } }
  }

  syncStatus(): SyncStatus | undefined {
    return evmSyncStatus(this.deps.syncStatus())
  }

  coinbase(): Uint8Array | undefined {
    return this.deps.coinbase()
  }

  /** ethereumjs' proof (hex strings) as records; an account without storage gets value 0, empty proofs. */
  async getProof(address: Uint8Array, slots: Uint8Array[], height: number): Promise<AccountProof> {
    const p = await this.deps.app.getProof(address, slots, height)
    return {
      address,
      balance: BigInt(p.balance),
      nonce: BigInt(p.nonce),
      codeHash: hexToBytes(p.codeHash),
      storageHash: hexToBytes(p.storageHash),
      accountProof: p.accountProof.map((node) => hexToBytes(node)),
      storageProof: slots.map((key, i) => {
        const s = p.storageProof[i]
        return s ? { key, value: BigInt(s.value), proof: s.proof.map((node) => hexToBytes(node)) } : { key, value: 0n, proof: [] }
      }),
    }
  }

  /** gas-cap and evm-timeout come from the application's call options (configured from the same keys). */
  createAccessList(args: CallArgs, height: number, _options: ExecutionOptions): Promise<AccessListResult> {
    return this.deps.app.createAccessList(toAppArgs(args), height)
  }

  /** The pool's proposal order within the block gas limit on top of the head block (pending-block.ts). */
  async getPendingBlock(): Promise<{ block: EvmBlock; transactions: EvmTx[] }> {
    const app = this.deps.app
    // The head block, served or not (a restored node's is below its history base until the next block).
    const parent = app.latestBlock()
    if (!parent) throw new Error('head block missing')
    const gasLimit = app.nextBlockGasLimit()
    const txs = this.deps.pool.reapMaxBytesMaxGas(-1, gasLimit).map((raw) => app.decodeTx(raw))
    const coinbase = this.coinbase() ?? new Uint8Array(20)
    const block = createPendingEvmBlock({ parent, txs, gasLimit, baseFee: app.nextBaseFee(), now: Math.floor(Date.now() / 1000), coinbase })
    return { block, transactions: txs.map(pendingTx) }
  }

  txPoolContent(): PoolContent {
    const flatten = (bySender: Map<string, DecodedTx[]>): EvmTx[] => [...bySender.values()].flatMap((txs) => txs.map(pendingTx))
    return { pending: flatten(this.deps.pool.pending()), queued: flatten(this.deps.pool.queued()) }
  }

  txPoolContentFrom(address: Uint8Array): PoolContent {
    const content = this.deps.pool.contentFrom(bytesToHex(address))
    return { pending: content.pending.map(pendingTx), queued: content.queued.map(pendingTx) }
  }

  txPoolStatus(): { pending: number; queued: number } {
    return this.deps.pool.status()
  }

  /** Applies the price at once (pool admission and CheckTx), then persists it where allowed. */
  async setMinGasPrice(wei: bigint): Promise<void> {
    this.deps.pool.setMinGasPrice(wei)
    this.deps.app.setMinGasPrice(wei)
    await this.deps.miner.saveMinGasPrice(wei)
  }

  setEtherbase(address: Uint8Array): Promise<void> {
    return this.deps.miner.setEtherbase(address)
  }

  peerCount(): number {
    return this.deps.peerCount()
  }

  listening(): boolean {
    return true
  }

  /** Committed blocks: the node's `EvmBlock` event, published once the height is durable (node-events.ts). */
  onBlock(listener: (event: EthBlockEvent) => void): () => void {
    return this.deps.events.on('EvmBlock', listener)
  }

  onRewind(listener: (height: number) => void): () => void {
    return this.deps.events.on('chainRewound', (e) => listener(e.height))
  }

  onRemovedLogs(listener: (logs: EvmLog[]) => void): () => void {
    return this.deps.events.on('logsRemoved', (e) => listener(e.logs))
  }

  /** Transactions entering the pool (pending or queued), decoded to the RPC view only when asked. */
  onPendingTransaction(listener: (event: EthPendingTxEvent) => void): () => void {
    return this.deps.pool.on('newPendingTx', (tx) => listener({ hash: tx.hash, transaction: () => pendingTx(tx) }))
  }
}

function toAppArgs(args: CallArgs) {
  return {
    from: args.from,
    to: args.to,
    gas: args.gas,
    gasPrice: args.gasPrice,
    maxFeePerGas: args.maxFeePerGas,
    maxPriorityFeePerGas: args.maxPriorityFeePerGas,
    value: args.value,
    input: args.input,
    nonce: args.nonce,
    accessList: args.accessList,
    authorizationList: args.authorizationList,
  }
}

/** A pooled transaction as the RPC shows it. */
function pendingTx(tx: DecodedTx): EvmTx {
  return toPendingEvmTx(tx.raw, tx.hash, tx.from)
}

/**
 * The suggested priority fee: base fee × (elasticity − 1) / denominator (1/8 of the base fee with the
 * default fee market, as Evmos suggests), never below 1 wei so wallets always offer a tip.
 */
export function suggestGasTipCap(app: Pick<EvmApplication, 'feeMarket' | 'nextBaseFee'>): bigint {
  const fm = app.feeMarket
  const tip = (app.nextBaseFee() * (fm.elasticityMultiplier - 1n)) / fm.baseFeeChangeDenominator
  return tip > 0n ? tip : 1n
}
