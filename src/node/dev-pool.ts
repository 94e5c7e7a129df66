/** The dev pool methods' backend (api/dev/pool.ts) over the node's transaction pool. */
import type { DevPoolBackend } from '../api/dev/pool-backend.js'
import type { TxPool } from '../txpool/tx-pool.js'

export class DevPool implements DevPoolBackend {
  constructor(private readonly pool: TxPool) {}

  dropTransaction(hash: Uint8Array): boolean {
    return this.pool.drop(hash)
  }

  dropAllTransactions(): void {
    this.pool.flush()
  }
}
