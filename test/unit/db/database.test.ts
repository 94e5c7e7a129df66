/**
 * The Database's batches as other threads see them: a write staged now joins the batch `batchNumber`
 * names, which `isWritten` reports only once LevelDB has it; and a second Database at the same path
 * (a call worker's) reads what is written, never what is only staged.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { Database } from '../../../src/db/database.js'

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

describe('Database batches', () => {
  it('numbers batches and reports one written only once LevelDB has it', async () => {
    const db = await open()
    expect(db.batchNumber).toBe(1)
    db.stagePut(key, value)
    const batch = db.batchNumber
    const writing = db.commitStaged()
    // Staged writes after this join the next batch; this one is not in LevelDB yet.
    expect(db.batchNumber).toBe(2)
    expect(db.isWritten(batch)).toBe(false)
    await writing
    expect(db.isWritten(batch)).toBe(true)
    expect(db.isWritten(batch + 1)).toBe(false)
    // Nothing staged: no batch, the number stays.
    await db.commitStaged()
    expect(db.batchNumber).toBe(2)
  })

  it('is readable by a second instance at the same path (another thread), staged writes excepted', async () => {
    const db = await open()
    const other = await open(db.opts.path)
    db.stagePut(key, value)
    expect(await db.get(key)).toEqual(value)
    expect(await other.get(key)).toBeUndefined()
    await db.commitStaged()
    expect([...((await other.get(key)) ?? [])]).toEqual([...value])
  })
})

describe('Database appended writes', () => {
  it('writes appended entries with the height batch, keeps them out of staged reads, and drops them with it', async () => {
    const db = await open()
    const other = Uint8Array.of(4, 5)
    db.stageAppend(key, value)
    db.stagePut(other, value)
    expect(db.stagedCount).toBe(2)
    expect(await db.get(key)).toBeUndefined()
    db.discardStaged()
    expect(db.stagedCount).toBe(0)
    db.stageAppend(key, value)
    await db.commitStaged()
    expect(Uint8Array.from((await db.get(key))!)).toEqual(value)
    expect(await db.get(other)).toBeUndefined()
  })
})

describe('Database reads during a flush', () => {
  it('getMany sees a batch being flushed even when LevelDB answers from before its write', async () => {
    const db = await open()
    db.stagePut(key, value)
    const writing = db.commitStaged()
    // LevelDB read the key before the batch landed, and answers once the flush is over.
    const level = (db as unknown as { level: { getMany(keys: Uint8Array[]): Promise<unknown[]> } }).level
    level.getMany = (keys) => writing.then(() => keys.map(() => undefined))
    const [read] = await db.getMany([key])
    expect(Uint8Array.from(read!)).toEqual(value)
  })
})
