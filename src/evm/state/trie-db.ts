/**
 * The key/value store `@ethereumjs/mpt` writes its nodes to (util's `DB<string, string | Uint8Array>`),
 * backed by the node's one Database under `Prefix.trie`.
 *
 * Writes are *staged* into the application's stage, never written directly: the application's Commit
 * writes the whole height (trie nodes, EVM view, committed-height record) in one atomic batch (storage
 * tries bypass the trie checkpoints and write to this adapter mid-block, so buffering here is what
 * makes a block atomic). Reads see staged writes first, then disk. `shallowCopy()` returns the same
 * adapter: nodes are content-addressed, so every
 * trie copy can share it.
 *
 * The trie's own node pruning is off (`useNodePruning` false): it never deletes nodes. Heights' state
 * is pruned, when configured, by the state pruner (state-pruner.ts), from the keys this adapter
 * reports staged.
 *
 * Every adapter over one Database shares one `TrieNodeCache`: trie nodes are content-addressed (the key
 * is the node's hash), so a cached node is never stale, whichever state root, block or copy reads it.
 * Storage tries are shallow copies that ethereumjs gives no cache of their own, so without it every
 * storage slot read walked the trie in LevelDB.
 */
import type { BatchDBOp, DB, EncodingOpts } from '@ethereumjs/util'
import { DEFAULT_TRIE_NODE_CACHE_MB } from '../../config/defaults.js'
import type { Database } from '../../db/database.js'
import type { WriteStage } from '../../db/write-stage.js'
import { Prefix, prefixedKey } from '../../db/prefixes.js'
import { TrieNodeCache } from './trie-node-cache.js'

type Value = string | Uint8Array

/** Default budget of the shared trie node cache (bytes), until the application sets `[evm] trie-node-cache-mb`. */
const DEFAULT_TRIE_NODE_CACHE_BYTES = DEFAULT_TRIE_NODE_CACHE_MB << 20

/** The one node cache of each Database. */
const nodeCaches = new WeakMap<Database, TrieNodeCache>()

/** The node cache shared by every trie adapter over `db` (created with the default budget). */
export function trieNodeCacheOf(db: Database): TrieNodeCache {
  let cache = nodeCaches.get(db)
  if (!cache) {
    cache = new TrieNodeCache(DEFAULT_TRIE_NODE_CACHE_BYTES)
    nodeCaches.set(db, cache)
  }
  return cache
}

/**
 * Reads a node: the shared cache, else LevelDB (filling the cache), synchronously: a trie walk awaits
 * its nodes one after the other, and on a big state most misses are the lowest levels of a path (a
 * million-slot storage trie has 65,536 level-4 branches), where an asynchronous read left the executor
 * idle for a third of a block.
 */
function readNode(db: Database, cache: TrieNodeCache, key: string): Uint8Array | undefined {
  const cached = cache.get(key)
  if (cached !== undefined) return cached
  const value = db.getSync(trieKey(key))
  if (value !== undefined) cache.set(key, value)
  return value
}

/**
 * Reads into the cache, with one LevelDB `getMany` (in its thread pool: the main thread serves other
 * work meanwhile), the nodes of `hexKeys` it does not hold. For a trie update that knows the nodes it
 * will need a level at a time (trie-update.ts).
 */
async function preloadNodes(db: Database, cache: TrieNodeCache, hexKeys: string[]): Promise<void> {
  const missing = hexKeys.filter((key) => cache.get(key) === undefined)
  if (missing.length === 0) return
  const values = await db.getMany(missing.map(trieKey))
  for (const [i, key] of missing.entries()) {
    const value = values[i]
    if (value !== undefined) cache.set(key, value)
  }
}

/**
 * A node by its hash: the shared cache, else LevelDB, without filling the cache (a walk over the
 * whole state, flat-walk.ts, would evict the nodes the reads need).
 */
export function peekTrieNode(db: Database, hash: Uint8Array): Uint8Array | undefined {
  const cached = trieNodeCacheOf(db).get(Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('hex'))
  return cached ?? db.getSync(prefixedKey(Prefix.trie, hash))
}

/** `Prefix.trie ‖ bytes(hexKey)`: mpt hands us unprefixed hex keys. */
export function trieKey(hexKey: string): Uint8Array {
  const key = Buffer.allocUnsafe(1 + (hexKey.length >> 1))
  key[0] = Prefix.trie
  key.write(hexKey, 1, 'hex')
  return new Uint8Array(key.buffer, key.byteOffset, key.byteLength)
}

function toStored(value: Value): Uint8Array {
  if (typeof value !== 'string') return value
  const buf = Buffer.from(value, 'hex')
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)
}

function fromStored(value: Uint8Array, opts?: EncodingOpts): Value {
  return opts?.valueEncoding === 'string' ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex') : value
}

/** The consensus state's adapter: every write is staged into the application's stage. */
export class TrieDb implements DB<string, Value> {
  private readonly cache: TrieNodeCache

  constructor(
    private readonly db: Database,
    private readonly stage: WriteStage,
    /** Told every key staged (the state pruner's journal of the height). */
    private readonly noteWrite?: (key: string) => void,
  ) {
    this.cache = trieNodeCacheOf(db)
  }

  async get(key: string, opts?: EncodingOpts): Promise<Value | undefined> {
    const value = readNode(this.db, this.cache, key)
    return value === undefined ? undefined : fromStored(value, opts)
  }

  /** A node the cache holds, without reading LevelDB. */
  peek(key: string): Uint8Array | undefined {
    return this.cache.get(key)
  }

  /** Loads the nodes of `keys` into the cache (one LevelDB read for all). */
  preload(keys: string[]): Promise<void> {
    return preloadNodes(this.db, this.cache, keys)
  }

  async put(key: string, value: Value): Promise<void> {
    const stored = toStored(value)
    this.stage.put(trieKey(key), stored)
    this.cache.set(key, stored)
    this.noteWrite?.(key)
  }

  async del(key: string): Promise<void> {
    this.stage.del(trieKey(key))
  }

  async batch(ops: BatchDBOp<string, Value>[]): Promise<void> {
    for (const op of ops) {
      if (op.type === 'put') await this.put(op.key, op.value)
      else this.stage.del(trieKey(op.key))
    }
  }

  shallowCopy(): DB<string, Value> {
    return this
  }

  async open(): Promise<void> {}
}

/**
 * Reads the shared state, keeps its own writes private and drops them with the copy. Used by the
 * state copies that serve eth_call, estimateGas and proofs, so nothing they do can reach the
 * application's stage even if the state manager flushes.
 */
export class OverlayTrieDb implements DB<string, Value> {
  private readonly writes = new Map<string, Uint8Array | null>()
  private readonly cache: TrieNodeCache

  constructor(private readonly db: Database) {
    this.cache = trieNodeCacheOf(db)
  }

  async get(key: string, opts?: EncodingOpts): Promise<Value | undefined> {
    if (this.writes.size > 0) {
      const own = this.writes.get(key)
      if (own !== undefined) return own === null ? undefined : fromStored(own, opts)
    }
    const value = readNode(this.db, this.cache, key)
    return value === undefined ? undefined : fromStored(value, opts)
  }

  /** A node this copy wrote or the cache holds, without reading LevelDB. */
  peek(key: string): Uint8Array | undefined {
    return this.writes.get(key) ?? this.cache.get(key)
  }

  /** Loads the nodes of `keys` into the cache (one LevelDB read for all). */
  preload(keys: string[]): Promise<void> {
    return preloadNodes(this.db, this.cache, keys)
  }

  async put(key: string, value: Value): Promise<void> {
    this.writes.set(key, toStored(value))
  }

  async del(key: string): Promise<void> {
    this.writes.set(key, null)
  }

  async batch(ops: BatchDBOp<string, Value>[]): Promise<void> {
    for (const op of ops) this.writes.set(op.key, op.type === 'put' ? toStored(op.value) : null)
  }

  shallowCopy(): DB<string, Value> {
    return this
  }

  async open(): Promise<void> {}
}
