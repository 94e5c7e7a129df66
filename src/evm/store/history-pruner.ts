/**
 * Removes the EVM history below the retained window (`min-retain-blocks`): the blocks, transaction
 * records, receipts, logs, log index keys and hash indexes of the heights between the genesis block
 * (always kept) and the new base, in the background and in batches, so a commit never waits for it.
 *
 * Crash safety: the record `meta 'evm/history'` = RLP[base, cursor, end] says that heights below `base`
 * are history no reader is served, and that heights in [cursor, end) may still hold data to delete
 * (`end` is `base` but after a state-sync restore, and a record of two items has end = base). Each batch
 * deletes the heights [cursor, next) and writes [base, next, end] in the same atomic batch, so a SIGKILL
 * leaves either the batch and its cursor or neither; at start-up the deletion resumes from the cursor.
 * The base is raised in memory at once (readers refuse the heights before their data goes) and on disk
 * with the first batch that deletes under it: a crash before it leaves the old base with its data whole.
 *
 * A node restored from a state-sync snapshot of height H has no history below H+1: its base is H+1 from
 * the restore's own batch (`stageRestoredHistory`). The blocks the snapshot carried below it (the 256
 * BLOCKHASH reads, without their transactions) are not served, and stay until a base above them is asked
 * for, as the blocks of any node do: `end` is then raised past them. The genesis block, when carried, is
 * kept and served as on any node.
 */
import { RLP } from '@ethereumjs/rlp'
import type { Database } from '../../db/database.js'
import { metaKey } from '../../db/prefixes.js'
import type { WriteStage } from '../../db/write-stage.js'
import { bytesToBigint } from '../../primitives/hex.js'
import type { Logger } from '../../utils/logger.js'
import type { EvmStore } from './evm-store.js'

/**
 * Heights removed per atomic batch: a height with a full block of transfers stages a few hundred
 * deletions, so a batch stays a few MB and a few tens of ms of work between two turns of the event loop.
 */
export const PRUNE_BATCH_HEIGHTS = 100
const RECORD_KEY = metaKey('evm/history')

/**
 * Stages, in a state-sync restore's final batch, the history record of a node restored at `height`
 * whose lowest block is `firstBlock`: served from `height + 1`, nothing to delete yet.
 */
export function stageRestoredHistory(stage: WriteStage, height: number, firstBlock: number, genesisHeight: number): void {
  const cursor = Math.max(firstBlock, genesisHeight + 1)
  stage.put(RECORD_KEY, RLP.encode([height + 1, cursor, cursor]))
}

export class HistoryPruner {
  /** Lowest height readers are served (the genesis block aside); 0 before anything is pruned. */
  private baseHeight = 0
  /** Lowest height whose data may still be on disk; undefined before anything was pruned or restored. */
  private cursor: number | undefined
  /** Heights below it are deleted (from the cursor up); the base, but after a restore. */
  private end = 0
  private running: Promise<void> | undefined
  private closed = false
  private readonly stage: WriteStage

  constructor(
    private readonly db: Database,
    private readonly store: EvmStore,
    private readonly log: Logger,
  ) {
    this.stage = db.createStage()
  }

  /** Loads the record and resumes a deletion a crash interrupted. */
  async open(): Promise<void> {
    const raw = await this.db.get(RECORD_KEY)
    if (!raw) return
    const [base, cursor, end] = RLP.decode(raw) as Uint8Array[]
    this.baseHeight = Number(bytesToBigint(base!))
    this.cursor = Number(bytesToBigint(cursor!))
    this.end = end ? Number(bytesToBigint(end)) : this.baseHeight
    this.kick()
  }

  /** Lowest height whose history is served (0: nothing was pruned). */
  base(): number {
    return this.baseHeight
  }

  /**
   * Makes `base` the lowest height served (if it is above the current one) and deletes what lies below
   * it (above `genesisHeight`) in the background. A base at or below what is deleted changes nothing.
   */
  pruneBelow(base: number, genesisHeight: number): void {
    if (base <= this.end || base <= genesisHeight + 1) return
    this.cursor ??= genesisHeight + 1
    this.end = base
    if (base > this.baseHeight) {
      this.baseHeight = base
      this.store.forgetBelow(base)
    }
    this.kick()
  }

  /** Resolves once no deletion runs (after `close`, none starts again). */
  async close(): Promise<void> {
    this.closed = true
    await this.running
  }

  /** Resolves once the history below what was asked for is deleted (tests, measurements). */
  async drained(): Promise<void> {
    while (this.running !== undefined) await this.running
  }

  private kick(): void {
    if (this.running || this.closed || this.cursor === undefined || this.cursor >= this.end) return
    this.running = this.deleteBelowBase(this.cursor)
      .catch((err: unknown) => this.log.error('history pruning failed', { err }))
      .finally(() => {
        this.running = undefined
      })
  }

  private async deleteBelowBase(from: number): Promise<void> {
    let cursor = from
    while (!this.closed && cursor < this.end) {
      const [base, end] = [this.baseHeight, this.end]
      const next = Math.min(cursor + PRUNE_BATCH_HEIGHTS, end)
      for (let h = cursor; h < next; h++) await this.store.stageRemoval(this.stage, h)
      this.stage.put(RECORD_KEY, RLP.encode([base, next, end]))
      await this.stage.write()
      cursor = this.cursor = next
      // Blocks keep coming while history goes: each batch gives the loop back.
      await new Promise((resolve) => setImmediate(resolve))
    }
    if (cursor > from) this.log.info('pruned EVM history', { from, base: cursor })
  }
}
