/** The dev pool methods' backend (api/dev/pool.ts) over the node's transaction pool and the EVM view. */
import type { DevPoolBackend } from '../api/dev/pool-backend.js'
import type { EvmApplication } from '../evm/app.js'
import type { TxPool } from '../txpool/tx-pool.js'

export class DevPool implements DevPoolBackend {
  constructor(
    private readonly pool: TxPool,
    private readonly app: EvmApplication,
  ) {}

  dropTransaction(hash: Uint8Array): boolean {
    return this.pool.drop(hash)
  }

  async isMined(hash: Uint8Array): Promise<boolean> {
    return (await this.app.getTransaction(hash)) !== undefined
  }

  dropAllTransactions(): void {
    this.pool.flush()
  }
}
