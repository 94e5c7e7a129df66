/**
 * The engine and the application each write their own part of a height (block-executor.ts): the engine
 * its block and FinalizeBlock response, then the app its Commit, then the engine its state. A crash
 * between two of those writes (here: the app's Commit throws, before or after its own write, and the
 * node halts) leaves the stores one height apart; the restart's handshake heals them as CometBFT's does,
 * and the height keeps its block hash, its results and its app hash.
 */
import { describe, expect, it } from 'vitest'
import { StateStore } from '../../../src/consensus/state-store.js'
import { metaKey } from '../../../src/db/prefixes.js'
import { bytesToUpperHex, bytesToUtf8 } from '../../../src/primitives/hex.js'
import { makeGenesis, makeKeys, nodeFolderPerTest, recordingLogger, waitFor, type TestNode } from './helpers.js'
import type { KvAppOptions } from './helpers.js'

/** What the crashed node wrote of height 1: its block hash and the app hash of its stored response. */
interface Written {
  blockHash: string
  appHash: string
}

describe('a crash between the writes of a height', () => {
  const folder = nodeFolderPerTest()
  const keys = makeKeys(1)
  const genesis = makeGenesis(keys)

  /** Starts a node whose block 1 carries `x=1` and whose app fails as `app` says; waits for the halt. */
  async function crashAtHeight1(app: KvAppOptions): Promise<{ node: TestNode; written: Written }> {
    const node = await folder.start({ genesis, key: keys[0]!, app, noStart: true })
    node.mempool.add('x=1')
    await node.engine.start()
    expect((await node.engine.halted).message).toMatch(/simulated crash/)
    // The engine wrote the block and its response before the app's Commit: they are on disk.
    expect(node.blockStore.height()).toBe(1)
    const meta = (await node.blockStore.loadBlockMeta(1))!
    const response = (await new StateStore(node.db).loadFinalizeBlockResponse(1))!
    await node.stop()
    return { node, written: { blockHash: bytesToUpperHex(meta.blockId.hash), appHash: bytesToUpperHex(response.appHash) } }
  }

  /** Restarts on the same folder and checks height 1 came back as written, and the chain goes on. */
  async function restartAndCheck(written: Written): Promise<{ node: TestNode; lines: ReturnType<typeof recordingLogger>['lines'] }> {
    const { logger, lines } = recordingLogger()
    const node = await folder.start({ genesis, key: keys[0]!, logger })
    expect(node.app.height).toBeGreaterThanOrEqual(1)
    // The app's write of block 1 is on disk, whichever way it got there.
    expect(bytesToUtf8((await node.db.get(metaKey('kvapp:kv:x')))!)).toBe('1')
    await waitFor(() => node.engine.height >= 3, 'height 3 after the restart')
    const meta = (await node.blockStore.loadBlockMeta(1))!
    expect(bytesToUpperHex(meta.blockId.hash)).toBe(written.blockHash)
    // Block 2's header carries the app hash after block 1.
    const block2 = (await node.blockStore.loadBlock(2))!
    expect(bytesToUpperHex(block2.header.appHash)).toBe(written.appHash)
    expect(lines.filter((l) => l.level === 'error')).toEqual([])
    return { node, lines }
  }

  it("before the app's Commit: the handshake runs the stored block in the app and saves the state", async () => {
    const { node: crashed, written } = await crashAtHeight1({ failCommitAt: 1 })
    expect(crashed.app.height).toBe(0)
    const { node, lines } = await restartAndCheck(written)
    expect(lines.find((l) => l.msg === 'replaying the last stored block into the app')?.ctx).toMatchObject({ height: 1 })
    // Height 1 ran in the app twice: live (its Commit failed) and in the handshake.
    expect(node.app.finalized.slice(0, 1)).toEqual([1])
  })

  it("after the app's Commit: the handshake updates the state from the stored response without running the block", async () => {
    const { node: crashed, written } = await crashAtHeight1({ failAfterCommitAt: 1 })
    expect(crashed.app.height).toBe(1)
    const { node, lines } = await restartAndCheck(written)
    expect(lines.find((l) => l.msg === 'updating the state from the stored FinalizeBlock response')?.ctx).toMatchObject({ height: 1 })
    // The restarted app never ran block 1 again.
    expect(node.app.finalized[0]).toBe(2)
  })
})
