/**
 * The state pruner's records in the node's LevelDB, under `Prefix.statePrune`:
 *   - `r ‖ key` → the reference count of a stored trie node or code (4 bytes, big-endian);
 *   - `j ‖ height` → the keys that height staged (its journal), then, once counted, those of them
 *     nothing referenced (the height's death row, freed when the height leaves the window);
 * and three meta keys: the first journaled height, the last counted height, the lowest height with state.
 */
import type { BatchOp } from '../../db/write-stage.js'
import type { Database } from '../../db/database.js'
import { Prefix, heightKey, metaKey, prefixEnd } from '../../db/prefixes.js'

const RECORD = 0x72
const JOURNAL = 0x6a

export const FIRST_JOURNALED_KEY = metaKey('prune/first-journaled')
export const COUNTED_KEY = metaKey('prune/counted')
export const LOWEST_STATE_KEY = metaKey('prune/lowest-state')

export function journalKey(height: number): Uint8Array {
  const key = heightKey(Prefix.statePrune, height)
  const out = new Uint8Array(key.length + 1)
  out[0] = Prefix.statePrune
  out[1] = JOURNAL
  out.set(key.subarray(1), 2)
  return out
}

function recordKey(hexKey: string): Uint8Array {
  const key = Buffer.alloc(2 + (hexKey.length >> 1))
  key[0] = Prefix.statePrune
  key[1] = RECORD
  key.write(hexKey, 2, 'hex')
  return new Uint8Array(key.buffer, key.byteOffset, key.byteLength)
}

/** The range of every reference count. */
export const RECORD_RANGE = { gte: Uint8Array.of(Prefix.statePrune, RECORD), lt: prefixEnd(Uint8Array.of(Prefix.statePrune, RECORD)) }
/** The range of every journal. */
export const JOURNAL_RANGE = { gte: Uint8Array.of(Prefix.statePrune, JOURNAL), lt: prefixEnd(Uint8Array.of(Prefix.statePrune, JOURNAL)) }

/** `[length][key bytes]` per key. */
export function encodeKeys(keys: Iterable<string>): Uint8Array {
  const parts: Buffer[] = []
  for (const k of keys) {
    const bytes = Buffer.from(k, 'hex')
    parts.push(Buffer.of(bytes.length), bytes)
  }
  const all = Buffer.concat(parts)
  return new Uint8Array(all.buffer, all.byteOffset, all.byteLength)
}

export function decodeKeys(data: Uint8Array | undefined): string[] {
  const keys: string[] = []
  if (!data) return keys
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  for (let off = 0; off < buf.length; ) {
    const len = buf[off]!
    keys.push(buf.toString('hex', off + 1, off + 1 + len))
    off += 1 + len
  }
  return keys
}

export function encodeHeight(height: number): Uint8Array {
  const out = new Uint8Array(8)
  new DataView(out.buffer).setBigUint64(0, BigInt(height))
  return out
}

export function decodeHeight(data: Uint8Array | undefined): number | undefined {
  return data && data.length === 8 ? Number(new DataView(data.buffer, data.byteOffset, 8).getBigUint64(0)) : undefined
}

/** Counts kept in memory across a run's steps (the trie's upper nodes are counted again at every height). */
const MAX_CACHED_COUNTS = 200_000

/**
 * Reference counts read from LevelDB and changed in memory, until `takeOps` turns the changes into one
 * batch (written with the pruner's other writes of the same step, atomically). What was read or
 * written stays cached for the next steps of the run: nobody else writes the counts.
 */
export class RefCounts {
  private readonly changed = new Map<string, number | null>()
  private cached = new Map<string, number | null>()

  constructor(private readonly db: Database) {}

  /** The count of `key`; undefined when it has no record (never counted, or freed). */
  async get(key: string): Promise<number | undefined> {
    const own = this.changed.get(key) ?? this.cached.get(key)
    if (own !== undefined) return own === null ? undefined : own
    const count = decodeCount(await this.db.get(recordKey(key)))
    this.cached.set(key, count ?? null)
    return count
  }

  /** Reads the counts of `keys` not known yet, in one call. */
  async prefetch(keys: readonly string[]): Promise<void> {
    const wanted = keys.filter((k) => !this.changed.has(k) && !this.cached.has(k))
    if (wanted.length === 0) return
    const values = await this.db.getMany(wanted.map(recordKey))
    for (const [i, key] of wanted.entries()) this.cached.set(key, decodeCount(values[i]) ?? null)
  }

  set(key: string, count: number): void {
    this.changed.set(key, count)
  }

  /** Removes the record (the node is freed). */
  remove(key: string): void {
    this.changed.set(key, null)
  }

  get size(): number {
    return this.changed.size
  }

  /** The changes as batch operations (to be written); they stay known as cached counts. */
  takeOps(): BatchOp[] {
    const ops: BatchOp[] = []
    if (this.cached.size + this.changed.size > MAX_CACHED_COUNTS) this.cached = new Map()
    for (const [key, count] of this.changed) {
      this.cached.set(key, count)
      if (count === null) ops.push({ type: 'del', key: recordKey(key) })
      else {
        const value = new Uint8Array(4)
        new DataView(value.buffer).setUint32(0, count)
        ops.push({ type: 'put', key: recordKey(key), value })
      }
    }
    this.changed.clear()
    return ops
  }
}

function decodeCount(stored: Uint8Array | undefined): number | undefined {
  return stored ? new DataView(stored.buffer, stored.byteOffset, 4).getUint32(0) : undefined
}
