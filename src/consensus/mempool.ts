import type { ExecTxResult } from '../abci/types.js'

/** What the consensus engine needs from the transaction pool (CometBFT `mempool.Mempool`). */
export interface Mempool {
  /** Txs for a proposal, in proposal order, within the byte and gas limits (-1 = no gas limit). */
  reapMaxBytesMaxGas(maxBytes: number, maxGas: bigint): Uint8Array[]
  /** Number of transactions a proposal could include now; 0 lets round 0 wait for txs (CometBFT `Size`). */
  size(): number
  /**
   * CometBFT's `Lock`/`Unlock` around Commit: admissions (CheckTx) wait from when it resolves until the
   * returned release. The engine takes it before the application's Commit and releases it after `update`.
   */
  lock(): Promise<() => void>
  /** After a committed block (with the pool locked): removes included txs and re-checks the rest against the new state. */
  update(height: number, txs: Uint8Array[], results: ExecTxResult[]): Promise<void>
  /** Called whenever transactions a proposal could include become available; returns an unsubscribe function. */
  onTxsAvailable(listener: () => void): () => void
}
