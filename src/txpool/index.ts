/** The transaction pool: geth legacypool semantics behind the consensus engine's `Mempool` and the RPC. */
export { TxPool, type AdmittedTx, type TxPoolDeps, type TxPoolEvents, type TxPoolState, type TxPoolStatus } from './tx-pool.js'
export { TX_SLOT_SIZE, defaultTxPoolOptions, getTxPoolOptions, type TxPoolOptions } from './options.js'
export { TxPoolError, TxPoolRejection, TxTooLargeError, txPoolErrors } from './tx-pool-error.js'
export { checkTxFee, checkTxSize, computeTxCost } from './validate-tx.js'
export { protoSizeOfTx, reapByPriceAndNonce, type ReapLimits } from './reap.js'
export type { TxPoolMetrics } from './pool-metrics.js'
