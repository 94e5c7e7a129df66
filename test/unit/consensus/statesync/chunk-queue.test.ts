import { describe, expect, it } from 'vitest'
import { ChunkQueue } from '../../../../src/consensus/statesync/chunk-queue.js'
import { SnapshotPool } from '../../../../src/consensus/statesync/snapshot-pool.js'

const bytes = (n: number) => new Uint8Array([n])

describe('ChunkQueue', () => {
  it('hands out missing chunks to fetchers and applies them strictly in order', () => {
    const q = new ChunkQueue(3)
    expect([q.allocate(), q.allocate(), q.allocate(), q.allocate()]).toEqual([0, 1, 2, undefined])
    q.add({ index: 1, data: bytes(1), sender: 'a' })
    expect(q.next()).toBeUndefined()
    q.add({ index: 0, data: bytes(0), sender: 'a' })
    expect(q.next()?.index).toBe(0)
    q.markApplied(0)
    expect(q.next()?.index).toBe(1)
    q.markApplied(1)
    q.failed(2)
    expect(q.allocate()).toBe(2)
    q.add({ index: 2, data: bytes(2), sender: 'b' })
    q.markApplied(2)
    expect(q.done).toBe(true)
  })

  it('fetches a discarded chunk again, not from its sender, and applies it again from there', () => {
    const q = new ChunkQueue(3)
    for (let i = 0; i < 3; i++) {
      q.allocate()
      q.add({ index: i, data: bytes(i), sender: i === 1 ? 'bad' : 'good' })
    }
    q.markApplied(0)
    q.markApplied(1)
    q.discard(1)
    expect(q.applied).toBe(1)
    expect(q.bannedFor(1).has('bad')).toBe(true)
    expect(q.allocate()).toBe(1)
    expect(q.add({ index: 1, data: bytes(1), sender: 'good' })).toBe(true)
    expect(q.next()?.sender).toBe('good')
  })

  it('drops the unapplied chunks of a rejected sender', () => {
    const q = new ChunkQueue(3)
    for (let i = 0; i < 3; i++) {
      q.allocate()
      q.add({ index: i, data: bytes(i), sender: i === 0 ? 'good' : 'bad' })
    }
    q.discardSender('bad')
    expect([q.allocate(), q.allocate(), q.allocate()]).toEqual([1, 2, undefined])
    expect(q.next()?.index).toBe(0)
  })
})

describe('SnapshotPool', () => {
  const snap = (height: number, format = 1) => ({ height: BigInt(height), format, chunks: 1, hash: bytes(height), metadata: bytes(0) })

  it('offers the highest snapshot, at or above the trusted height, from peers not refused', () => {
    const pool = new SnapshotPool()
    pool.add(snap(100), 'a')
    pool.add(snap(200), 'b')
    pool.add(snap(200), 'c')
    expect(pool.best()?.height).toBe(200n)
    expect(pool.peersOf(snap(200))).toEqual(['b', 'c'])
    pool.rejectPeer('b')
    expect(pool.peersOf(snap(200))).toEqual(['c'])
    pool.reject(snap(200))
    expect(pool.best()?.height).toBe(100n)
    expect(pool.best(150)).toBeUndefined()
    pool.rejectFormat(1)
    expect(pool.best()).toBeUndefined()
  })
})
