/**
 * The node's one event map (name → payload) and its emitter, which the consensus engine emits into and
 * every surface adapts: eth_subscribe and the polled filters listen to `EvmBlock`, the consensus RPC's
 * `subscribe` to the consensus events, the start command to `syncProgress`.
 *
 * A height is published only once both of its writes are durable (the engine's and the application's,
 * block-executor.ts), and always in this order: `EvmBlock` (so newHeads, then logs subscriptions and
 * filters in the order they subscribed), `NewBlock`, `NewBlockHeader`, `NewBlockEvents`, `NewEvidence`
 * per evidence, `Tx` per transaction in block order, `ValidatorSetUpdates` when the set changes.
 */
import type { SyncProgress } from '../consensus/block-sync.js'
import type { ConsensusEvents } from '../consensus/events.js'
import type { CommittedEvmBlock, EvmApplication } from '../evm/app.js'
import type { EvmLog } from '../evm/store/views.js'
import type { TypedEmitter } from '../utils/events.js'

export type NodeEventMap = ConsensusEvents & {
  /** A committed height's EVM block with its transactions, receipts and logs: the first event of a height. */
  EvmBlock: CommittedEvmBlock
  /** After each block applied by block sync. */
  syncProgress: SyncProgress
  /** After each snapshot chunk state sync applied. */
  stateSyncProgress: { height: number; applied: number; total: number }
  /** A dev chain went back to this height (evm_revert, anvil_reset): the blocks above it are gone. */
  chainRewound: { height: number }
  /**
   * Just before `chainRewound`: the logs of the blocks it removes, in chain order, marked `removed` (read
   * only while someone listens).
   */
  logsRemoved: { logs: EvmLog[] }
}

export type NodeEvents = TypedEmitter<NodeEventMap>

/**
 * Publishes the application's view of committed `height` (the engine's `onCommitted`, which keeps a
 * listener's failure away from consensus); the block is built only when someone listens.
 */
export function publishEvmBlock(events: NodeEvents, app: EvmApplication, height: number): void {
  if (events.listenerCount('EvmBlock') === 0) return
  const committed = app.committedBlock()
  if (committed?.block.number === height) events.emit('EvmBlock', committed)
}
