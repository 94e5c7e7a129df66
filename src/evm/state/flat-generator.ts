/**
 * Generation of the flat state from the head's trie (flat-state.ts), in slices between Commits: each
 * slice walks the trie at the marker's root from the marker's progress on (flat-walk.ts), writes up
 * to SLICE_RECORDS records, deletes the records in the same key range that the trie no longer has
 * (left by an older state), and moves the progress, all in one batch. Slices and Commits take the
 * flat state's lock in turn, so a slice's walk and write see one head; a Commit in between moves the
 * root, and the next slice walks the newer trie from where the last one stopped.
 */
import type { Database } from '../../db/database.js'
import type { BatchOp } from '../../db/write-stage.js'
import { compareBytes, latin1 } from '../../primitives/hex.js'
import type { Logger } from '../../utils/logger.js'
import { DATA_END, dataKey, dataKeyAfter, encodeFlatMarker, flatKeyOf, FlatStatus, MARKER_KEY, type FlatMarker } from './flat-keys.js'
import { walkFlat } from './flat-walk.js'

/**
 * Records one slice writes at most: a walk of this many leaves takes a few milliseconds of the main
 * thread (most nodes are read from LevelDB), about as long as the event loop is held elsewhere.
 */
export const SLICE_RECORDS = 2048
/** Wait before looking again while a dev chain holds its writes in memory (a run of heights being mined). */
const HELD_RETRY_MS = 10

/** What the generator needs of the flat state. */
export interface FlatProgress {
  readonly lock: { run<T>(fn: () => Promise<T>): Promise<T> }
  current(): FlatMarker | undefined
  advance(marker: FlatMarker): void
}

export class FlatGenerator {
  private running: Promise<void> | undefined
  private stopping = false

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly state: FlatProgress,
  ) {}

  /** Starts generating, unless it already is. */
  start(): void {
    if (this.running !== undefined) return
    this.stopping = false
    this.running = this.run().finally(() => {
      this.running = undefined
    })
  }

  /** Stops after the slice under way. */
  async stop(): Promise<void> {
    this.stopping = true
    await this.running
  }

  /** Resolves when no generation runs (done, failed or stopped). */
  async idle(): Promise<void> {
    await this.running
  }

  private async run(): Promise<void> {
    const started = performance.now()
    let records = 0
    try {
      while (!this.stopping) {
        if (this.db.holdingWrites) {
          await new Promise((resolve) => setTimeout(resolve, HELD_RETRY_MS))
          continue
        }
        const slice = await this.state.lock.run(() => this.slice())
        if (slice === undefined) break
        records += slice
        await new Promise((resolve) => setImmediate(resolve))
      }
    } catch (err) {
      // Reads keep walking the trie; the next start generates again.
      this.log.error('flat state generation failed', { err: err instanceof Error ? err.message : String(err) })
      return
    }
    const marker = this.state.current()
    if (marker?.status === FlatStatus.complete) {
      this.log.info('flat state generated', { height: marker.height, records, ms: Math.round(performance.now() - started) })
    }
  }

  /** One slice: the records it wrote, or undefined when the flat state is complete (or there is none). */
  private async slice(): Promise<number | undefined> {
    const marker = this.state.current()
    if (!marker || marker.status === FlatStatus.complete) return undefined
    if (this.db.holdingWrites) return 0
    const after = marker.progress
    let records: [Uint8Array, Uint8Array][] = []
    let exhausted = true
    for (const record of walkFlat(this.db, marker.root, after)) {
      records.push(record)
      if (records.length >= SLICE_RECORDS) {
        exhausted = false
        break
      }
    }
    let end = exhausted ? undefined : records.at(-1)![0]
    const present = await this.db.keys({ gte: dataKeyAfter(after), lt: end ? dataKeyAfter(end) : DATA_END, limit: SLICE_RECORDS })
    if (present.length === SLICE_RECORDS) {
      // Many records of an older state here: this slice ends at the last one it deletes.
      const last = flatKeyOf(present.at(-1)!)
      end = last
      records = records.filter(([key]) => compareBytes(key, last) <= 0)
      exhausted = false
    }
    const ops: BatchOp[] = []
    const kept = new Set<string>()
    for (const [key, value] of records) {
      const k = dataKey(key)
      kept.add(latin1(k))
      ops.push({ type: 'put', key: k, value })
    }
    for (const k of present) if (!kept.has(latin1(k))) ops.push({ type: 'del', key: k })
    const next: FlatMarker = {
      ...marker,
      status: exhausted ? FlatStatus.complete : FlatStatus.generating,
      generation: marker.generation + 1n,
      progress: exhausted ? new Uint8Array() : end!,
    }
    ops.push({ type: 'put', key: MARKER_KEY, value: encodeFlatMarker(next) })
    await this.db.batch(ops)
    this.state.advance(next)
    return records.length
  }
}
