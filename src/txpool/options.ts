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
  /** Largest accepted encoded transaction in bytes, checked before CheckTx on broadcast_tx_*: geth's txMaxSize, 4 × 32 KB = 131072. */
  maxTxSize: number
  /**
   * The node's minimum-gas-prices: the smallest tip cap (legacy: gas price) in wei, which CheckTx
   * enforces at admission; the pool drops pooled transactions below it when it rises. Default 0.
   */
  minGasPrice: bigint
  /** Gas limit of the next block in gas units; larger pooled transactions are dropped at the next update. Default 30,000,000. */
  blockGasLimit: bigint
}

export const defaultTxPoolOptions: TxPoolOptions = {
  globalSlots: 5120,
  globalQueue: 1024,
  accountSlots: 16,
  accountQueue: 64,
  priceBump: 10,
  maxTxSize: DEFAULT_MAX_TX_BYTES,
  minGasPrice: 0n,
  blockGasLimit: 30_000_000n,
}

/** The pool's options from the resolved node configuration (`[mempool]`, `minimum-gas-prices`). */
export function getTxPoolOptions(config: Pick<NodeConfig, 'mempool' | 'minGasPrice'>): TxPoolOptions {
  return {
    ...defaultTxPoolOptions,
    globalSlots: config.mempool.size,
    globalQueue: config.mempool.queueSize,
    accountSlots: config.mempool.accountSlots,
    accountQueue: config.mempool.accountQueue,
    maxTxSize: config.mempool.maxTxBytes,
    priceBump: config.mempool.priceBump,
    minGasPrice: config.minGasPrice,
  }
}
