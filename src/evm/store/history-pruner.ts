/**
 * Removes the EVM history below the retained window (`min-retain-blocks`): the blocks, transaction
 * records, receipts, logs, log index keys and hash indexes of the heights between the genesis block
 * (always kept) and the new base, in the background and in batches, so a commit never waits for it.
 *
 * Crash safety: the record `meta 'evm/history'` = RLP[base, cursor] says that heights below `base` are
 * history no reader is served, and that heights in [cursor, base) may still hold data to delete. Each
 * batch deletes the heights [cursor, next) and writes [base, next] in the same atomic batch, so a SIGKILL
 * leaves either the batch and its cursor or neither; at start-up the deletion resumes from the cursor.
 * The base is raised in memory at once (readers refuse the heights before their data goes) and on disk
 * with the first batch that deletes under it: a crash before it leaves the old base with its data whole.
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

export class HistoryPruner {
  /** Lowest height readers are served (the genesis block aside); 0 before anything is pruned. */
  private baseHeight = 0
  /** Lowest height whose data may still be on disk. */
  private cursor = 0
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
    const [base, cursor] = RLP.decode(raw) as Uint8Array[]
    this.baseHeight = Number(bytesToBigint(base!))
    this.cursor = Number(bytesToBigint(cursor!))
    this.kick()
  }

  /** Lowest height whose history is served (0: nothing was pruned). */
  base(): number {
    return this.baseHeight
  }

  /**
   * Makes `base` the lowest height served and deletes what lies below it (above `genesisHeight`) in the
   * background. A base at or below the current one changes nothing.
   */
  pruneBelow(base: number, genesisHeight: number): void {
    if (base <= this.baseHeight || base <= genesisHeight + 1) return
    if (this.cursor === 0) this.cursor = genesisHeight + 1
    this.baseHeight = base
    this.store.forgetBelow(base)
    this.kick()
  }

  /** Resolves once no deletion runs (after `close`, none starts again). */
  async close(): Promise<void> {
    this.closed = true
    await this.running
  }

  /** Resolves once the history below the current base is deleted (tests, measurements). */
  async drained(): Promise<void> {
    while (this.running !== undefined) await this.running
  }

  private kick(): void {
    if (this.running || this.closed || this.cursor >= this.baseHeight) return
    this.running = this.deleteBelowBase()
      .catch((err: unknown) => this.log.error('history pruning failed', { err }))
      .finally(() => {
        this.running = undefined
      })
  }

  private async deleteBelowBase(): Promise<void> {
    const started = this.cursor
    while (!this.closed && this.cursor < this.baseHeight) {
      const base = this.baseHeight
      const next = Math.min(this.cursor + PRUNE_BATCH_HEIGHTS, base)
      for (let h = this.cursor; h < next; h++) await this.store.stageRemoval(this.stage, h)
      this.stage.put(RECORD_KEY, RLP.encode([base, next]))
      await this.stage.write()
      this.cursor = next
      // Blocks keep coming while history goes: each batch gives the loop back.
      await new Promise((resolve) => setImmediate(resolve))
    }
    if (this.cursor > started) this.log.info('pruned EVM history', { from: started, base: this.cursor })
  }
}
