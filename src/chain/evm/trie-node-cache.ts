/**
 * The state trie's clean-node cache: node hash (hex) → encoded node, within a memory budget that is
 * what the cache really costs, and with nothing per entry for the garbage collector but a map slot.
 *
 * A Map of one Uint8Array per node cost about 2.7 times the bytes it counted (the key string, the
 * typed array and its ArrayBuffer, the backing store and its native bookkeeping: about 570 bytes for a
 * 115-byte node), so a full 32 MiB cache held about 86 MB and the node's RSS kept rising for as long
 * as it filled. Here, as in geth's fastcache, node bytes are copied into a ring of fixed slabs and the
 * map holds a small integer, the node's place in the ring. When the writer reaches the oldest slab it
 * drops that slab's keys and overwrites it. A node read from the older half of the ring is written
 * again at the head, so what execution keeps reading (the upper levels of each trie) stays while the
 * rest ages out.
 *
 * The ring is one allocation, made at the first write after the budget is set: large enough that the
 * C library maps it on its own, and never freed or grown, so it pins no other allocation in the process
 * heap (64 KiB slabs allocated one by one as the ring filled each sat among short-lived allocations).
 * Its pages are touched when it is made, so the memory it will hold is resident from the first block
 * on, not added page by page over the first minutes of load (which read as RSS growth in a soak).
 *
 * `get` returns a copy: callers decode nodes into views of these bytes (RLP decoding slices), and the
 * ring overwrites a slab when its turn comes.
 *
 * Keys are content hashes (a node's or a contract code's keccak): one key always has the same value.
 */

/** Bytes of one slab of the ring. */
const SLAB_BYTES = 64 * 1024
/** Length prefix before each value in a slab. */
const HEADER_BYTES = 4
/** A typical encoded trie node (leaves of 40–110 bytes, branches up to 532), for sizing the key lists. */
const TYPICAL_NODE_BYTES = 128
/**
 * Heap an entry costs besides its bytes: the 64-character key string (80), the map slot, and the
 * slab's reference to the key (measured about 120 per entry with 200,000 entries).
 */
export const ENTRY_OVERHEAD_BYTES = 128

export class TrieNodeCache {
  private readonly index = new Map<string, number>()
  /** The ring: slab `i` is bytes `i * slabBytes` up to `(i + 1) * slabBytes`. */
  private ring = new Uint8Array(0)
  /** The keys written into each slab since it was last recycled (some may have moved on since); one list per slab. */
  private slabKeys: string[][] = []
  /** The slab being written and the next free byte in it. */
  private head = 0
  private offset = 0
  private readonly slabEntries: number

  constructor(
    maxBytes: number,
    private readonly slabBytes = SLAB_BYTES,
  ) {
    this.slabEntries = Math.max(1, Math.floor(slabBytes / TYPICAL_NODE_BYTES))
    this.resize(maxBytes)
  }

  /** Entries held. */
  get size(): number {
    return this.index.size
  }

  /** The bytes this cache may hold, data and per-entry overhead (whole slabs of both). */
  get capacityBytes(): number {
    return this.slabKeys.length * (this.slabBytes + this.slabEntries * ENTRY_OVERHEAD_BYTES)
  }

  /** A copy of the value of `key`, or undefined. */
  get(key: string): Uint8Array | undefined {
    const at = this.index.get(key)
    if (at === undefined) return undefined
    const ring = this.ring
    const length = ring[at]! | (ring[at + 1]! << 8) | (ring[at + 2]! << 16) | (ring[at + 3]! << 24)
    const value = ring.slice(at + HEADER_BYTES, at + HEADER_BYTES + length)
    if (this.age(Math.floor(at / this.slabBytes)) * 2 >= this.slabKeys.length) this.write(key, value)
    return value
  }

  /** Caches `value` under `key` (a key already held is only moved to the head when it has aged). */
  set(key: string, value: Uint8Array): void {
    if (this.slabKeys.length === 0 || value.length + HEADER_BYTES > this.slabBytes) return
    const at = this.index.get(key)
    if (at !== undefined && this.age(Math.floor(at / this.slabBytes)) * 2 < this.slabKeys.length) return
    this.write(key, value)
  }

  /** Sets the budget in bytes (0 turns the cache off); what it held is dropped. */
  resize(maxBytes: number): void {
    const count = Math.floor(Math.max(0, maxBytes) / (this.slabBytes + this.slabEntries * ENTRY_OVERHEAD_BYTES))
    this.index.clear()
    this.ring = new Uint8Array(0)
    this.slabKeys = Array.from({ length: count }, () => [])
    this.head = 0
    this.offset = 0
  }

  /** Slabs written since `slab` (0 for the head). */
  private age(slab: number): number {
    return (this.head - slab + this.slabKeys.length) % this.slabKeys.length
  }

  private write(key: string, value: Uint8Array): void {
    const need = HEADER_BYTES + value.length
    if (this.offset + need > this.slabBytes || this.slabKeys[this.head]!.length >= this.slabEntries) this.advance()
    if (this.ring.length === 0) this.ring = new Uint8Array(this.slabKeys.length * this.slabBytes).fill(0)
    const ring = this.ring
    const at = this.head * this.slabBytes + this.offset
    const length = value.length
    ring[at] = length & 0xff
    ring[at + 1] = (length >> 8) & 0xff
    ring[at + 2] = (length >> 16) & 0xff
    ring[at + 3] = length >>> 24
    ring.set(value, at + HEADER_BYTES)
    this.index.set(key, at)
    this.slabKeys[this.head]!.push(key)
    this.offset += need
  }

  /** Moves the writer to the next slab, forgetting the keys that still point into it. */
  private advance(): void {
    this.head = (this.head + 1) % this.slabKeys.length
    this.offset = 0
    const keys = this.slabKeys[this.head]!
    for (const key of keys) {
      const at = this.index.get(key)
      if (at !== undefined && Math.floor(at / this.slabBytes) === this.head) this.index.delete(key)
    }
    keys.length = 0
  }
}
