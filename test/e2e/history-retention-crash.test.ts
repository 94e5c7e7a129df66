/**
 * A real dev node process with `min-retain-blocks` SIGKILLed in the middle of pruning
 * (test/helpers/retention-crash-child.ts), turned on over an archive node's 400 heights: before and after the
 * first of the several batches of the application's EVM history pruning, and of the engine's block pruning. Restarted on the same home, the base is consistent:
 * every height from the base to the head answers whole on both sides, and once pruning resumes nothing
 * below the base is left on disk.
 */
import { rm } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BlockJson } from '../../src/api/eth/format.js'
import { Prefix, heightKey } from '../../src/db/prefixes.js'
import type { NodeAddresses } from '../../src/node/node.js'
import { bundleChild, lineOf, spawnChild } from '../helpers/child-lines.js'
import { NO_EMPTY_BLOCKS_FLAGS, rpc, startTestNode, type TestNode } from '../helpers/dev-node.js'
import type { PrunePoint } from '../helpers/retention-crash-child.js'
import { initRetentionHome } from '../helpers/retention-home.js'

const KEEP = 10
/**
 * Heights made before retention is turned on: past the EVM side's BLOCKHASH window (256) by more than
 * one batch (100 heights), so both sides have several batches to delete when the first Commit raises the base.
 */
const MINED = 400
const POINTS: PrunePoint[] = ['evm-before-write', 'evm-after-write', 'blocks-before-write', 'blocks-after-write']

describe('SIGKILL in the middle of history pruning', () => {
  let script = ''
  const homes: string[] = []
  let restarted: TestNode | undefined

  beforeAll(async () => {
    script = await bundleChild('retention-crash-child')
  })
  afterAll(async () => {
    await restarted?.stop()
    await rm(script, { force: true })
    for (const home of homes) await rm(home, { recursive: true, force: true })
  })

  it.each(POINTS)(
    'killed %s: the restarted node has a consistent base and finishes pruning',
    async (point) => {
      const home = await initRetentionHome()
      homes.push(home)
      // An archive node first; then retention is turned on, and the first Commit makes the base jump.
      const archive = await startTestNode({ home, flags: { ...NO_EMPTY_BLOCKS_FLAGS, 'min-retain-blocks': '0' } })
      await rpc(archive.url, 'anvil_mine', ['0x' + MINED.toString(16)])
      await archive.stop()
      const { child, output, exited } = spawnChild(script, [home, String(KEEP), point])
      try {
        const { jsonRpcHttp: url } = await lineOf<NodeAddresses>(child, 'ready ', output)
        const paused = lineOf<{ point: PrunePoint }>(child, 'paused ', output)
        await rpc(url!, 'anvil_mine', ['0x1'])
        expect((await paused).point).toBe(point)
        child.kill('SIGKILL')
        await exited
      } finally {
        child.kill('SIGKILL')
      }

      restarted = await startTestNode({ home, flags: { ...NO_EMPTY_BLOCKS_FLAGS, 'min-retain-blocks': String(KEEP) } })
      const t = restarted
      const { blockStore, engine, app, db } = t.node.components
      const stateStore = engine.stateStore
      // Killed after a batch: its base is on disk, with more heights below it still to delete.
      if (point === 'evm-after-write') expect(app.historyBase()).toBeGreaterThan(101)
      if (point === 'blocks-after-write') expect(blockStore.base()).toBe(101)
      // Both sides whole from their base to the head, as restarted.
      const top = blockStore.height()
      for (let h = blockStore.base(); h <= top; h++) {
        expect(await blockStore.loadBlock(h), `block ${h}`).toBeDefined()
        expect(await stateStore.loadFinalizeBlockResponse(h), `results ${h}`).toBeDefined()
      }
      const evmTop = app.latestHeight()
      let parent = (await rpc<BlockJson>(t.url, 'eth_getBlockByNumber', ['0x' + app.historyBase().toString(16), false])).result!
      for (let h = app.historyBase() + 1; h <= evmTop; h++) {
        const block = (await rpc<BlockJson>(t.url, 'eth_getBlockByNumber', ['0x' + h.toString(16), false])).result!
        expect(block.parentHash, `EVM block ${h}`).toBe(parent.hash)
        parent = block
      }
      // Pruning resumes (the application's at once) and goes on with the next Commit; it leaves nothing below the bases.
      await rpc(t.url, 'anvil_mine', ['0x1'])
      await Promise.all([app.historyPruned(), engine.pruned()])
      const evmBase = app.historyBase()
      expect(evmBase).toBe(app.latestHeight() + 1 - 256)
      expect(await db.keys({ gte: heightKey(Prefix.evmBlock, 1), lt: heightKey(Prefix.evmBlock, evmBase) })).toEqual([])
      expect(await db.keys({ gte: heightKey(Prefix.evmLogs, 1), lt: heightKey(Prefix.evmLogs, evmBase) })).toEqual([])
      const base = blockStore.base()
      expect(base).toBe(blockStore.height() - KEEP + 1)
      expect(await db.keys({ gte: heightKey(Prefix.block, 1), lt: heightKey(Prefix.block, base) })).toEqual([])
      expect(await db.keys({ gte: heightKey(Prefix.seenCommit, 1), lt: heightKey(Prefix.seenCommit, base) })).toEqual([])
      await restarted.stop()
      restarted = undefined
    },
    // A child process and a restart each: slow on a loaded 2-core machine.
    120_000,
  )
})
