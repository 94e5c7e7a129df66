/**
 * Prunes the engine's stores below the application's retain height (CometBFT `BlockExecutor.pruneBlocks`
 * after Commit): the blocks and commits, the FinalizeBlock responses, validator sets and params, and the
 * kv index entries of the pruned heights. It runs in the background, in batches: each batch is one
 * atomic write holding its deletions and the new base, so a crash leaves a consistent base, and the event
 * loop runs blocks and RPC between two batches.
 *
 * As CometBFT, it never prunes the head, nor heights evidence may still name (the state's
 * `evidence.max_age_num_blocks`): an application that returns a higher retain height keeps those.
 */
import type { Database } from '../db/database.js'
import type { WriteStage } from '../db/write-stage.js'
import type { BlockStore } from '../comet/block-store.js'
import type { Logger } from '../utils/logger.js'
import type { BlockIndexHook } from './block-index-hook.js'
import type { ChainState } from './chain-state.js'
import type { StateStore } from './state-store.js'

/** Heights pruned per atomic batch (CometBFT prunes in batches of 1000 keys' worth of heights too). */
export const PRUNE_BATCH_HEIGHTS = 100

export interface BlockPrunerOptions {
  db: Database
  blockStore: BlockStore
  stateStore: StateStore
  indexer?: BlockIndexHook
  logger: Logger
}

export class BlockPruner {
  private target = 0
  private running: Promise<void> | undefined
  private closed = false
  private readonly stage: WriteStage

  constructor(private readonly opts: BlockPrunerOptions) {
    this.stage = opts.db.createStage()
  }

  /**
   * Prunes below `retainHeight` (an application's Commit answer; 0 = keep everything), bounded by what
   * `state` (the chain state after the committed height) still needs.
   */
  prune(retainHeight: number, state: ChainState): void {
    if (retainHeight <= 0) return
    const evidenceFloor = state.lastBlockHeight - Number(state.consensusParams.evidence.maxAgeNumBlocks)
    const target = Math.min(retainHeight, evidenceFloor, state.lastBlockHeight)
    if (target <= this.target) return
    this.target = target
    if (this.running || this.closed) return
    this.running = this.pruneToTarget()
      .catch((err: unknown) => this.opts.logger.error('block pruning failed', { err }))
      .finally(() => {
        this.running = undefined
      })
  }

  /** Resolves once no batch runs; none starts afterwards. */
  async close(): Promise<void> {
    this.closed = true
    await this.running
  }

  /** Resolves once the stores are pruned to the last retain height given (tests, measurements). */
  async drained(): Promise<void> {
    while (this.running !== undefined) await this.running
  }

  private async pruneToTarget(): Promise<void> {
    const { blockStore, stateStore, indexer, logger } = this.opts
    const from = blockStore.base()
    while (!this.closed && blockStore.base() < this.target) {
      const base = blockStore.base()
      const to = Math.min(this.target, base + PRUNE_BATCH_HEIGHTS)
      // Each height's data is read before its removal is staged: reads see the stage first.
      for (let h = base; h < to; h++) {
        if (indexer) {
          const [block, response] = await Promise.all([blockStore.loadBlock(h), stateStore.loadFinalizeBlockResponse(h)])
          if (block && response) await indexer.stagePruning(this.stage, block, response)
        }
        await stateStore.stagePrune(this.stage, h)
      }
      const next = await blockStore.stagePrune(this.stage, to, PRUNE_BATCH_HEIGHTS)
      await this.stage.write()
      blockStore.pruned(next)
      if (next <= base) break
      await new Promise((resolve) => setImmediate(resolve))
    }
    if (blockStore.base() > from) logger.info('pruned blocks', { from, base: blockStore.base() })
  }
}
