/**
 * The node's one LevelDB. Keys and values are bytes; each store uses its own one-byte-or-more prefix
 * (see `prefixes.ts`). Nothing here decides what belongs to a height: each owner (the application, the
 * consensus engine) gathers its writes in a `WriteStage` of its own (`createStage`) and writes it with
 * one atomic batch when its protocol step says so, so a crash leaves each owner's data either before or
 * after that write, never half of it. Reads see every stage's writes first, then LevelDB.
 *
 * The store is opened for several threads of this process (classic-level's `multithreading`): the
 * eth_call workers (evm/calls/call-workers.ts) open it again at the same path and read what is
 * written, never what is only staged.
 */
import { Level } from 'level'
import { EventLoopYield } from '../utils/event-loop-yield.js'
import { WriteStage, keyId, type BatchOp, type StagedEntry } from './write-stage.js'

type Bytes = Uint8Array

/**
 * Operations of a batch between two clock reads while it is filled (a power of 2): classic-level takes
 * an operation in about 4 µs on this machine, so about a millisecond; a smaller batch goes in one call.
 */
const OPS_PER_SLICE = 256

export interface DatabaseOptions {
  /** Directory of the LevelDB (created when missing). */
  path: string
}

export class Database {
  private readonly level: Level<Bytes, Bytes>
  /** Every owner's stage, looked up by reads. */
  private readonly stages: WriteStage[] = []
  /** The stages' writes kept by `holdWrites`, looked up after the stages (they are older). */
  private readonly held: WriteStage
  private holding = false

  constructor(readonly opts: DatabaseOptions) {
    this.level = new Level<Bytes, Bytes>(opts.path, { keyEncoding: 'view', valueEncoding: 'view', multithreading: true })
    this.held = new WriteStage((ops: BatchOp[]) => this.level.batch(ops))
  }

  async open(): Promise<void> {
    await this.level.open()
  }

  async close(): Promise<void> {
    if (this.level.status === 'open') await this.level.close()
  }

  /** A new stage for one owner's writes, written by its own `write()` in one atomic batch. */
  createStage(): WriteStage {
    const stage = new WriteStage((ops: BatchOp[]) => this.writeOrHold(ops))
    this.stages.push(stage)
    return stage
  }

  /**
   * From now until `releaseWrites`, each stage's `write` is kept in memory (read as staged data) instead
   * of being written: a dev chain's run of heights (docs/dev-chain.md, "Mining") is written with one
   * atomic batch, so a crash leaves all of its heights or none, and thousands of heights do not cost
   * thousands of batches. Scans (`keys`, `iterate`) see the held writes once released, as any stage's.
   */
  holdWrites(): void {
    this.holding = true
  }

  /** Whether writes are held in memory (`holdWrites`): what a stage writes now is not on disk yet. */
  get holdingWrites(): boolean {
    return this.holding
  }

  /** Writes what `holdWrites` kept, in one atomic batch, and writes through again. */
  async releaseWrites(): Promise<void> {
    this.holding = false
    await this.held.write()
  }

  private async writeOrHold(ops: BatchOp[]): Promise<void> {
    if (!this.holding) return this.writeSliced(ops)
    for (const op of ops) {
      if (op.type === 'put') this.held.put(op.key, op.value)
      else this.held.del(op.key)
    }
  }

  /**
   * Writes `ops` in one atomic batch, filled a slice at a time. Handed over in one call, the tens of
   * thousands of operations of a large block (its index entries, results, trie nodes, receipts) hold
   * the main thread for tens of milliseconds while classic-level copies each key and value in, and
   * every admission and read waits. A chained batch takes them one by one, so the filling hands the
   * event loop over every few milliseconds, and is written once: as atomic as the array form.
   */
  private async writeSliced(ops: BatchOp[]): Promise<void> {
    if (ops.length <= OPS_PER_SLICE) return this.level.batch(ops)
    const batch = this.level.batch()
    const pace = new EventLoopYield(OPS_PER_SLICE)
    try {
      for (const op of ops) {
        if (op.type === 'put') batch.put(op.key, op.value)
        else batch.del(op.key)
        const turn = pace.poll()
        if (turn !== undefined) await turn
      }
    } catch (err) {
      await batch.close()
      throw err
    }
    await batch.write()
  }

  /** Reads a value, seeing staged (unwritten) writes first. */
  async get(key: Bytes): Promise<Bytes | undefined> {
    const s = this.lookupStaged(key)
    if (s) return s[1] ?? undefined
    return (await this.level.get(key)) ?? undefined
  }

  /**
   * Reads a value without leaving the thread, seeing staged writes first: for small reads that a caller
   * awaits one after another (trie nodes on a path), where the round trip through libuv's thread pool
   * costs more than LevelDB's read from its block cache or the page cache.
   */
  getSync(key: Bytes): Bytes | undefined {
    const s = this.lookupStaged(key)
    if (s) return s[1] ?? undefined
    return this.level.getSync(key) ?? undefined
  }

  /**
   * Reads many values in one call (written data, under the writes staged or being written when the
   * call is made). The stages are looked up first, as `get` does: looked up after LevelDB's answer, a
   * batch written meanwhile would be in neither (read before its write, gone from the stage).
   */
  async getMany(keys: Bytes[]): Promise<(Bytes | undefined)[]> {
    const staged = keys.map((k) => this.lookupStaged(k))
    const values = await this.level.getMany(keys)
    return keys.map((_, i) => {
      const s = staged[i]
      return s ? (s[1] ?? undefined) : (values[i] ?? undefined)
    })
  }

  private lookupStaged(key: Bytes): StagedEntry | undefined {
    let id: string | undefined
    for (const stage of this.stages) {
      if (stage.isEmpty) continue
      id ??= keyId(key)
      const entry = stage.find(id)
      if (entry) return entry
    }
    if (this.held.isEmpty) return undefined
    return this.held.find(id ?? keyId(key))
  }

  /** Writes immediately (outside any stage): for data that is not part of a height. */
  async put(key: Bytes, value: Bytes): Promise<void> {
    await this.level.put(key, value)
  }

  /** Writes `ops` immediately in one batch (outside any stage): for content-addressed data such as trie nodes. */
  async batch(ops: BatchOp[]): Promise<void> {
    await this.level.batch(ops)
  }

  /** Deletes immediately (outside any stage). */
  async del(key: Bytes): Promise<void> {
    await this.level.del(key)
  }

  /**
   * The committed keys in [gte, lt), in order: one native call per few hundred keys instead of one
   * promise per entry (an index scan of thousands of keys takes a millisecond or two, not tens).
   */
  async keys(range: { gte: Bytes; lt: Bytes; limit?: number }): Promise<Bytes[]> {
    return this.level.keys({ gte: range.gte, lt: range.lt, limit: range.limit ?? -1 }).all()
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
