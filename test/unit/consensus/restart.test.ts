import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { blockIdEquals } from '../../../src/comet/part-set.js'
import { makeGenesis, makeKeys, nodeFolderPerTest, recordingLogger, waitFor, type TestNode } from './helpers.js'

describe('restart', () => {
  const folder = nodeFolderPerTest()
  let node: TestNode

  async function expectLinkedChain(n: TestNode, upTo: number): Promise<void> {
    const vals = (await n.engine.getValidators(1))!
    for (let h = 2; h <= upTo; h++) {
      const block = (await n.blockStore.loadBlock(h))!
      const prev = (await n.blockStore.loadBlockMeta(h - 1))!
      expect(blockIdEquals(block.header.lastBlockId, prev.blockId)).toBe(true)
      expect(() => vals.verifyCommit(block.header.chainId, prev.blockId, h - 1, block.lastCommit)).not.toThrow()
    }
  }

  it('a validator stopped mid-chain continues from the stored height without double signing', async () => {
    const keys = makeKeys(1)
    const genesis = makeGenesis(keys)
    node = await folder.start({ genesis, key: keys[0]! })
    await waitFor(() => node!.engine.height >= 4, 'height 4')
    node.mempool.add('before=1')
    await waitFor(() => node!.app.kv.get('before') === '1', 'tx committed')
    await node.stop()
    const stoppedAt = node.blockStore.height()
    const signState = JSON.parse(await readFile(join(folder.dir, 'priv_validator_state.json'), 'utf8')) as { height: string }
    expect(Number(signState.height)).toBeGreaterThanOrEqual(stoppedAt)

    const { logger, lines } = recordingLogger()
    node = await folder.start({ genesis, key: keys[0]!, logger })
    expect(node.app.height).toBe(stoppedAt)
    await waitFor(() => node!.engine.height >= stoppedAt + 3, 'three more heights')
    await expectLinkedChain(node, stoppedAt + 3)
    const errors = lines.filter((l) => l.level === 'error')
    expect(errors).toEqual([])
  })

  it('an application that lost its state gets InitChain and the stored blocks replayed (with progress logs)', async () => {
    const keys = makeKeys(1)
    const genesis = makeGenesis(keys)
    node = await folder.start({ genesis, key: keys[0]!, app: { inMemory: true } })
    await waitFor(() => node!.engine.height >= 2, 'height 2')
    node.mempool.add('x=1')
    await waitFor(() => node!.app.kv.get('x') === '1', 'tx committed')
    await waitFor(() => node!.engine.height >= 6, 'height 6')
    await node.stop()
    const stored = node.blockStore.height()
    const liveSizes = node.app.blockSizes

    const { logger, lines } = recordingLogger()
    node = await folder.start({ genesis, key: keys[0]!, app: { inMemory: true }, logger })
    // The fresh app was brought to the store height before consensus resumed.
    expect(node.app.finalized.slice(0, stored)).toEqual(Array.from({ length: stored }, (_, i) => i + 1))
    expect(node.app.kv.get('x')).toBe('1')
    // FinalizeBlock carries the same block size replayed as live: the one the block store recorded.
    for (let h = 1; h <= stored; h++) {
      const meta = (await node.blockStore.loadBlockMeta(h))!
      expect(meta.blockSize).toBeGreaterThan(0)
      expect(liveSizes.get(h), `live size of ${h}`).toBe(meta.blockSize)
      expect(node.app.blockSizes.get(h), `replayed size of ${h}`).toBe(meta.blockSize)
    }
    const progress = lines.filter((l) => l.msg === 'replaying blocks')
    expect(progress.at(-1)?.ctx).toMatchObject({ replayed: stored, total: stored })
    await waitFor(() => node!.engine.height >= stored + 2, 'continues after replay')
  })

  it('handshake() alone replays the stored blocks into the app without starting consensus; start() then runs it', async () => {
    const keys = makeKeys(1)
    const genesis = makeGenesis(keys)
    node = await folder.start({ genesis, key: keys[0]!, app: { inMemory: true } })
    await waitFor(() => node!.engine.height >= 3, 'height 3')
    await node.stop()
    const stored = node.blockStore.height()

    node = await folder.start({ genesis, key: keys[0]!, app: { inMemory: true }, noStart: true })
    await node.engine.handshake()
    // As a node between its handshake and start: the app is current (its RPC can serve), nothing is decided.
    expect(node.app.finalized).toEqual(Array.from({ length: stored }, (_, i) => i + 1))
    expect(node.engine.isRunning).toBe(false)
    expect(() => node!.engine.getRoundState()).toThrow('consensus engine is not started')
    await expect(node.engine.handshake()).rejects.toThrow('handshake already done')
    await node.engine.start()
    await waitFor(() => node!.engine.height >= stored + 2, 'continues after start')
    expect(node.app.finalized.slice(0, stored + 2)).toEqual(Array.from({ length: stored + 2 }, (_, i) => i + 1))
  })
})
