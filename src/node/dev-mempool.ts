/**
 * The engine's view of a development chain's pool: the transaction pool plus the dev operations
 * queued for a block of their own (a set, an impersonated transaction). They count in `size()` and
 * announce themselves as new transactions do, so a queued set wakes a proposer waiting for txs; the
 * application's PrepareProposal then puts them first in the block (evm/dev/op-queue.ts). Proposals take
 * the pool's transactions up to the gas limit of the next EVM block.
 */
import type { Mempool } from '../consensus/mempool.js'
import type { DevOpQueue } from '../evm/dev/op-queue.js'

export function withDevOps(pool: Mempool, queue: DevOpQueue, nextBlockGasLimit: () => bigint): Mempool {
  return {
    // The EVM block's gas limit, which evm_setBlockGasLimit moves, not the consensus parameters' (set at genesis).
    reapMaxBytesMaxGas: (maxBytes) => pool.reapMaxBytesMaxGas(maxBytes, nextBlockGasLimit()),
    size: () => pool.size() + queue.blockWanted(),
    lock: () => pool.lock(),
    update: (height, txs, results) => pool.update(height, txs, results),
    onTxsAvailable: (listener) => {
      const offPool = pool.onTxsAvailable(listener)
      const offQueue = queue.onAvailable(listener)
      return () => {
        offPool()
        offQueue()
      }
    },
  }
}
