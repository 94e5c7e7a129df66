import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { mkdir } from 'node:fs/promises'
import { bytesToUpperHex } from '../../../src/primitives/hex.js'
import { hashEvidence } from '../../../src/comet/hash.js'
import { blockIdEquals } from '../../../src/comet/part-set.js'
import { SignedMsgType } from '../../../src/comet/types.js'
import { BlockIDFlag } from '../../../src/abci/types.js'
import type { ConsensusEvents } from '../../../src/consensus/events.js'
import type { FilePV } from '../../../src/consensus/privval.js'
import { InMemoryNetwork } from '../../../src/consensus/transport.js'
import { EquivocatingValidator } from '../../../src/consensus/equivocating-validator.js'
import { StoreBlockSource, makeGenesis, makeKeys, makeTempDir, removeDir, startNode, waitFor, type TestNode } from './helpers.js'

describe('validators over the in-memory network', () => {
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

  async function startNetwork(
    n: number,
    silent?: number,
    rejectTx?: string,
    dropRate = 0,
  ): Promise<{ net: InMemoryNetwork; ids: string[] }> {
    const keys = makeKeys(n)
    const genesis = makeGenesis(keys)
    const net = new InMemoryNetwork()
    if (dropRate > 0) net.setDropRate(dropRate, 42)
    const ids = keys.map((_, i) => `node${i}`)
    if (silent !== undefined) net.setSilent(ids[silent]!, true)
    // Each node block-syncs from the others' stores, as over p2p: a node that fell 2+ heights behind (its
    // peers gossip only the current and the previous height) catches up that way.
    let built: TestNode[] = []
    const sources = keys.map((_, i) => new StoreBlockSource(() => built.flatMap((node, j) => (j === i ? [] : [{ id: ids[j]!, node }]))))
    built = await Promise.all(
      keys.map(async (key, i) => {
        const home = join(dir, ids[i]!)
        await mkdir(home, { recursive: true })
        return startNode({
          dir: home,
          genesis,
          key,
          transport: net.join(ids[i]!),
          noStart: true,
          blockSync: sources[i]!,
          ...(rejectTx ? { app: { rejectTx } } : {}),
        })
      }),
    )
    nodes = built
    for (const source of sources) source.connect()
    await Promise.all(built.map((b) => b.engine.start()))
    return { net, ids }
  }

  async function blockHashes(node: TestNode, upTo: number): Promise<string[]> {
    const out: string[] = []
    for (let h = 1; h <= upTo; h++) out.push(bytesToUpperHex((await node.blockStore.loadBlockMeta(h))!.blockId.hash))
    return out
  }

  it('4 validators reach the same blocks, and a tx sent to one is committed by all', async () => {
    await startNetwork(4)
    await waitFor(() => nodes.every((n) => n.engine.height >= 3), 'all at height 3', 50_000)
    nodes[2]!.mempool.add('shared=42')
    // Only node2 has the tx in its mempool: it is committed when node2 proposes.
    await waitFor(() => nodes.every((n) => n.app.kv.get('shared') === '42'), 'tx committed everywhere', 50_000)
    const h = Math.min(...nodes.map((n) => n.engine.height))
    const reference = await blockHashes(nodes[0]!, h)
    for (const n of nodes.slice(1)) expect(await blockHashes(n, h)).toEqual(reference)
    // Every committed block's last commit carries +2/3 of the signatures and verifies.
    const vals = (await nodes[0]!.engine.getValidators(2))!
    const block = (await nodes[0]!.blockStore.loadBlock(h))!
    const prev = (await nodes[0]!.blockStore.loadBlockMeta(h - 1))!
    expect(() => vals.verifyCommit(block.header.chainId, prev.blockId, h - 1, block.lastCommit)).not.toThrow()
    expect(block.lastCommit.signatures.filter((s) => s.blockIdFlag === BlockIDFlag.Commit).length).toBeGreaterThanOrEqual(3)
  })

  it('4 validators with one silent still progress; its rounds as proposer time out to the next round', async () => {
    const timeouts: number[] = []
    const { ids } = await startNetwork(4, 3)
    const silentAddress = bytesToUpperHex(nodes[3]!.pv!.address)
    const roundsAbove0: number[] = []
    nodes[0]!.engine.events.on('TimeoutPropose', (e) => timeouts.push(e.height))
    nodes[0]!.engine.events.on('NewRound', (e) => {
      if (e.round > 0) roundsAbove0.push(e.height)
    })
    const silentProposed: number[] = []
    nodes[0]!.engine.events.on('NewRound', (e) => {
      if (bytesToUpperHex(e.proposer.address) === silentAddress) silentProposed.push(e.height)
    })
    // Proposers rotate with equal power, so within a few heights the silent node's turn comes.
    await waitFor(
      () => nodes.slice(0, 3).every((n) => n.engine.height >= 6) && silentProposed.length > 0,
      'progress past the silent proposer',
      50_000,
    )
    expect(ids).toHaveLength(4)
    expect(timeouts.length).toBeGreaterThan(0)
    expect(roundsAbove0.length).toBeGreaterThan(0)
    const h = Math.min(...nodes.slice(0, 3).map((n) => n.engine.height))
    const reference = await blockHashes(nodes[0]!, h)
    for (const n of nodes.slice(1, 3)) expect(await blockHashes(n, h)).toEqual(reference)
    // No block was proposed by the silent validator, and its signature is absent from the commits.
    for (let i = 1; i <= h; i++) {
      const b = (await nodes[0]!.blockStore.loadBlock(i))!
      expect(bytesToUpperHex(b.header.proposerAddress)).not.toBe(silentAddress)
      for (const s of b.lastCommit.signatures) expect(bytesToUpperHex(s.validatorAddress)).not.toBe(silentAddress)
    }
    // The silent node still listens, so it follows the same chain.
    await waitFor(() => nodes[3]!.engine.height >= h, 'silent node follows', 50_000)
    expect(await blockHashes(nodes[3]!, h)).toEqual(reference)
  })

  it('a block the application rejects in ProcessProposal gets nil prevotes and the next round decides another', async () => {
    await startNetwork(4, undefined, 'bad=1')
    nodes[0]!.mempool.add('bad=1')
    const rejectedRounds: number[] = []
    nodes[1]!.engine.events.on('NewRound', (e) => {
      if (e.round > 0) rejectedRounds.push(e.height)
    })
    await waitFor(() => nodes.every((n) => n.engine.height >= 6), 'progress despite the rejected proposals', 50_000)
    expect(rejectedRounds.length).toBeGreaterThan(0)
    for (let h = 1; h <= 6; h++) {
      const b = (await nodes[1]!.blockStore.loadBlock(h))!
      expect(b.txs).toHaveLength(0)
    }
    expect(nodes.every((n) => n.app.kv.get('bad') === undefined)).toBe(true)
  })

  it('4 validators on a lossy network (15% of deliveries dropped) agree and progress thanks to re-gossip and block sync', async () => {
    await startNetwork(4, undefined, undefined, 0.15)
    await waitFor(() => nodes.every((n) => n.engine.height >= 5), 'all at height 5 despite losses', 50_000)
    const reference = await blockHashes(nodes[0]!, 5)
    for (const n of nodes.slice(1)) expect(await blockHashes(n, 5)).toEqual(reference)
  })

  it('a validator signing two prevotes for one height/round is caught: the evidence is committed on every honest node', async () => {
    const keys = makeKeys(4)
    const genesis = makeGenesis(keys)
    const net = new InMemoryNetwork()
    const byzantine = 3
    let signer: EquivocatingValidator | undefined
    nodes = await Promise.all(
      keys.map(async (key, i) => {
        const home = join(dir, `node${i}`)
        await mkdir(home, { recursive: true })
        const transport = net.join(`node${i}`)
        const equivocate = (pv: FilePV): EquivocatingValidator =>
          (signer = new EquivocatingValidator(
            pv,
            key,
            () => transport,
            (v) => v.height === 2 && v.type === SignedMsgType.Prevote,
          ))
        return startNode({ dir: home, genesis, key, transport, noStart: true, ...(i === byzantine ? { wrapSigner: equivocate } : {}) })
      }),
    )
    const seen = nodes.map(() => [] as ConsensusEvents['NewEvidence'][])
    nodes.forEach((n, i) => {
      n.engine.events.on('NewEvidence', (e) => seen[i]!.push(e))
    })
    await Promise.all(nodes.map((n) => n.engine.start()))
    const honest = [0, 1, 2]
    await waitFor(() => honest.every((i) => seen[i]!.length > 0), 'evidence committed on every honest node', 50_000)
    const conflicting = signer!.conflicting!
    expect(conflicting.height).toBe(2)

    const { height, evidence } = seen[0]![0]!
    const time2 = (await nodes[0]!.blockStore.loadBlockMeta(2))!.header.time
    expect(evidence.voteA.validatorAddress).toEqual(keys[byzantine]!.address)
    expect([evidence.voteA.height, evidence.voteA.round, evidence.voteA.type]).toEqual([2, conflicting.round, SignedMsgType.Prevote])
    expect([evidence.voteA, evidence.voteB].some((v) => blockIdEquals(v.blockId, conflicting.blockId))).toBe(true)
    expect({ total: evidence.totalVotingPower, power: evidence.validatorPower, time: evidence.timestamp }).toEqual({
      total: 40n,
      power: 10n,
      time: time2,
    })
    // The same evidence in the same block everywhere, bound to the header by its evidence hash.
    await waitFor(() => honest.every((i) => nodes[i]!.engine.height >= height + 1), 'honest nodes past the evidence block', 50_000)
    const blockHash = bytesToUpperHex((await nodes[0]!.blockStore.loadBlockMeta(height))!.blockId.hash)
    for (const i of honest) {
      expect(seen[i]).toEqual([{ height, evidence }])
      expect(bytesToUpperHex((await nodes[i]!.blockStore.loadBlockMeta(height))!.blockId.hash)).toBe(blockHash)
      const block = (await nodes[i]!.blockStore.loadBlock(height))!
      expect(block.evidence).toEqual([evidence])
      expect(block.header.evidenceHash).toEqual(hashEvidence([evidence]))
      expect(nodes[i]!.engine.pendingEvidenceCount).toBe(0)
    }
  })
})
