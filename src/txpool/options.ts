/**
 * Options of the transaction pool. Limits and defaults follow go-ethereum's legacypool
 * (`core/txpool/legacypool.DefaultConfig`); counts are transaction slots (one slot = up to 32 KB of
 * encoded transaction, as geth's `txSlotSize`).
 */
import { DEFAULT_MAX_TX_BYTES } from '../config/defaults.js'
import type { NodeConfig } from '../config/node-config.js'

/** geth's `txSlotSize`: a transaction takes one pool slot per started 32 KB of encoding. */
export const TX_SLOT_SIZE = 32 * 1024

export interface TxPoolOptions {
  /** Executable (pending) slots for all accounts together. geth GlobalSlots; default 5120 (4096 + 1024). */
  globalSlots: number
  /** Non-executable (queued) slots for all accounts together. geth GlobalQueue; default 1024. */
  globalQueue: number
  /**
   * Executable slots guaranteed to each account: only accounts above it lose transactions when
   * `globalSlots` is exceeded. A minimum, not a cap. geth AccountSlots; default 16.
   */
  accountSlots: number
  /** Non-executable (queued) transactions permitted per account. geth AccountQueue; default 64. */
  accountQueue: number
  /** Price bump in percent a same-nonce replacement needs on both fee cap and tip. Default 10. */
  priceBump: number
  /** Largest accepted encoded transaction in bytes: geth's txMaxSize, 4 × 32 KB = 131072. */
  maxTxSize: number
  /** Smallest accepted tip cap (the gas price of legacy txs) in wei; the node's minimum-gas-prices. Default 0. */
  minGasPrice: bigint
  /** Accept pre-EIP-155 legacy transactions (no chain id in the signature). Default false. */
  allowUnprotectedTxs: boolean
  /** Gas limit of the next block in gas units; larger transactions are rejected. Default 30,000,000. */
  blockGasLimit: bigint
  /** Largest init code of a contract creation in bytes (EIP-3860: 2 × 24576 = 49152). */
  maxInitCodeSize: number
}

export const defaultTxPoolOptions: TxPoolOptions = {
  globalSlots: 5120,
  globalQueue: 1024,
  accountSlots: 16,
  accountQueue: 64,
  priceBump: 10,
  maxTxSize: DEFAULT_MAX_TX_BYTES,
  minGasPrice: 0n,
  allowUnprotectedTxs: false,
  blockGasLimit: 30_000_000n,
  maxInitCodeSize: 49152,
}

/** The pool's options from the resolved node configuration (`[mempool]`, `minimum-gas-prices`, `[json-rpc]`). */
export function getTxPoolOptions(config: Pick<NodeConfig, 'mempool' | 'minGasPrice' | 'jsonRpc'>): TxPoolOptions {
  return {
    ...defaultTxPoolOptions,
    globalSlots: config.mempool.size,
    globalQueue: config.mempool.queueSize,
    accountSlots: config.mempool.accountSlots,
    accountQueue: config.mempool.accountQueue,
    maxTxSize: config.mempool.maxTxBytes,
    priceBump: config.mempool.priceBump,
    minGasPrice: config.minGasPrice,
    allowUnprotectedTxs: config.jsonRpc.allowUnprotectedTxs,
  }
}
