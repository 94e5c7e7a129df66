import { describe, expect, it } from 'vitest'
import { blockIdEquals } from '../../../src/comet/part-set.js'
import { hashHeader } from '../../../src/comet/hash.js'
import { BlockIDFlag } from '../../../src/abci/types.js'
import type { ConsensusEvents } from '../../../src/consensus/events.js'
import { RoundStep } from '../../../src/consensus/round-step.js'
import { bytesToUtf8 } from '../../../src/primitives/hex.js'
import { compareTime } from '../../../src/utils/time.js'
import { makeGenesis, makeKeys, nextEvent, nodeFolderPerTest, waitFor, type TestNode } from './helpers.js'

describe('single validator', () => {
  const folder = nodeFolderPerTest()
  let node: TestNode

  it('commits consecutive heights, each block carrying the previous commit with a valid signature', async () => {
    const keys = makeKeys(1)
    const genesis = makeGenesis(keys)
    const events: (keyof ConsensusEvents)[] = []
    node = await folder.start({ genesis, key: keys[0]!, noStart: true })
    for (const name of [
      'NewRound',
      'CompleteProposal',
      'Polka',
      'Lock',
      'NewBlock',
      'NewBlockHeader',
      'NewBlockEvents',
      'Vote',
      'NewRoundStep',
    ] as const) {
      node.engine.events.on(name, () => events.push(name))
    }
    await node.engine.start()
    await waitFor(() => node!.engine.height >= 5, 'height 5')
    const { blockStore, engine } = node
    const state = engine.getState()
    const vals = await engine.getValidators(2)
    expect(vals?.size).toBe(1)

    const b1 = (await blockStore.loadBlock(1))!
    expect(b1.header.time).toEqual(genesis.genesisTime)
    expect(b1.lastCommit.signatures).toHaveLength(0)
    for (let h = 2; h <= 5; h++) {
      const block = (await blockStore.loadBlock(h))!
      const prev = (await blockStore.loadBlockMeta(h - 1))!
      expect(blockIdEquals(block.header.lastBlockId, prev.blockId)).toBe(true)
      expect(block.lastCommit.height).toBe(h - 1)
      expect(block.lastCommit.signatures[0]!.blockIdFlag).toBe(BlockIDFlag.Commit)
      // The commit verifies against the validators of h-1 (signature over the precommit sign bytes).
      expect(() => vals!.verifyCommit(state.chainId, prev.blockId, h - 1, block.lastCommit)).not.toThrow()
      // BFT time: strictly increasing, the median of the last commit (one validator: its precommit time).
      expect(compareTime(block.header.time, prev.header.time)).toBeGreaterThan(0)
      expect(block.header.time).toEqual(block.lastCommit.signatures[0]!.timestamp)
      expect(hashHeader(block.header)).toEqual((await blockStore.loadBlockMeta(h))!.blockId.hash)
    }
    expect(node.app.finalized.slice(0, 5)).toEqual([1, 2, 3, 4, 5])
    for (const name of [
      'NewRound',
      'CompleteProposal',
      'Polka',
      'Lock',
      'NewBlock',
      'NewBlockHeader',
      'NewBlockEvents',
      'Vote',
      'NewRoundStep',
    ] as const) {
      expect(events).toContain(name)
    }
    const rs = engine.getRoundState()
    expect(rs.height).toBeGreaterThanOrEqual(6)
    expect(rs.validators.getProposer().address).toEqual(node.pv!.address)
    expect(rs.lastCommit?.[0]?.height).toBe(rs.height - 1)
    expect(rs.commitTime.seconds).toBeGreaterThan(0)
  })

  it('proposes and commits a transaction from the mempool, emitting Tx events', async () => {
    const keys = makeKeys(1)
    node = await folder.start({ genesis: makeGenesis(keys), key: keys[0]! })
    const txEvents: { height: number; index: number; tx: string }[] = []
    node.engine.events.on('Tx', (e) => txEvents.push({ height: e.height, index: e.index, tx: bytesToUtf8(e.tx) }))
    await waitFor(() => node!.engine.height >= 2, 'height 2')
    node.mempool.add('alice=1')
    node.mempool.add('bob=2')
    // Tx events come after the batch and the mempool update.
    await waitFor(() => txEvents.length === 2, 'txs committed')
    expect(node.app.kv.get('alice')).toBe('1')
    expect(node.mempool.size()).toBe(0)
    expect(txEvents.map((e) => e.tx)).toEqual(['alice=1', 'bob=2'])
    const block = (await node.blockStore.loadBlock(txEvents[0]!.height))!
    expect(block.txs.map(bytesToUtf8)).toEqual(['alice=1', 'bob=2'])
    const results = await node.engine.stateStore.loadFinalizeBlockResponse(txEvents[0]!.height)
    expect(results?.txResults).toHaveLength(2)
  })

  it('with createEmptyBlocks off waits for txs, proposing only proof blocks and blocks with txs', async () => {
    const keys = makeKeys(1)
    node = await folder.start({
      genesis: makeGenesis(keys),
      key: keys[0]!,
      config: { createEmptyBlocks: false, timeoutCommit: 0, skipTimeoutCommit: true },
    })
    // Height 1 is a proof block (first height); then everything queued is handled and the node waits in
    // round 0 of height 2 (a node that did not wait would commit height 2 first, and never drain).
    await waitFor(() => node!.engine.height >= 1, 'height 1')
    await Promise.race([node.engine.drained(), nextEvent(node, 'NewBlock')])
    expect(node.engine.height).toBe(1)
    expect(node.engine.getRoundState()).toMatchObject({ height: 2, round: 0, step: RoundStep.NewRound })

    // A tx is what ends the wait: it goes into height 2, no empty block before it.
    const committed = nextEvent(node, 'Tx')
    node.mempool.add('k=v')
    expect((await committed).height).toBe(2)
    expect(node.app.kv.get('k')).toBe('v')
    // The tx changed the app hash, so one proof block follows; then the node waits again.
    await waitFor(() => node!.engine.height >= 3, 'proof block')
    await Promise.race([node.engine.drained(), nextEvent(node, 'NewBlock')])
    expect(node.engine.height).toBe(3)
    expect(node.engine.getRoundState()).toMatchObject({ height: 4, round: 0, step: RoundStep.NewRound })
    expect((await node.blockStore.loadBlock(2))!.txs).toHaveLength(1)
    expect((await node.blockStore.loadBlock(3))!.txs).toHaveLength(0)
  })

  it('with createEmptyBlocksInterval proposes an empty block after the interval', async () => {
    const keys = makeKeys(1)
    node = await folder.start({
      genesis: makeGenesis(keys),
      key: keys[0]!,
      config: { createEmptyBlocksInterval: 200, timeoutCommit: 0, skipTimeoutCommit: true },
    })
    await waitFor(() => node!.engine.height >= 3, 'empty blocks every interval', 30_000)
    const t1 = (await node.blockStore.loadBlock(2))!.header.time
    const t2 = (await node.blockStore.loadBlock(3))!.header.time
    expect(Number(BigInt(t2.seconds - t1.seconds) * 1000n) + (t2.nanos - t1.nanos) / 1e6).toBeGreaterThanOrEqual(150)
  })

  it('a non-validator node started alone does not produce blocks', async () => {
    const keys = makeKeys(1)
    node = await folder.start({ genesis: makeGenesis(keys), noStart: true })
    // The propose timeout of height 1 fires: the whole wait for a proposal passed, and none came.
    const timedOut = nextEvent(node, 'TimeoutPropose')
    await node.engine.start()
    expect(await timedOut).toMatchObject({ height: 1, round: 0 })
    expect(node.engine.height).toBe(0)
  })
})
