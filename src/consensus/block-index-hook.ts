/** What the engine asks of an event indexer (the kv indexer of `tx_search` / `block_search`). */
import type { FinalizeBlockResponse } from '../abci/application.js'
import type { Block } from '../comet/types.js'
import type { WriteStage } from '../db/write-stage.js'

/**
 * Stages index entries of a height into the engine's stage (the kv event indexer): called after
 * FinalizeBlock, before the stage holding the block and its response is written, so the index is
 * written with them or not at all. It must only stage, never write or throw for the application's data;
 * it may hand the event loop over while it stages a large block (the executor gives it a stage no read
 * looks at and moves what it staged into its own at once).
 */
export interface BlockIndexHook {
  stageBlock(stage: WriteStage, block: Block, response: FinalizeBlockResponse): void | Promise<void>
  /** Stages the removal of what `stageBlock` staged for the block (a dev chain's revert). */
  stageRemoval(stage: WriteStage, block: Block, response: FinalizeBlockResponse): void | Promise<void>
  /** Stages the removal of a pruned block's entries (what `tx` still needs to say it was pruned may stay). */
  stagePruning(stage: WriteStage, block: Block, response: FinalizeBlockResponse): void | Promise<void>
}
