/**
 * The node's one LevelDB. Keys and values are bytes; each store uses its own one-byte-or-more prefix
 * (see `prefixes.ts`). Writes for a height are staged in memory and written with one atomic
 * `level.batch` (`commitStaged`), so a crash leaves either the old height or the new one.
 *
 * The store is opened for several threads of this process (classic-level's `multithreading`): the
 * eth_call workers (evm/calls/call-workers.ts) open it again at the same path and read what is
 * written. Which batches that covers is told by `batchNumber` and `isWritten`.
 */
import { Level } from 'level'
import { latin1 } from '../primitives/hex.js'

type Bytes = Uint8Array
type BatchOp = { type: 'put'; key: Bytes; value: Bytes } | { type: 'del'; key: Bytes }

export interface DatabaseOptions {
  /** Directory of the LevelDB (created when missing). */
  path: string
}

export class Database {
  private readonly level: Level<Bytes, Bytes>
  /** Staged writes: key id → [key, value | null (delete)]. */
  private staged = new Map<string, [Bytes, Bytes | null]>()
  /** Staged writes no read looks up (`stageAppend`), in the order staged. */
  private appended: BatchOp[] = []
  /** Writes being flushed by `commitStaged`: still readable until LevelDB has them. */
  private flushing: Map<string, [Bytes, Bytes | null]> | undefined
  /** The number of the batch that staged writes join (batches are numbered from 1, written in order). */
  private staging = 1
  /** The number of the last batch LevelDB has (0: none yet). */
  private written = 0

  constructor(readonly opts: DatabaseOptions) {
    this.level = new Level<Bytes, Bytes>(opts.path, { keyEncoding: 'view', valueEncoding: 'view', multithreading: true })
  }

  async open(): Promise<void> {
    await this.level.open()
  }

  async close(): Promise<void> {
    if (this.level.status === 'open') await this.level.close()
  }

  /** Reads a value, seeing staged (uncommitted) writes first. */
  async get(key: Bytes): Promise<Bytes | undefined> {
    const s = this.lookupStaged(key)
    if (s) return s[1] ?? undefined
    return (await this.level.get(key)) ?? undefined
  }

  /**
   * Reads many values in one call (committed data, under the writes staged or being flushed when the
   * call is made). The staged writes are looked up first, as `get` does: looked up after LevelDB's
   * answer, a batch flushed meanwhile would be in neither (read before its write, gone from the stage).
   */
  async getMany(keys: Bytes[]): Promise<(Bytes | undefined)[]> {
    const staged = keys.map((k) => this.lookupStaged(k))
    const values = await this.level.getMany(keys)
    return keys.map((_, i) => {
      const s = staged[i]
      return s ? (s[1] ?? undefined) : (values[i] ?? undefined)
    })
  }

  private lookupStaged(key: Bytes): [Bytes, Bytes | null] | undefined {
    if (this.staged.size === 0 && this.flushing === undefined) return undefined
    const id = keyId(key)
    return this.staged.get(id) ?? this.flushing?.get(id)
  }

  /** Reads committed data only, bypassing staged writes. */
  async getCommitted(key: Bytes): Promise<Bytes | undefined> {
    return (await this.level.get(key)) ?? undefined
  }

  /** Writes immediately (outside any height batch): for data that is not part of a height. */
  async put(key: Bytes, value: Bytes): Promise<void> {
    await this.level.put(key, value)
  }

  /** Deletes immediately (outside any height batch). */
  async del(key: Bytes): Promise<void> {
    await this.level.del(key)
  }

  stagePut(key: Bytes, value: Bytes): void {
    this.staged.set(keyId(key), [key, value])
  }

  /**
   * Stages a write that no read looks up before it is written and no other staged write repeats
   * (index entries, which are only scanned, and scans read written batches only): it skips the map
   * that serves reads of staged data and keeps a key written once.
   */
  stageAppend(key: Bytes, value: Bytes): void {
    this.appended.push({ type: 'put', key, value })
  }

  stageDel(key: Bytes): void {
    this.staged.set(keyId(key), [key, null])
  }

  get stagedCount(): number {
    return this.staged.size + this.appended.length
  }

  /** The number of the batch a write staged now will be written with. */
  get batchNumber(): number {
    return this.staging
  }

  /** Whether batch `n` (a `batchNumber` read earlier) is in LevelDB, readable by other threads. */
  isWritten(n: number): boolean {
    return this.written >= n
  }

  /** Writes every staged operation in one atomic batch and clears the stage. */
  async commitStaged(): Promise<void> {
    if (this.staged.size === 0 && this.appended.length === 0) return
    const batch = this.staging++
    const ops: BatchOp[] = this.appended
    for (const [key, value] of this.staged.values()) {
      ops.push(value === null ? { type: 'del', key } : { type: 'put', key, value })
    }
    this.flushing = this.staged
    this.staged = new Map()
    this.appended = []
    try {
      await this.level.batch(ops)
      this.written = batch
    } finally {
      this.flushing = undefined
    }
  }

  /** Drops every staged operation (a failed height). */
  discardStaged(): void {
    this.staged = new Map()
    this.appended = []
  }

  /**
   * The committed keys in [gte, lt), in order: one native call per few hundred keys instead of one
   * promise per entry (an index scan of thousands of keys takes a millisecond or two, not tens).
   */
  async keys(range: { gte: Bytes; lt: Bytes }): Promise<Bytes[]> {
    return this.level.keys({ gte: range.gte, lt: range.lt }).all()
  }

  /** Iterates committed keys in [gte, lt) in order (or reverse). */
  async *iterate(range: { gte: Bytes; lt: Bytes; reverse?: boolean; limit?: number }): AsyncGenerator<[Bytes, Bytes]> {
    for await (const entry of this.level.iterator({
      gte: range.gte,
      lt: range.lt,
      reverse: range.reverse ?? false,
      limit: range.limit ?? -1,
    })) {
      yield entry as [Bytes, Bytes]
    }
  }
}

function keyId(key: Bytes): string {
  return latin1(key)
}
