/**
 * Prunes the EVM state: deletes the trie nodes and code that no kept height's state root reaches.
 * Kept: the latest height and `keepRecent` below it, and every height from the lowest pinned one up.
 *
 * Reference counts. Nodes are content-addressed and shared between heights (and between identical
 * subtries of one height), so each stored node or code has a count on disk (prune-store.ts): one per
 * reference from a counted node (a branch's or extension's children, an account leaf's storage root
 * and code) plus one per kept height whose state root it is. A node counted for the first time
 * counts its children; a node whose count falls to 0 is freed: deleted, its record removed, its
 * children's counts lowered, and so on down.
 *
 * Journals. While a height executes, the trie adapter tells `noteWrite` every key it stages; Commit
 * stages that list (the height's journal) with the height, in its one batch. Every `interval` heights
 * a run, in the background after Commit, (1) counts each committed height not yet counted: the nodes
 * of its journal not counted yet, then its state root; the journal is replaced by the height's root and
 * its death row (the journal's nodes nothing references: those written and replaced within the
 * block); (2) releases each height that left the window: its root's count is lowered and its death
 * row freed where still at 0. Each height's counting and each height's release is one atomic batch with
 * the meta record of how far the pruner got, so a crash leaves the counts of a step before or after it.
 * The first run counts the state of the height before the first journal by walking it (the baseline):
 * heights below that were never counted and are refused from then on.
 *
 * Safety. A node reachable from a counted kept root has a count of at least 1 and is never freed. The
 * blocks committed while a run goes on are not counted yet; they reach only nodes that the height
 * before them reached or that they staged themselves (a trie writes every node of a path it changes, and
 * a block's code is written by its deployment), so by induction, only nodes reachable from the last
 * counted height (held) or staged since the run began. The latter are kept in `fresh` and never
 * deleted by this run: their record goes (they are counted again with the height that staged them),
 * the node stays. The check and the batch happen under the write lock Commit also takes, so a block's
 * write of a node cannot land before a deletion of it decided earlier. A crash between steps leaves at
 * worst garbage (a node freed in memory but not yet deleted), never a missing node.
 */
import type { Database } from '../../db/database.js'
import type { BatchOp, WriteStage } from '../../db/write-stage.js'
import type { Logger } from '../../utils/logger.js'
import { EventLoopYield } from '../../utils/event-loop-yield.js'
import {
  COUNTED_KEY,
  FIRST_JOURNALED_KEY,
  JOURNAL_RANGE,
  LOWEST_STATE_KEY,
  RECORD_RANGE,
  RefCounts,
  decodeHeight,
  decodeKeys,
  encodeHeight,
  encodeKeys,
  journalKey,
} from './prune-store.js'
import { referencedKeys } from './trie-node-refs.js'
import { trieKey } from './trie-db.js'
import { WriteLock } from '../../db/write-lock.js'

export interface StatePrunerOptions {
  db: Database
  /** Heights of state kept below the latest. */
  keepRecent: number
  /** Heights between two runs. */
  interval: number
  /** The state root of a committed height (from the EVM store). */
  stateRootAt(height: number): Promise<Uint8Array | undefined>
  logger: Logger
}

/** Record changes above which a baseline walk writes what it has. */
const BASELINE_BATCH = 50_000

export class StatePruner {
  /** Serialises the pruner's batches with the application's Commit writes. */
  readonly writeLock = new WriteLock()
  private readonly db: Database
  /** Keys staged by the height being executed: its journal. */
  private noted = new Set<string>()
  /** Keys staged since the running run began: never deleted by it. */
  private fresh: Set<string> | undefined
  private firstJournaled: number | undefined
  private lowest = 0
  private readonly pins = new Map<number, number>()
  private running: Promise<void> | undefined
  private closing = false
  private readonly yielder = new EventLoopYield(64)

  constructor(private readonly opts: StatePrunerOptions) {
    this.db = opts.db
  }

  /** Loads how far pruning got; `earliest` is the lowest height with state when nothing was pruned yet. */
  async open(earliest: number): Promise<void> {
    this.firstJournaled = decodeHeight(await this.db.get(FIRST_JOURNALED_KEY))
    this.lowest = decodeHeight(await this.db.get(LOWEST_STATE_KEY)) ?? earliest
  }

  /** The lowest height whose state is still on disk: reads below it are refused. */
  lowestStateHeight(): number {
    return this.lowest
  }

  /** The trie adapter staged `key` (a node or code). */
  noteWrite(key: string): void {
    this.noted.add(key)
    this.fresh?.add(key)
  }

  /** The executed height was abandoned: its writes are dropped, and its journal with them. */
  forgetHeight(): void {
    this.noted = new Set()
  }

  /** Stages the committed height's journal into `stage` (written with the height). */
  stageJournal(stage: WriteStage, height: number): void {
    if (this.firstJournaled === undefined) {
      this.firstJournaled = height
      stage.put(FIRST_JOURNALED_KEY, encodeHeight(height))
    }
    stage.put(journalKey(height), encodeKeys(this.noted))
    this.noted = new Set()
  }

  /**
   * Keeps `height`'s state until `unpin` (a snapshot being exported): no height from it up is pruned.
   * Throws when it is already pruned.
   */
  pin(height: number): void {
    if (height < this.lowest) throw new Error(`state of height ${height} is pruned (lowest height with state: ${this.lowest})`)
    this.pins.set(height, (this.pins.get(height) ?? 0) + 1)
  }

  unpin(height: number): void {
    const n = this.pins.get(height) ?? 0
    if (n <= 1) this.pins.delete(height)
    else this.pins.set(height, n - 1)
  }

  /** After Commit of `height`: starts a run every `interval` heights, unless one is going on. */
  afterCommit(height: number): void {
    if (this.running || this.closing || height % this.opts.interval !== 0) return
    this.fresh = new Set()
    this.running = this.run(height)
      // The next run starts over from what is written; the heights left are pruned then.
      .catch((err: unknown) => this.opts.logger.error('state pruning failed', { err: err instanceof Error ? err.message : String(err) }))
      .finally(() => {
        this.fresh = undefined
        this.running = undefined
      })
  }

  /** Settles when no run is going on. */
  async idle(): Promise<void> {
    await this.running
  }

  /** Stops after the current step. */
  async close(): Promise<void> {
    this.closing = true
    await this.running
  }

  private async run(head: number): Promise<void> {
    const started = performance.now()
    const counts = new RefCounts(this.db)
    let counted = decodeHeight(await this.db.get(COUNTED_KEY))
    if (counted === undefined) {
      if (this.firstJournaled === undefined) return
      counted = this.firstJournaled - 1
      await this.baseline(counts, counted)
    }
    for (let h = counted + 1; h <= head && !this.closing; h++) await this.count(counts, h)
    const from = this.lowest
    // Pins are looked at before each release: one may come while the run goes on.
    for (let h = this.lowest; h < this.releaseEnd(head) && !this.closing; h++) {
      try {
        await this.release(counts, h)
      } catch (err) {
        // Its batch was not written: the height is whole, and the next run releases it.
        this.lowest = h
        throw err
      }
    }
    this.opts.logger.info('pruned state', {
      head,
      released: Math.max(0, this.lowest - from),
      lowest: this.lowest,
      ms: Math.round(performance.now() - started),
    })
  }

  /** The first height a run up to `head` keeps: `keepRecent` below the head, or the lowest pinned height. */
  private releaseEnd(head: number): number {
    let end = head - this.opts.keepRecent
    for (const pinned of this.pins.keys()) end = Math.min(end, pinned)
    return end
  }

  /**
   * Counts the state of height `base` by walking it from its root: the counts of a node's references,
   * each node's children walked once. Earlier records (a baseline a crash cut short) are cleared first.
   */
  private async baseline(counts: RefCounts, base: number): Promise<void> {
    await this.clearRange(RECORD_RANGE)
    await this.clearRange({ gte: JOURNAL_RANGE.gte, lt: journalKey(base + 1) })
    const root = await this.rootHex(base)
    await this.addRef(counts, root, async () => {
      if (counts.size >= BASELINE_BATCH) await this.write(counts.takeOps())
    })
    const ops = counts.takeOps()
    ops.push({ type: 'put', key: journalKey(base), value: encodeKeys([root]) })
    ops.push({ type: 'put', key: COUNTED_KEY, value: encodeHeight(base) })
    ops.push({ type: 'put', key: LOWEST_STATE_KEY, value: encodeHeight(base) })
    this.lowest = base
    await this.write(ops)
  }

  /** Counts committed height `h`: its journal's new nodes, then its root; its journal becomes root + death row. */
  private async count(counts: RefCounts, h: number): Promise<void> {
    const journal = decodeKeys(await this.db.get(journalKey(h)))
    await counts.prefetch(journal)
    const uncounted: string[] = []
    for (const key of journal) if ((await counts.get(key)) === undefined) uncounted.push(key)
    const values = await this.db.getMany(uncounted.map(trieKey))
    const refs = uncounted.map((key, i) => (values[i] ? referencedKeys(key, values[i]) : undefined))
    await counts.prefetch(refs.flatMap((r) => r ?? []))
    for (const [i, key] of uncounted.entries()) {
      const children = refs[i]
      if (children === undefined || (await counts.get(key)) !== undefined) continue
      counts.set(key, 0)
      for (const child of children) await this.addRef(counts, child)
    }
    const root = await this.rootHex(h)
    await this.addRef(counts, root)
    const deathRow: string[] = [root]
    for (const key of new Set(journal)) if ((await counts.get(key)) === 0) deathRow.push(key)
    const ops = counts.takeOps()
    ops.push({ type: 'put', key: journalKey(h), value: encodeKeys(deathRow) })
    ops.push({ type: 'put', key: COUNTED_KEY, value: encodeHeight(h) })
    await this.write(ops)
  }

  /** Releases height `h`: lowers its root's count and frees its death row where nothing references it. */
  private async release(counts: RefCounts, h: number): Promise<void> {
    // Readers are refused from now on: the nodes go below.
    this.lowest = h + 1
    const [root, ...deathRow] = decodeKeys(await this.db.get(journalKey(h)))
    const freed: string[] = []
    if (root !== undefined) {
      const n = await counts.get(root)
      if (n !== undefined) {
        counts.set(root, n - 1)
        if (n <= 1) await this.free(counts, root, freed)
      }
    }
    for (const key of deathRow) if ((await counts.get(key)) === 0) await this.free(counts, key, freed)
    const ops = counts.takeOps()
    ops.push({ type: 'del', key: journalKey(h) })
    ops.push({ type: 'put', key: LOWEST_STATE_KEY, value: encodeHeight(h + 1) })
    await this.writeLock.run(() => {
      // Decided under the lock: a node staged since the run began stays, whatever was decided before.
      for (const key of freed) if (!this.fresh?.has(key)) ops.push({ type: 'del', key: trieKey(key) })
      return this.db.batch(ops)
    })
  }

  /** Adds one reference to `key`; a node counted for the first time adds one to each of its references. */
  private async addRef(counts: RefCounts, key: string, afterEach?: () => Promise<void>): Promise<void> {
    const stack = [key]
    while (stack.length > 0) {
      const k = stack.pop()!
      const n = await counts.get(k)
      if (n !== undefined) counts.set(k, n + 1)
      else {
        const value = await this.readStored(k)
        if (value === undefined) continue
        counts.set(k, 1)
        for (const child of referencedKeys(k, value)) stack.push(child)
      }
      await afterEach?.()
      await this.yielder.poll()
    }
  }

  /** Frees `key` (count 0): its record goes, its references lose one, and those at 0 are freed too. */
  private async free(counts: RefCounts, key: string, freed: string[]): Promise<void> {
    const stack = [key]
    while (stack.length > 0) {
      const k = stack.pop()!
      const value = await this.readStored(k)
      counts.remove(k)
      freed.push(k)
      if (value === undefined) continue
      for (const child of referencedKeys(k, value)) {
        const n = await counts.get(child)
        if (n === undefined) continue
        counts.set(child, n - 1)
        if (n === 1) stack.push(child)
      }
      await this.yielder.poll()
    }
  }

  private readStored(key: string): Promise<Uint8Array | undefined> {
    return this.db.get(trieKey(key))
  }

  private async rootHex(height: number): Promise<string> {
    const root = await this.opts.stateRootAt(height)
    if (!root) throw new Error(`state root of height ${height} missing`)
    return Buffer.from(root).toString('hex')
  }

  private write(ops: BatchOp[]): Promise<void> {
    return this.writeLock.run(() => this.db.batch(ops))
  }

  private async clearRange(range: { gte: Uint8Array; lt: Uint8Array }): Promise<void> {
    for (;;) {
      const keys: Uint8Array[] = []
      for await (const [key] of this.db.iterate({ ...range, limit: BASELINE_BATCH })) keys.push(key)
      if (keys.length === 0) return
      await this.db.batch(keys.map((key) => ({ type: 'del' as const, key })))
    }
  }
}
