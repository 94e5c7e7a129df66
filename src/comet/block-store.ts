/**
 * The block store (CometBFT store/store.go) over the node's Database: blocks by height and hash,
 * block metas, the canonical commit of each height (from the next block's last_commit) and the seen
 * commit of the head. A save is staged into the caller's stage (the consensus engine's), which the caller
 * writes; reads see it at once.
 *
 * Keys: block `Prefix.block ‖ height`, meta `Prefix.block ‖ height ‖ "m"`, canonical commit
 * `Prefix.commit ‖ height`, seen commit `Prefix.seenCommit ‖ height`, `Prefix.blockHash ‖ hash` → height,
 * `meta:blockStore` → {base, height} (CometBFT's `BlockStoreState`), and `meta:blockStorePruned` → the
 * base pruning left (8 bytes). The pruner writes its base under a key of its own, with the deletions, so
 * a height's write (which writes `BlockStoreState` with the base it knew) never moves it back.
 */
import type { Database } from '../db/database.js'
import type { WriteStage } from '../db/write-stage.js'
import { heightKey, metaKey, Prefix, prefixedKey } from '../db/prefixes.js'
import { bytesToUpperHex } from '../primitives/hex.js'
import {
  decodeBlock,
  decodeBlockId,
  decodeBlockTx,
  decodeCommit,
  decodeHeader,
  encodeBlock,
  encodeBlockId,
  encodeCommit,
  encodeHeader,
} from './encoding.js'
import { ProtoReader, ProtoWriter } from './proto.js'
import type { Block, BlockID, Commit, Header } from './types.js'

/** `types.BlockMeta`: what RPC `blockchain`/`header` need without loading the whole block. */
export interface BlockMeta {
  blockId: BlockID
  blockSize: number
  header: Header
  numTxs: number
}

const META_SUFFIX = new TextEncoder().encode('m')
const STATE_KEY = metaKey('blockStore')
const PRUNED_KEY = metaKey('blockStorePruned')

/** Blocks and commits of the heights [base, height], staged into the caller's stage. */
export class BlockStore {
  private baseHeight = 0
  private headHeight = 0
  /** False while the base is a state-synced height, which has its commit but no block. */
  private baseHasBlock = true

  constructor(private readonly db: Database) {}

  /**
   * Loads base/height from the database. Call it again after the caller's stage was discarded to forget
   * a staged but abandoned block.
   */
  async open(): Promise<void> {
    const bytes = await this.db.get(STATE_KEY)
    const state = bytes ? decodeStoreState(bytes) : { base: 0, height: 0 }
    const pruned = await this.db.get(PRUNED_KEY)
    this.baseHeight = pruned?.length === 8 ? Math.max(state.base, readHeight(pruned)) : state.base
    this.headHeight = state.height
    this.baseHasBlock = this.baseHeight === 0 || (await this.db.get(heightKey(Prefix.block, this.baseHeight, META_SUFFIX))) !== undefined
  }

  /** Lowest stored height (0 when empty). */
  base(): number {
    return this.baseHeight
  }

  /** Highest stored height (0 when empty). */
  height(): number {
    return this.headHeight
  }

  async loadBlock(height: number): Promise<Block | undefined> {
    const bytes = await this.loadBlockBytes(height)
    return bytes && decodeBlock(bytes)
  }

  /** The `index`-th tx of block `height`, decoded alone (tx lookups and searches). */
  async loadBlockTx(height: number, index: number): Promise<Uint8Array | undefined> {
    const bytes = await this.loadBlockBytes(height)
    return bytes && decodeBlockTx(bytes, index)
  }

  /** The block's protobuf bytes, as hashed into its part set (for serving block sync). */
  async loadBlockBytes(height: number): Promise<Uint8Array | undefined> {
    if (!this.inRange(height)) return undefined
    return this.db.get(heightKey(Prefix.block, height))
  }

  async loadBlockByHash(hash: Uint8Array): Promise<Block | undefined> {
    const height = await this.heightByHash(hash)
    return height === undefined ? undefined : this.loadBlock(height)
  }

  async loadBlockMeta(height: number): Promise<BlockMeta | undefined> {
    if (!this.inRange(height)) return undefined
    const bytes = await this.db.get(heightKey(Prefix.block, height, META_SUFFIX))
    return bytes && decodeBlockMeta(bytes)
  }

  async heightByHash(hash: Uint8Array): Promise<number | undefined> {
    if (hash.length === 0) return undefined
    const bytes = await this.db.get(prefixedKey(Prefix.blockHash, hash))
    if (bytes?.length !== 8) return undefined
    const height = readHeight(bytes)
    return this.inRange(height) ? height : undefined
  }

  /** The canonical commit for `height` (stored with block height+1 as its last_commit). */
  async loadBlockCommit(height: number): Promise<Commit | undefined> {
    if (!this.inRange(height)) return undefined
    const bytes = await this.db.get(heightKey(Prefix.commit, height))
    return bytes && decodeCommit(bytes)
  }

  /** The commit this node saw for `height` (for the head, before the next block exists). */
  async loadSeenCommit(height: number): Promise<Commit | undefined> {
    if (!this.inRange(height)) return undefined
    const bytes = await this.db.get(heightKey(Prefix.seenCommit, height))
    return bytes && decodeCommit(bytes)
  }

  /** Stages block, meta, hash index, the block's last_commit as the canonical commit of height-1, and the seen commit. */
  saveBlock(stage: WriteStage, block: Block, blockId: BlockID, blockSize: number, seenCommit: Commit): void {
    const height = block.header.height
    if (!Number.isSafeInteger(height) || height <= 0) throw new Error(`cannot save block with height ${height}`)
    if (this.headHeight > 0 && height !== this.headHeight + 1) {
      throw new Error(`BlockStore can only save contiguous blocks. Wanted ${this.headHeight + 1}, got ${height}`)
    }
    if (seenCommit.height !== height) throw new Error(`seen commit height ${seenCommit.height} does not match block height ${height}`)
    // After state sync the first block saved is the lowest one there is (CometBFT's base then).
    const base = this.baseHeight === 0 || !this.baseHasBlock ? height : this.baseHeight
    const meta: BlockMeta = { blockId, blockSize, header: block.header, numTxs: block.txs.length }
    stage.put(heightKey(Prefix.block, height), encodeBlock(block))
    stage.put(heightKey(Prefix.block, height, META_SUFFIX), encodeBlockMeta(meta))
    stage.put(prefixedKey(Prefix.blockHash, blockId.hash), heightBytes(height))
    // The initial height carries the empty commit (height 0): there is no earlier block to attach it to.
    if (block.lastCommit.height > 0) stage.put(heightKey(Prefix.commit, height - 1), encodeCommit(block.lastCommit))
    stage.put(heightKey(Prefix.seenCommit, height), encodeCommit(seenCommit))
    stage.put(STATE_KEY, encodeStoreState({ base, height }))
    this.baseHeight = base
    this.headHeight = height
    this.baseHasBlock = true
  }

  /**
   * Stages an empty store positioned after state sync (CometBFT `SaveSeenCommit` on a bootstrapped node): the
   * commit of the restored height `commit.height` as its seen commit, base and height set to it, no block;
   * the next block saved is the one after, and the base from then on.
   */
  bootstrap(stage: WriteStage, commit: Commit): void {
    if (this.headHeight > 0) throw new Error(`cannot bootstrap a block store that holds blocks up to ${this.headHeight}`)
    const height = commit.height
    stage.put(heightKey(Prefix.seenCommit, height), encodeCommit(commit))
    stage.put(STATE_KEY, encodeStoreState({ base: height, height }))
    this.baseHeight = height
    this.headHeight = height
    this.baseHasBlock = false
  }

  /**
   * Stages the removal of every block above `height` (a dev chain's revert): the blocks, metas, hash keys,
   * canonical and seen commits; `height` is the head again, with its seen commit (0: the store is empty
   * again). Call `open` once written.
   */
  async stageRollback(stage: WriteStage, height: number): Promise<void> {
    if ((height < this.baseHeight && height !== 0) || height > this.headHeight)
      throw new Error(`cannot roll the block store back to height ${height}`)
    for (let h = height + 1; h <= this.headHeight; h++) {
      const meta = await this.loadBlockMeta(h)
      if (meta) stage.del(prefixedKey(Prefix.blockHash, meta.blockId.hash))
      stage.del(heightKey(Prefix.block, h))
      stage.del(heightKey(Prefix.block, h, META_SUFFIX))
      stage.del(heightKey(Prefix.commit, h - 1))
      stage.del(heightKey(Prefix.seenCommit, h))
    }
    stage.put(STATE_KEY, encodeStoreState({ base: height === 0 ? 0 : this.baseHeight, height }))
  }

  /**
   * Stages the removal of the heights [base, min(retainHeight, base + count)) (CometBFT `PruneBlocks`,
   * a batch of it): blocks, metas, hash keys, canonical and seen commits, and the new base. Returns the
   * new base; call `pruned` with it once the stage is written. The head is never pruned.
   */
  async stagePrune(stage: WriteStage, retainHeight: number, count: number): Promise<number> {
    const to = Math.min(retainHeight, this.headHeight, this.baseHeight + count)
    for (let h = this.baseHeight; h < to; h++) {
      const meta = await this.loadBlockMeta(h)
      if (meta) stage.del(prefixedKey(Prefix.blockHash, meta.blockId.hash))
      stage.del(heightKey(Prefix.block, h))
      stage.del(heightKey(Prefix.block, h, META_SUFFIX))
      stage.del(heightKey(Prefix.commit, h))
      stage.del(heightKey(Prefix.seenCommit, h))
    }
    if (to > this.baseHeight) stage.put(PRUNED_KEY, heightBytes(to))
    return Math.max(to, this.baseHeight)
  }

  /** After a prune staged by `stagePrune` is written: `base` is the lowest height. */
  pruned(base: number): void {
    if (base > this.baseHeight) this.baseHeight = base
  }

  private inRange(height: number): boolean {
    return height >= this.baseHeight && height <= this.headHeight && height > 0
  }
}

/** `BlockMeta{block_id=1, block_size=2 int64, header=3, num_txs=4 int64}`. */
export function encodeBlockMeta(meta: BlockMeta): Uint8Array {
  return new ProtoWriter()
    .message(1, encodeBlockId(meta.blockId))
    .int(2, meta.blockSize)
    .message(3, encodeHeader(meta.header))
    .int(4, meta.numTxs)
    .finish()
}

/** Inverse of `encodeBlockMeta`. */
export function decodeBlockMeta(bytes: Uint8Array): BlockMeta {
  let blockId: BlockID | undefined
  let header: Header | undefined
  let blockSize = 0
  let numTxs = 0
  const r = new ProtoReader(bytes)
  while (r.next()) {
    switch (r.field) {
      case 1:
        blockId = decodeBlockId(r.bytes())
        break
      case 2:
        blockSize = r.int64Number()
        break
      case 3:
        header = decodeHeader(r.bytes())
        break
      case 4:
        numTxs = r.int64Number()
        break
      default:
        r.skip()
    }
  }
  if (!blockId || !header) throw new Error(`corrupt block meta ${bytesToUpperHex(bytes.subarray(0, 16))}…`)
  return { blockId, blockSize, header, numTxs }
}

/** `BlockStoreState{base=1 int64, height=2 int64}`. */
function encodeStoreState(s: { base: number; height: number }): Uint8Array {
  return new ProtoWriter().int(1, s.base).int(2, s.height).finish()
}

function decodeStoreState(bytes: Uint8Array): { base: number; height: number } {
  const s = { base: 0, height: 0 }
  const r = new ProtoReader(bytes)
  while (r.next()) {
    if (r.field === 1) s.base = r.int64Number()
    else if (r.field === 2) s.height = r.int64Number()
    else r.skip()
  }
  return s
}

function readHeight(bytes: Uint8Array): number {
  return Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0))
}

function heightBytes(height: number): Uint8Array {
  const out = new Uint8Array(8)
  new DataView(out.buffer).setBigUint64(0, BigInt(height))
  return out
}
