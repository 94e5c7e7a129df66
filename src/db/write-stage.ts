/**
 * A stage of writes that one owner gathers in memory and writes with ONE atomic LevelDB batch
 * (`write`). Each side of the node has its own: the application stages its height (state nodes, EVM
 * blocks, receipts, logs, its committed-height record) and writes it in its Commit; the consensus
 * engine stages its block, results and state and writes them at the points CometBFT does. Nobody
 * writes another owner's stage.
 *
 * Reads through the Database see every stage's writes first (an owner reads back what it staged, e.g.
 * trie nodes written mid-block), also while a batch is being written and until LevelDB has it.
 */
import { latin1 } from '../primitives/hex.js'

type Bytes = Uint8Array
/** A staged write: [key, value | null (delete)]. */
export type StagedEntry = [Bytes, Bytes | null]
export type BatchOp = { type: 'put'; key: Bytes; value: Bytes } | { type: 'del'; key: Bytes }

/** What a stage held at one moment (`snapshot`), to stage again after a `discard` (`restore`). */
export interface StageSnapshot {
  readonly staged: ReadonlyMap<string, StagedEntry>
  readonly appended: readonly BatchOp[]
}

export class WriteStage {
  /** Staged writes: key id → entry. */
  private staged = new Map<string, StagedEntry>()
  /** Staged writes no read looks up (`append`), in the order staged. */
  private appended: BatchOp[] = []
  /** Writes being written by `write`: still readable until LevelDB has them. */
  private flushing: Map<string, StagedEntry> | undefined

  /** `writeBatch` writes the ops in one atomic LevelDB batch. */
  constructor(private readonly writeBatch: (ops: BatchOp[]) => Promise<void>) {}

  put(key: Bytes, value: Bytes): void {
    this.staged.set(keyId(key), [key, value])
  }

  del(key: Bytes): void {
    this.staged.set(keyId(key), [key, null])
  }

  /**
   * Stages a write that no read looks up before it is written and no other staged write repeats
   * (index entries, which are only scanned, and scans read written batches only): it skips the map
   * that serves reads of staged data and keeps a key written once.
   */
  append(key: Bytes, value: Bytes): void {
    this.appended.push({ type: 'put', key, value })
  }

  /** Staged writes not yet written. */
  get size(): number {
    return this.staged.size + this.appended.length
  }

  /** Whether a read has to look here (something staged or being written). */
  get isEmpty(): boolean {
    return this.staged.size === 0 && this.flushing === undefined
  }

  /** The staged (or being written) entry of a key id, if any. */
  find(id: string): StagedEntry | undefined {
    return this.staged.get(id) ?? this.flushing?.get(id)
  }

  /** Writes every staged operation in one atomic batch and empties the stage; nothing staged, no batch. */
  async write(): Promise<void> {
    if (this.size === 0) return
    const ops: BatchOp[] = this.appended
    for (const [key, value] of this.staged.values()) {
      ops.push(value === null ? { type: 'del', key } : { type: 'put', key, value })
    }
    this.flushing = this.staged
    this.staged = new Map()
    this.appended = []
    try {
      await this.writeBatch(ops)
    } finally {
      this.flushing = undefined
    }
  }

  /**
   * A stage that is never written: work staged into it over several turns of the event loop, where no
   * read looks, appears in its owner's stage at once through `absorb`.
   */
  static scratch(): WriteStage {
    return new WriteStage(() => Promise.reject(new Error('a scratch stage is never written: its owner absorbs it')))
  }

  /** Moves everything staged in `from` (a scratch stage) into this stage, after what it holds; `from` is left empty. */
  absorb(from: WriteStage): void {
    for (const [id, entry] of from.staged) this.staged.set(id, entry)
    // One push each, as `restore`: a large block appends more entries than a spread call can pass.
    for (const op of from.appended) this.appended.push(op)
    from.discard()
  }

  /** Drops every staged operation (an abandoned height). */
  discard(): void {
    this.staged = new Map()
    this.appended = []
  }

  /** A copy of what is staged now. */
  snapshot(): StageSnapshot {
    return { staged: new Map(this.staged), appended: [...this.appended] }
  }

  /** Stages again what `snapshot` copied (over an empty stage: after `discard` or `write`). */
  restore(s: StageSnapshot): void {
    for (const [id, entry] of s.staged) this.staged.set(id, entry)
    // One push each: a genesis of a million accounts appends more entries than a spread call can pass.
    for (const op of s.appended) this.appended.push(op)
  }
}

/** The map key of a database key. */
export function keyId(key: Bytes): string {
  return latin1(key)
}
