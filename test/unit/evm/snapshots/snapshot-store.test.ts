import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { decodeMetadata, hashChunk, hashSnapshot } from '../../../../src/evm/snapshots/snapshot-format.js'
import { SnapshotStore } from '../../../../src/evm/snapshots/snapshot-store.js'

const bytes = (...values: number[]) => new Uint8Array(values)

describe('snapshot store', () => {
  let dir: string
  let store: SnapshotStore
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodectl-snapshot-store-'))
    store = new SnapshotStore(join(dir, 'snapshots'))
    await store.open()
  })
  afterEach(() => rm(dir, { recursive: true, force: true }))

  async function save(height: number, chunks: Uint8Array[]): Promise<void> {
    const writer = await store.create(height, 1)
    for (const c of chunks) await writer.addChunk(c)
    await writer.finish()
  }

  it('lists a finished snapshot with its chunk hashes, newest first, and serves its chunks', async () => {
    await save(10, [bytes(1, 2), bytes(3)])
    await save(20, [bytes(4)])
    const list = await store.list()
    expect(list.map((s) => s.height)).toEqual([20, 10])
    const ten = list[1]!
    expect(ten.chunks).toBe(2)
    expect(decodeMetadata(ten.metadata)).toEqual([hashChunk(bytes(1, 2)), hashChunk(bytes(3))])
    expect(ten.hash).toEqual(hashSnapshot([hashChunk(bytes(1, 2)), hashChunk(bytes(3))]))
    expect(await store.loadChunk(10, 1, 1)).toEqual(bytes(3))
    expect(await store.loadChunk(10, 1, 2)).toBeUndefined()
    expect(await store.loadChunk(10, 2, 0)).toBeUndefined()
  })

  it('never lists a snapshot whose writing did not finish, and removes it at the next open', async () => {
    const writer = await store.create(30, 1)
    await writer.addChunk(bytes(9))
    // The process dies here: no manifest, the directory still partial.
    expect(await store.list()).toEqual([])
    const reopened = new SnapshotStore(store.dir)
    await reopened.open()
    expect(await readdir(store.dir)).toEqual([])
  })

  it('keeps the newest snapshots and deletes the older ones', async () => {
    for (const h of [5, 10, 15, 20]) await save(h, [bytes(h)])
    expect(await store.prune(2)).toEqual([10, 5])
    expect((await store.list()).map((s) => s.height)).toEqual([20, 15])
    expect((await readdir(store.dir)).sort()).toEqual(['15-1', '20-1'])
  })
})
