/**
 * Each owner's stage of writes: read back through the Database while staged and while being written,
 * written in one batch by its own `write()` (another owner's stage stays staged), dropped by
 * `discard()`; a second Database at the same path (a call worker's) reads what is written, never what
 * is only staged. A large stage is written whole (its batch filled a slice at a time); a scratch
 * stage's writes appear in its owner's stage at once when absorbed.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Database } from '../../../src/db/database.js'
import { WriteStage } from '../../../src/db/write-stage.js'

const dirs: string[] = []
const opened: Database[] = []
afterEach(async () => {
  for (const db of opened.splice(0).reverse()) await db.close()
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })))
})

/** A database in a new directory, or at `path`; closed after the test. */
async function open(path?: string): Promise<Database> {
  const dir = path ?? (await mkdtemp(join(tmpdir(), 'nodectl-db-')))
  if (!path) dirs.push(dir)
  const db = new Database({ path: dir })
  await db.open()
  opened.push(db)
  return db
}

const key = Uint8Array.of(1, 2, 3)
const value = Uint8Array.of(9)

describe('Database stages', () => {
  it("writes one owner's stage only: the other stays staged and readable", async () => {
    const db = await open()
    const other = await open(db.opts.path)
    const app = db.createStage()
    const engine = db.createStage()
    const engineKey = Uint8Array.of(7)
    app.put(key, value)
    engine.put(engineKey, value)
    expect(await db.get(key)).toEqual(value)
    expect(await db.get(engineKey)).toEqual(value)
    await app.write()
    expect(app.size).toBe(0)
    expect(engine.size).toBe(1)
    expect([...((await other.get(key)) ?? [])]).toEqual([...value])
    expect(await other.get(engineKey)).toBeUndefined()
    // Nothing staged: no batch.
    await app.write()
    engine.discard()
    expect(await db.get(engineKey)).toBeUndefined()
  })

  it('restores a snapshot after a discard: what was staged before comes back, what came after does not', async () => {
    const db = await open()
    const stage = db.createStage()
    const later = Uint8Array.of(4, 5)
    stage.put(key, value)
    const snapshot = stage.snapshot()
    stage.put(later, value)
    stage.discard()
    stage.restore(snapshot)
    await stage.write()
    expect([...((await db.get(key)) ?? [])]).toEqual([...value])
    expect(await db.get(later)).toBeUndefined()
  })
})

describe('Database large stages', () => {
  /** The 4-byte big-endian key of `i`. */
  const keyOf = (i: number): Uint8Array => Uint8Array.of(i >>> 24, (i >>> 16) & 0xff, (i >>> 8) & 0xff, i & 0xff)

  it('writes a stage of thousands of puts and deletes whole, in one batch another handle sees', async () => {
    const db = await open()
    const other = await open(db.opts.path)
    const stage = db.createStage()
    const count = 5_000
    for (let i = 0; i < count; i++) stage.put(keyOf(i), value)
    await stage.write()
    for (let i = 0; i < count; i += 2) stage.del(keyOf(i))
    for (let i = 0; i < count; i++) stage.append(keyOf(count + i), value)
    await stage.write()
    const keys = Array.from({ length: 2 * count }, (_, i) => keyOf(i))
    const read = await other.getMany(keys)
    expect(read.filter((v) => v !== undefined)).toHaveLength(count / 2 + count)
    expect(read.slice(0, count).every((v, i) => (i % 2 === 0 ? v === undefined : v !== undefined))).toBe(true)
  })

  it("moves a scratch stage's writes into its owner's stage at once, readable and written with it", async () => {
    const db = await open()
    const stage = db.createStage()
    const scratch = WriteStage.scratch()
    const appended = Uint8Array.of(4, 5)
    scratch.put(key, value)
    scratch.append(appended, value)
    expect(await db.get(key)).toBeUndefined()
    stage.absorb(scratch)
    expect(scratch.size).toBe(0)
    expect(stage.size).toBe(2)
    expect(await db.get(key)).toEqual(value)
    await stage.write()
    expect(Uint8Array.from((await db.get(appended))!)).toEqual(value)
    await expect(WriteStage.scratch().write()).resolves.toBeUndefined()
    const unwritable = WriteStage.scratch()
    unwritable.put(key, value)
    await expect(unwritable.write()).rejects.toThrow(/never written/)
  })
})

describe('Database appended writes', () => {
  it('writes appended entries with the stage, keeps them out of staged reads, and drops them with it', async () => {
    const db = await open()
    const stage = db.createStage()
    const other = Uint8Array.of(4, 5)
    stage.append(key, value)
    stage.put(other, value)
    expect(stage.size).toBe(2)
    expect(await db.get(key)).toBeUndefined()
    stage.discard()
    expect(stage.size).toBe(0)
    stage.append(key, value)
    await stage.write()
    expect(Uint8Array.from((await db.get(key))!)).toEqual(value)
    expect(await db.get(other)).toBeUndefined()
  })
})

describe('Database reads during a write', () => {
  it('getMany sees a stage being written even when LevelDB answers from before its write', async () => {
    const db = await open()
    const stage = db.createStage()
    stage.put(key, value)
    const writing = stage.write()
    // LevelDB read the key before the batch landed, and answers once the write is over.
    const level = (db as unknown as { level: { getMany(keys: Uint8Array[]): Promise<unknown[]> } }).level
    level.getMany = (keys) => writing.then(() => keys.map(() => undefined))
    const [read] = await db.getMany([key])
    expect(Uint8Array.from(read!)).toEqual(value)
  })
})
