/**
 * The state trie's clean-node cache: node hash (hex) → encoded node, within a memory budget that is
 * what the cache really costs, and with nothing per entry for the garbage collector but a map slot.
 *
 * A Map of one Uint8Array per node cost about 2.7 times the bytes it counted (the key string, the
 * typed array and its ArrayBuffer, the backing store and its native bookkeeping: about 570 bytes for a
 * 115-byte node), so a full 32 MiB cache held about 86 MB and the node's RSS kept rising for as long
 * as it filled. Here, as in geth's fastcache, node bytes are copied into a ring of fixed slabs and the
 * map holds a small integer, the node's place in the ring. When the writer reaches the oldest slab it
 * drops that slab's keys and overwrites it: memory is allocated once, as the ring first fills, and
 * never grows past the budget. A node read from the older half of the ring is written again at the
 * head, so what execution keeps reading (the upper levels of each trie) stays while the rest ages out.
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
  private slabs: Uint8Array[] = []
  /** The keys written into each slab since it was last recycled (some may have moved on since). */
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
    return this.slabs.length * (this.slabBytes + this.slabEntries * ENTRY_OVERHEAD_BYTES)
  }

  /** A copy of the value of `key`, or undefined. */
  get(key: string): Uint8Array | undefined {
    const at = this.index.get(key)
    if (at === undefined) return undefined
    const slab = Math.floor(at / this.slabBytes)
    const start = at - slab * this.slabBytes
    const bytes = this.slabs[slab]!
    const length = bytes[start]! | (bytes[start + 1]! << 8) | (bytes[start + 2]! << 16) | (bytes[start + 3]! << 24)
    const value = bytes.slice(start + HEADER_BYTES, start + HEADER_BYTES + length)
    if (this.age(slab) * 2 >= this.slabs.length) this.write(key, value)
    return value
  }

  /** Caches `value` under `key` (a key already held is only moved to the head when it has aged). */
  set(key: string, value: Uint8Array): void {
    if (this.slabs.length === 0 || value.length + HEADER_BYTES > this.slabBytes) return
    const at = this.index.get(key)
    if (at !== undefined && this.age(Math.floor(at / this.slabBytes)) * 2 < this.slabs.length) return
    this.write(key, value)
  }

  /** Sets the budget in bytes (0 turns the cache off); what it held is dropped. */
  resize(maxBytes: number): void {
    const count = Math.floor(Math.max(0, maxBytes) / (this.slabBytes + this.slabEntries * ENTRY_OVERHEAD_BYTES))
    this.index.clear()
    // Slabs are allocated as the writer first reaches them, so an idle node does not pay for its budget.
    this.slabs = new Array<Uint8Array>(count)
    this.slabKeys = Array.from({ length: count }, () => [])
    this.head = 0
    this.offset = 0
    if (count > 0) this.slabs[0] = new Uint8Array(this.slabBytes)
  }

  /** Slabs written since `slab` (0 for the head). */
  private age(slab: number): number {
    return (this.head - slab + this.slabs.length) % this.slabs.length
  }

  private write(key: string, value: Uint8Array): void {
    const need = HEADER_BYTES + value.length
    if (this.offset + need > this.slabBytes || this.slabKeys[this.head]!.length >= this.slabEntries) this.advance()
    const bytes = this.slabs[this.head]!
    const start = this.offset
    const length = value.length
    bytes[start] = length & 0xff
    bytes[start + 1] = (length >> 8) & 0xff
    bytes[start + 2] = (length >> 16) & 0xff
    bytes[start + 3] = length >>> 24
    bytes.set(value, start + HEADER_BYTES)
    this.index.set(key, this.head * this.slabBytes + start)
    this.slabKeys[this.head]!.push(key)
    this.offset += need
  }

  /** Moves the writer to the next slab, forgetting the keys that still point into it. */
  private advance(): void {
    this.head = (this.head + 1) % this.slabs.length
    this.offset = 0
    const keys = this.slabKeys[this.head]!
    for (const key of keys) {
      const at = this.index.get(key)
      if (at !== undefined && Math.floor(at / this.slabBytes) === this.head) this.index.delete(key)
    }
    keys.length = 0
    this.slabs[this.head] ??= new Uint8Array(this.slabBytes)
  }
}
