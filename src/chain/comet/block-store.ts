/**
 * The block store (CometBFT store/store.go) over the node's Database: blocks by height and hash,
 * block metas, the canonical commit of each height (from the next block's last_commit) and the seen
 * commit of the head. Saves are staged into the height's atomic batch (Database.stagePut).
 */
import type { Database } from '../../db/database.js'
import type { Block, BlockID, Commit, Header } from './types.js'

export interface BlockMeta {
  blockId: BlockID
  blockSize: number
  header: Header
  numTxs: number
}

export class BlockStore {
  constructor(private readonly db: Database) {}

  /** Loads base/height from the database. */
  async open(): Promise<void> {
    throw new Error('not implemented')
  }

  /** Lowest stored height (0 when empty). */
  base(): number {
    throw new Error('not implemented')
  }

  /** Highest stored height (0 when empty). */
  height(): number {
    throw new Error('not implemented')
  }

  async loadBlock(height: number): Promise<Block | undefined> {
    throw new Error('not implemented')
  }

  async loadBlockByHash(hash: Uint8Array): Promise<Block | undefined> {
    throw new Error('not implemented')
  }

  async loadBlockMeta(height: number): Promise<BlockMeta | undefined> {
    throw new Error('not implemented')
  }

  async heightByHash(hash: Uint8Array): Promise<number | undefined> {
    throw new Error('not implemented')
  }

  /** The canonical commit for `height` (stored with block height+1 as its last_commit). */
  async loadBlockCommit(height: number): Promise<Commit | undefined> {
    throw new Error('not implemented')
  }

  /** The commit this node saw for `height` (for the head, before the next block exists). */
  async loadSeenCommit(height: number): Promise<Commit | undefined> {
    throw new Error('not implemented')
  }

  /** Stages block, meta, hash index, the block's last_commit as the canonical commit of height-1, and the seen commit. */
  saveBlock(block: Block, blockId: BlockID, blockSize: number, seenCommit: Commit): void {
    throw new Error('not implemented')
  }
}
