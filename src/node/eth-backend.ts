/**
 * The real `EthBackend` (api/eth/backend.ts) over the EVM application and the transaction pool: the
 * adapter geth calls `EthAPIBackend`. Only this file knows both sides.
 */
import type { CallArgs, EthBackend, ExecutionOptions, ExecutionResult, LogQuery, SyncStatus } from '../api/eth/backend.js'
import type { EvmApplication } from '../chain/evm/app.js'
import { ExecutionRevertedError, VmExecutionError } from '../chain/evm/errors.js'
import { calcBaseFee } from '../chain/evm/fee-market.js'
import { parseRawTx } from '../chain/evm/raw-tx.js'
import type { DecodedTx } from '../chain/evm/tx.js'
import type { EvmBlock, EvmTx } from '../chain/evm/views.js'
import { bytesToHex } from '../primitives/hex.js'
import type { TxPool } from '../txpool/tx-pool.js'
import { NODECTL_VERSION } from './version.js'

export interface EthBackendDeps {
  app: EvmApplication
  pool: TxPool
  /** Fee recipient of the blocks this node proposes (eth_coinbase). */
  coinbase: () => Uint8Array | undefined
  syncStatus: () => SyncStatus | undefined
  peerCount: () => number
}

export class NodeEthBackend implements EthBackend {
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
    return this.deps.app.getLogs({ fromBlock: query.fromBlock, toBlock: query.toBlock, addresses: query.addresses, topics: query.topics }, query.limit)
  }

  getBalance(address: Uint8Array, height: number): Promise<bigint> {
    return this.deps.app.getBalance(address, height)
  }

  getNonce(address: Uint8Array, height: number): Promise<bigint> {
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
  async call(args: CallArgs, height: number, _options: ExecutionOptions): Promise<ExecutionResult> {
    try {
      const result = await this.deps.app.call(toAppArgs(args), height)
      return { returnData: result.returnValue, gasUsed: result.gasUsed, reverted: false, vmError: undefined }
    } catch (err) {
      return executionFailure(err)
    }
  }

  async estimateGas(args: CallArgs, height: number, _options: ExecutionOptions): Promise<ExecutionResult> {
    try {
      const gas = await this.deps.app.estimateGas(toAppArgs(args), height)
      return { returnData: new Uint8Array(0), gasUsed: gas, reverted: false, vmError: undefined }
    } catch (err) {
      return executionFailure(err)
    }
  }

  async sendRawTransaction(raw: Uint8Array): Promise<Uint8Array> {
    return (await this.deps.pool.add(raw)).hash
  }

  /**
   * The suggested priority fee: base fee × (elasticity − 1) / denominator (1/8 of the base fee with the
   * default fee market, as Evmos suggests), never below 1 wei so wallets always offer a tip.
   */
  async suggestGasTipCap(): Promise<bigint> {
    const fm = this.deps.app.feeMarket
    const tip = (this.deps.app.nextBaseFee() * (fm.elasticityMultiplier - 1n)) / fm.baseFeeChangeDenominator
    return tip > 0n ? tip : 1n
  }

  calcNextBaseFee(parent: EvmBlock): bigint {
    return calcBaseFee({ gasLimit: parent.gasLimit, gasUsed: parent.gasUsed, baseFee: parent.baseFeePerGas }, this.deps.app.feeMarket)
  }

  syncStatus(): SyncStatus | undefined {
    return this.deps.syncStatus()
  }

  /** Key-store accounts arrive with the key store; none yet. */
  accounts(): Uint8Array[] {
    return []
  }

  coinbase(): Uint8Array | undefined {
    return this.deps.coinbase()
  }

  peerCount(): number {
    return this.deps.peerCount()
  }

  listening(): boolean {
    return true
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
  }
}

function executionFailure(err: unknown): ExecutionResult {
  if (err instanceof ExecutionRevertedError) return { returnData: err.revertData, gasUsed: 0n, reverted: true, vmError: undefined }
  if (err instanceof VmExecutionError) return { returnData: new Uint8Array(0), gasUsed: 0n, reverted: false, vmError: err.vmError }
  throw err
}

/** A pooled transaction as the RPC shows it: no block fields; a 1559 tx shows its fee cap as gasPrice. */
function pendingTx(tx: DecodedTx): EvmTx {
  const f = parseRawTx(tx.raw)
  return {
    hash: tx.hash,
    type: f.type,
    from: tx.from,
    to: f.to,
    nonce: f.nonce,
    gas: f.gas,
    value: f.value,
    input: f.input,
    gasPrice: f.type === 2 ? f.maxFeePerGas! : f.gasPrice,
    maxFeePerGas: f.maxFeePerGas,
    maxPriorityFeePerGas: f.maxPriorityFeePerGas,
    accessList: f.accessList,
    chainId: f.chainId,
    v: f.v,
    r: f.r,
    s: f.s,
    blockNumber: undefined,
    blockHash: undefined,
    transactionIndex: undefined,
  }
}
