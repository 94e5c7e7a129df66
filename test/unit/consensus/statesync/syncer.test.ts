import { describe, expect, it } from 'vitest'
import type { SnapshotProvider } from '../../../../src/abci/snapshots.js'
import { ApplySnapshotChunkResult, OfferSnapshotResult, type Snapshot } from '../../../../src/abci/wire/messages.js'
import { hashHeader } from '../../../../src/comet/hash.js'
import { LightStateProvider } from '../../../../src/consensus/statesync/light-state-provider.js'
import { StateSyncAbortedError, StateSyncer, type SnapshotSource } from '../../../../src/consensus/statesync/syncer.js'
import { equalBytes } from '../../../../src/primitives/hex.js'
import { silentLogger } from '../../../../src/utils/logger.js'
import { CHAIN_ID } from '../../comet/fixtures.js'
import { appHashAt, lightChainGenesis, makeLightChain } from './light-chain.js'

const CHUNKS = 5
const chunkOf = (height: number, index: number) => new Uint8Array([height & 0xff, index, 42])
const snapshotAt = (height: number): Snapshot => ({
  height: BigInt(height),
  format: 1,
  chunks: CHUNKS,
  hash: new Uint8Array([height]),
  metadata: new Uint8Array(),
})

/**
 * Peers that have the snapshots of `heights`; `bad` ones serve every chunk with its bytes flipped, and no
 * one serves a chunk of the `deleted` heights any more (listed, then deleted before they were fetched).
 */
function peers(heights: number[], good: string[], bad: string[], deleted: number[] = []): SnapshotSource & { asked: string[] } {
  const asked: string[] = []
  return {
    asked,
    discover(listener) {
      for (const peer of [...bad, ...good]) for (const h of heights) listener(snapshotAt(h), peer)
      return () => {}
    },
    rediscover() {},
    async fetchChunk(peer, snapshot, index) {
      asked.push(`${peer}:${index}`)
      if (deleted.includes(Number(snapshot.height))) throw new Error('no such snapshot')
      const chunk = chunkOf(Number(snapshot.height), index)
      return bad.includes(peer) ? chunk.map((b) => b ^ 0xff) : chunk
    },
  }
}

/** An application that checks each chunk and refuses a wrong one with its sender, as ours does. */
function restoringApp(opts: { refuseHeight?: number; wrongHashAfter?: boolean } = {}) {
  let restoring: Snapshot | undefined
  let next = 0
  let height = 0
  const provider: SnapshotProvider = {
    listSnapshots: async () => [],
    loadSnapshotChunk: async () => new Uint8Array(),
    offerSnapshot: async ({ snapshot }) => {
      if (Number(snapshot!.height) === opts.refuseHeight) return OfferSnapshotResult.Reject
      restoring = snapshot
      next = 0
      return OfferSnapshotResult.Accept
    },
    applySnapshotChunk: async ({ index, chunk, sender }) => {
      const h = Number(restoring!.height)
      if (!equalBytes(chunk, chunkOf(h, index)))
        return { result: ApplySnapshotChunkResult.Retry, refetchChunks: [index], rejectSenders: [sender] }
      next = index + 1
      if (next === CHUNKS) height = h
      return { result: ApplySnapshotChunkResult.Accept, refetchChunks: [], rejectSenders: [] }
    },
  }
  const info = async () => ({
    data: '',
    version: '',
    appVersion: 0n,
    lastBlockHeight: height,
    lastBlockAppHash: opts.wrongHashAfter ? appHashAt(1) : appHashAt(height + 1),
  })
  return { provider, info }
}

function setup(source: SnapshotSource, app: ReturnType<typeof restoringApp>, trustHeight = 5) {
  const chain = makeLightChain(60)
  const light = new LightStateProvider(
    chain.source,
    CHAIN_ID,
    { height: trustHeight, hash: hashHeader(chain.blocks.get(trustHeight)!.header), periodMs: 7 * 24 * 3600_000 },
    () => chain.now,
  )
  const initial = lightChainGenesis(chain)
  const statuses: { complete: boolean; height: number }[] = []
  const syncer = new StateSyncer({
    source,
    snapshots: app.provider,
    info: app.info,
    light,
    discoveryTimeMs: 0,
    chunkRequestTimeoutMs: 5000,
    chunkFetchers: 3,
    logger: silentLogger,
    onStatus: (s) => statuses.push(s),
  })
  return { syncer, initial, statuses }
}

describe('StateSyncer', () => {
  it('restores the best snapshot, fetching every chunk a corrupting peer served from an honest one', async () => {
    const source = peers([40, 50], ['honest'], ['liar'])
    const { syncer, initial, statuses } = setup(source, restoringApp())
    const { state, commit } = await syncer.run(initial, new AbortController().signal)
    expect(state.lastBlockHeight).toBe(50)
    expect(state.appHash).toEqual(appHashAt(51))
    expect(commit.height).toBe(50)
    expect(statuses).toEqual([
      { complete: false, height: 50 },
      { complete: true, height: 50 },
    ])
    // The liar was asked, refused once, and never asked again.
    const liarAsks = source.asked.filter((a) => a.startsWith('liar'))
    expect(liarAsks.length).toBeGreaterThan(0)
    const firstRefusal = source.asked.indexOf(liarAsks[0]!)
    expect(source.asked.slice(firstRefusal + 1).filter((a) => a.startsWith('liar')).length).toBeLessThanOrEqual(2)
    for (let i = 0; i < CHUNKS; i++) expect(source.asked).toContain(`honest:${i}`)
  })

  it('takes the next snapshot when the application refuses one, and ignores those below the trusted height', async () => {
    const { syncer, initial } = setup(peers([3, 40, 50], ['a', 'b'], []), restoringApp({ refuseHeight: 50 }))
    const { state } = await syncer.run(initial, new AbortController().signal)
    expect(state.lastBlockHeight).toBe(40)
  })

  it('gives up a snapshot whose peers no longer serve it, after a few rounds, and restores the next one', async () => {
    const source = peers([40, 50], ['a', 'b'], [], [50])
    const { syncer, initial } = setup(source, restoringApp())
    const { state } = await syncer.run(initial, new AbortController().signal)
    expect(state.lastBlockHeight).toBe(40)
    expect(source.asked.filter((a) => a === 'a:0').length).toBeGreaterThanOrEqual(3)
  })

  it('stops when the restored application disagrees with the verified header', async () => {
    const { syncer, initial } = setup(peers([50], ['a'], []), restoringApp({ wrongHashAfter: true }))
    await expect(syncer.run(initial, new AbortController().signal)).rejects.toBeInstanceOf(StateSyncAbortedError)
  })

  it('keeps discovering while no peer offers a usable snapshot, until stopped', async () => {
    const { syncer, initial } = setup(peers([3], ['a'], []), restoringApp(), 5)
    const controller = new AbortController()
    const running = syncer.run(initial, controller.signal)
    controller.abort(new Error('stopped'))
    await expect(running).rejects.toThrow('stopped')
  })
})
