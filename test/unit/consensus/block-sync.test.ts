/**
 * Block sync in-process: a validator cut off while the others commit catches up from their block stores
 * (commits verified against each height's validator set), then rejoins consensus and signs again; a peer
 * that serves a commit that does not verify is reported and the block is fetched from another.
 */
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BlockIDFlag } from '../../../src/abci/types.js'
import type { ConsensusEvents } from '../../../src/consensus/events.js'
import { InMemoryNetwork } from '../../../src/consensus/transport.js'
import { bytesToUpperHex } from '../../../src/primitives/hex.js'
import { StoreBlockSource, makeGenesis, makeKeys, makeTempDir, removeDir, startNode, waitFor, type TestNode } from './helpers.js'

describe('block sync', () => {
  let dir: string
  let nodes: TestNode[] = []
  beforeEach(async () => {
    dir = await makeTempDir()
  })
  afterEach(async () => {
    for (const n of nodes) await n.stop()
    nodes = []
    await removeDir(dir)
  })

  /** Four validators on one in-memory network; node3 is isolated from it and syncs through `source`. */
  async function startWithLaggard(): Promise<{
    net: InMemoryNetwork
    source: StoreBlockSource
    statuses: ConsensusEvents['BlockSyncStatus'][]
  }> {
    const keys = makeKeys(4)
    const genesis = makeGenesis(keys)
    const net = new InMemoryNetwork()
    net.setIsolated('node3', true)
    nodes = await Promise.all(
      keys.slice(0, 3).map(async (key, i) => {
        const home = join(dir, `node${i}`)
        await mkdir(home, { recursive: true })
        return startNode({ dir: home, genesis, key, transport: net.join(`node${i}`), noStart: true })
      }),
    )
    const connected = nodes.slice()
    const source = new StoreBlockSource(() => connected.map((node, i) => ({ id: `node${i}`, node })))
    const home = join(dir, 'node3')
    await mkdir(home, { recursive: true })
    const laggard = await startNode({ dir: home, genesis, key: keys[3]!, transport: net.join('node3'), noStart: true, blockSync: source })
    nodes.push(laggard)
    const statuses: ConsensusEvents['BlockSyncStatus'][] = []
    laggard.engine.events.on('BlockSyncStatus', (s) => statuses.push(s))
    await Promise.all(nodes.map((n) => n.engine.start()))
    return { net, source, statuses }
  }

  async function hashAt(node: TestNode, height: number): Promise<string> {
    return bytesToUpperHex((await node.blockStore.loadBlockMeta(height))!.blockId.hash)
  }

  it('a validator cut off for several heights syncs the blocks it missed, then votes again', async () => {
    const { net, source, statuses } = await startWithLaggard()
    const [n0, , , laggard] = nodes as [TestNode, TestNode, TestNode, TestNode]
    await waitFor(() => n0.engine.height >= 6, 'the three connected validators at height 6')
    expect(laggard.engine.height).toBe(0)

    net.setIsolated('node3', false)
    source.connect()
    await waitFor(() => statuses.some((s) => s.complete), 'block sync complete on node3')
    expect(statuses[0]).toEqual({ complete: false, height: 0 })
    const synced = statuses.find((s) => s.complete)!.height
    expect(synced).toBeGreaterThanOrEqual(6)
    expect(laggard.engine.syncStatus()).toMatchObject({ catchingUp: false, progress: { startHeight: 0, height: synced } })

    // Back in consensus: node3 commits the following heights itself, and its precommits are in their commits.
    const target = synced + 3
    await waitFor(() => nodes.every((n) => n.engine.height >= target), `every node at height ${target}`)
    for (let h = 1; h <= target; h++) {
      const hash = await hashAt(n0, h)
      for (const n of nodes) expect(await hashAt(n, h)).toBe(hash)
    }
    const signedByLaggard = async (h: number): Promise<boolean> =>
      (await n0.blockStore.loadBlockCommit(h))?.signatures[3]?.blockIdFlag === BlockIDFlag.Commit
    const later = await Promise.all([synced + 1, synced + 2].map(signedByLaggard))
    expect(later.some(Boolean)).toBe(true)
  })

  it('a commit that does not verify is refused: the peer is reported and the block taken from another', async () => {
    const { net, source } = await startWithLaggard()
    const [n0, , , laggard] = nodes as [TestNode, TestNode, TestNode, TestNode]
    await waitFor(() => n0.engine.height >= 4, 'the three connected validators at height 4')
    source.tamperHeight = 2
    net.setIsolated('node3', false)
    source.connect()
    await waitFor(() => laggard.engine.height >= 4, 'node3 synced to height 4')
    expect(source.invalid).toHaveLength(1)
    expect(source.invalid[0]!.peerId).toBe('node0')
    expect(source.invalid[0]!.reason).toMatch(/^block 2: wrong signature/)
    for (let h = 1; h <= 4; h++) expect(await hashAt(laggard, h)).toBe(await hashAt(n0, h))
  })
})
