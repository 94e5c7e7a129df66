import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Database } from '../../../src/db/database.js'
import { utf8ToBytes } from '../../../src/primitives/hex.js'
import { BlockStore } from '../../../src/comet/block-store.js'
import { makeBlockId } from '../../../src/comet/part-set.js'
import type { Block, BlockID, Commit } from '../../../src/comet/types.js'
import { makeTestBlock, signCommit, testValidators } from './fixtures.js'

/** Three consecutive signed blocks starting at `first`. */
function chain(first: number): { block: Block; blockId: BlockID; size: number; seen: Commit }[] {
  const { set, seeds } = testValidators([10n, 10n, 10n])
  const out: { block: Block; blockId: BlockID; size: number; seen: Commit }[] = []
  let last: Commit | undefined
  for (let h = first; h < first + 3; h++) {
    const block = makeTestBlock(h, set, last, [utf8ToBytes(`tx-${h}-a`), utf8ToBytes(`tx-${h}-b`)])
    const { blockId, bytes } = makeBlockId(block)
    const seen = signCommit(set, seeds, h, blockId)
    out.push({ block, blockId, size: bytes.length, seen })
    last = seen
  }
  return out
}

describe('BlockStore', () => {
  let dir: string
  let db: Database

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodectl-blockstore-'))
    db = new Database({ path: dir })
    await db.open()
  })

  afterEach(async () => {
    await db.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('is empty when new', async () => {
    const store = new BlockStore(db)
    await store.open()
    expect([store.base(), store.height()]).toEqual([0, 0])
    expect(await store.loadBlock(1)).toBeUndefined()
    expect(await store.loadBlockMeta(1)).toBeUndefined()
  })

  it('saves blocks, metas, commits and the hash index; loads before and after the stage is written and after reopening', async () => {
    const blocks = chain(1)
    const store = new BlockStore(db)
    const stage = db.createStage()
    await store.open()

    const [b1, b2, b3] = blocks as [(typeof blocks)[0], (typeof blocks)[0], (typeof blocks)[0]]
    store.saveBlock(stage, b1.block, b1.blockId, b1.size, b1.seen)
    // Staged, not yet written: reads see it, another reader of the files (a call worker) does not.
    expect(store.height()).toBe(1)
    expect(await store.loadBlock(1)).toEqual(b1.block)
    const other = new Database({ path: dir })
    await other.open()
    expect(await other.get(new Uint8Array([0x10, 0, 0, 0, 0, 0, 0, 0, 1]))).toBeUndefined()
    await other.close()
    await stage.write()

    store.saveBlock(stage, b2.block, b2.blockId, b2.size, b2.seen)
    await stage.write()
    store.saveBlock(stage, b3.block, b3.blockId, b3.size, b3.seen)
    await stage.write()

    await check(store)
    await check(await reopen())

    async function check(s: BlockStore): Promise<void> {
      expect([s.base(), s.height()]).toEqual([1, 3])
      for (const [i, b] of blocks.entries()) {
        const h = i + 1
        expect(await s.loadBlock(h)).toEqual(b.block)
        expect(await s.loadBlockByHash(b.blockId.hash)).toEqual(b.block)
        expect(await s.heightByHash(b.blockId.hash)).toBe(h)
        expect(await s.loadBlockMeta(h)).toEqual({ blockId: b.blockId, blockSize: b.size, header: b.block.header, numTxs: 2 })
        expect(await s.loadSeenCommit(h)).toEqual(b.seen)
      }
      // The canonical commit of h comes from block h+1; the head has only its seen commit.
      expect(await s.loadBlockCommit(1)).toEqual(b1.seen)
      expect(await s.loadBlockCommit(2)).toEqual(b2.seen)
      expect(await s.loadBlockCommit(3)).toBeUndefined()
      expect(await s.loadBlock(4)).toBeUndefined()
      expect(await s.heightByHash(new Uint8Array(32))).toBeUndefined()
    }

    async function reopen(): Promise<BlockStore> {
      await db.close()
      db = new Database({ path: dir })
      await db.open()
      const s = new BlockStore(db)
      await s.open()
      return s
    }
  })

  it('starts at a later initial height and only accepts contiguous blocks', async () => {
    const [b5, b6, b7] = chain(5) as [ReturnType<typeof chain>[0], ReturnType<typeof chain>[0], ReturnType<typeof chain>[0]]
    const store = new BlockStore(db)
    const stage = db.createStage()
    await store.open()
    store.saveBlock(stage, b5.block, b5.blockId, b5.size, b5.seen)
    expect([store.base(), store.height()]).toEqual([5, 5])
    expect(() => store.saveBlock(stage, b7.block, b7.blockId, b7.size, b7.seen)).toThrow(
      'BlockStore can only save contiguous blocks. Wanted 6, got 7',
    )
    expect(() => store.saveBlock(stage, b6.block, b6.blockId, b6.size, b5.seen)).toThrow(/seen commit height/)
    store.saveBlock(stage, b6.block, b6.blockId, b6.size, b6.seen)
    await stage.write()
    expect(await store.loadBlockCommit(5)).toEqual(b5.seen)
    expect(await store.loadBlock(4)).toBeUndefined()
  })

  it('forgets a discarded block after open()', async () => {
    const [b1] = chain(1)
    const store = new BlockStore(db)
    const stage = db.createStage()
    await store.open()
    store.saveBlock(stage, b1!.block, b1!.blockId, b1!.size, b1!.seen)
    stage.discard()
    await store.open()
    expect(store.height()).toBe(0)
    expect(await store.loadBlock(1)).toBeUndefined()
  })

  it('prunes below a retain height in batches; a later height written with the old base does not move it back', async () => {
    const blocks = chain(1)
    const store = new BlockStore(db)
    const stage = db.createStage()
    await store.open()
    const [b1, b2, b3] = blocks as [(typeof blocks)[0], (typeof blocks)[0], (typeof blocks)[0]]
    store.saveBlock(stage, b1.block, b1.blockId, b1.size, b1.seen)
    store.saveBlock(stage, b2.block, b2.blockId, b2.size, b2.seen)
    await stage.write()

    // A batch of one height, then the height-3 write (staged before the prune, with base 1) lands after it.
    store.saveBlock(stage, b3.block, b3.blockId, b3.size, b3.seen)
    const pruneStage = db.createStage()
    const base = await store.stagePrune(pruneStage, 3, 1)
    expect(base).toBe(2)
    await pruneStage.write()
    store.pruned(base)
    await stage.write()
    expect([store.base(), store.height()]).toEqual([2, 3])
    expect(await store.loadBlock(1)).toBeUndefined()
    expect(await store.heightByHash(b1.blockId.hash)).toBeUndefined()

    const reopened = new BlockStore(db)
    await reopened.open()
    expect([reopened.base(), reopened.height()]).toEqual([2, 3])
    expect(await db.get(new Uint8Array([0x10, 0, 0, 0, 0, 0, 0, 0, 1]))).toBeUndefined()
    expect(await reopened.loadBlock(2)).toEqual(b2.block)
    expect(await reopened.loadBlockCommit(2)).toEqual(b3.block.lastCommit)
    // The head is never pruned, whatever the retain height.
    expect(await reopened.stagePrune(db.createStage(), 10, 100)).toBe(3)
  })

  it('after state sync, its first saved block becomes the base, across a reopen in between', async () => {
    const b5 = chain(4)[1]!
    const store = new BlockStore(db)
    await store.open()
    const stage = db.createStage()
    // Restored height 4: its commit (block 5's last commit) and no block.
    store.bootstrap(stage, b5.block.lastCommit)
    await stage.write()
    expect([store.base(), store.height()]).toEqual([4, 4])

    const reopened = new BlockStore(db)
    await reopened.open()
    const next = db.createStage()
    reopened.saveBlock(next, b5.block, b5.blockId, b5.size, b5.seen)
    await next.write()
    expect([reopened.base(), reopened.height()]).toEqual([5, 5])
    expect(await reopened.loadBlock(4)).toBeUndefined()

    const again = new BlockStore(db)
    await again.open()
    expect([again.base(), again.height()]).toEqual([5, 5])
    expect(await again.loadBlockMeta(5)).toBeDefined()
  })
})
