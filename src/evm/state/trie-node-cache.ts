/**
 * The state trie's clean-node cache: node hash (hex) → encoded node, within a memory budget that is
 * what the cache really costs, made of two allocations of fixed size and nothing per entry for the
 * garbage collector.
 *
 * A Map of one Uint8Array per node cost about 2.7 times the bytes it counted (the key string, the
 * typed array and its ArrayBuffer, the backing store and its native bookkeeping: about 570 bytes for a
 * 115-byte node), so a full 32 MiB cache held about 86 MB and the node's RSS kept rising for as long
 * as it filled. A ring of node bytes indexed by a Map of key strings still grew the heap by 140 bytes
 * an entry (9 MB for 65,000 entries) for as long as the ring filled, a quarter hour at the soak's load.
 *
 * Here, as in geth's fastcache, each entry (its key's hash, the key and the node bytes) is copied into a
 * ring of fixed slabs, and an open-addressing table of ring offsets (linear probing) finds it by the
 * key's hash. When the writer reaches the oldest slab it walks that slab's entries, deletes those the
 * table still points to, and overwrites it. A node read from the older half of the ring is written again
 * at the head, so what execution keeps reading (the upper levels of each trie) stays while the rest ages
 * out.
 *
 * The ring and the table are allocated at the first write after the budget is set, large enough that the
 * C library maps each on its own, and never freed or grown, so they pin no other allocation in the
 * process heap. Their pages are touched when they are made, so the memory the cache will hold is resident
 * from the first block on, not added page by page over the first minutes of load (which read as RSS
 * growth in a soak).
 *
 * `get` returns a copy: callers decode nodes into views of these bytes (RLP decoding slices), and the
 * ring overwrites a slab when its turn comes.
 *
 * Keys are content hashes (a node's or a contract code's keccak): one key always has the same value.
 * Keys are stored one byte a character (latin1), 1 to 255 characters.
 */

/** Bytes of one slab of the ring. */
const SLAB_BYTES = 64 * 1024
/** Before each entry: the key's hash (4 bytes), the key's length (1) and the value's length (3). */
const HEADER_BYTES = 8
const MAX_KEY_LENGTH = 255
/** A typical encoded trie node (leaves of 40–110 bytes, branches up to 532), for sizing the table. */
const TYPICAL_NODE_BYTES = 128
/** Bytes of one table slot: an offset and a hash. */
const SLOT_BYTES = 2 * Int32Array.BYTES_PER_ELEMENT
/** Bytes of table an entry can need: two slots (the table is at most half full). */
export const ENTRY_TABLE_BYTES = 2 * SLOT_BYTES

/** Node.js's native latin1 encoder (what `Buffer#write(text, offset, length, 'latin1')` calls). */
const latin1Write = (
  Buffer.prototype as unknown as { latin1Write: (this: Uint8Array, text: string, offset: number, length: number) => number }
).latin1Write

/** Characters of a key the hash reads: a content hash's first 16 hex digits are 64 random bits. */
const HASHED_CHARS = 16

/** FNV-1a of a key's length and first characters. */
function hashKey(key: string): number {
  let h = Math.imul(0x811c9dc5 ^ key.length, 0x01000193)
  const n = Math.min(key.length, HASHED_CHARS)
  for (let i = 0; i < n; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
  return h | 0
}

export class TrieNodeCache {
  /** The ring: slab `i` is bytes `i * slabBytes` up to `(i + 1) * slabBytes`. */
  private ring = new Uint8Array(0)
  /** The table: ring offset of an entry + 1 (0 = empty slot), and the hash of its key. */
  private offsets = new Int32Array(0)
  private hashes = new Int32Array(0)
  private slabs = 0
  /** Slots in the table (a power of two, at least twice the entries the ring can hold). */
  private slots = 0
  private entries = 0
  /** The slab being written, the next free byte in it, and the entries written into it. */
  private head = 0
  private offset = 0
  private headEntries = 0
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
    return this.entries
  }

  /** The bytes this cache holds once written to: its ring and its table. */
  get capacityBytes(): number {
    return this.slabs * this.slabBytes + this.slots * SLOT_BYTES
  }

  /** A copy of the value of `key`, or undefined. */
  get(key: string): Uint8Array | undefined {
    if (this.entries === 0) return undefined
    const slot = this.find(key, hashKey(key))
    if (slot < 0) return undefined
    const at = this.offsets[slot]! - 1
    const ring = this.ring
    const valueAt = at + HEADER_BYTES + key.length
    const value = ring.slice(valueAt, valueAt + (ring[at + 5]! | (ring[at + 6]! << 8) | (ring[at + 7]! << 16)))
    if (this.age(Math.floor(at / this.slabBytes)) * 2 >= this.slabs) this.write(key, this.hashes[slot]!, value, slot)
    return value
  }

  /** Caches `value` under `key` (a key already held is only moved to the head when it has aged). */
  set(key: string, value: Uint8Array): void {
    if (this.slabs === 0 || key.length === 0 || key.length > MAX_KEY_LENGTH || HEADER_BYTES + key.length + value.length > this.slabBytes)
      return
    const hash = hashKey(key)
    const slot = this.entries === 0 ? -1 : this.find(key, hash)
    if (slot >= 0 && this.age(Math.floor((this.offsets[slot]! - 1) / this.slabBytes)) * 2 < this.slabs) return
    this.write(key, hash, value, slot)
  }

  /** Sets the budget in bytes (0 turns the cache off); what it held is dropped. */
  resize(maxBytes: number): void {
    let slabs = Math.floor(Math.max(0, maxBytes) / (this.slabBytes + this.slabEntries * ENTRY_TABLE_BYTES))
    while (slabs > 0 && slabs * this.slabBytes + tableSlots(slabs * this.slabEntries) * SLOT_BYTES > maxBytes) slabs--
    this.slabs = slabs
    this.slots = slabs === 0 ? 0 : tableSlots(slabs * this.slabEntries)
    this.ring = new Uint8Array(0)
    this.offsets = new Int32Array(0)
    this.hashes = new Int32Array(0)
    this.entries = 0
    this.head = 0
    this.offset = 0
    this.headEntries = 0
  }

  /** The slot holding `key`, or -1. */
  private find(key: string, hash: number): number {
    const { offsets, hashes, ring } = this
    const mask = this.slots - 1
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const stored = offsets[slot]!
      if (stored === 0) return -1
      if (hashes[slot] !== hash) continue
      const at = stored - 1
      if (ring[at + 4] !== key.length) continue
      let i = 0
      const keyAt = at + HEADER_BYTES
      while (i < key.length && ring[keyAt + i] === key.charCodeAt(i)) i++
      if (i === key.length) return slot
    }
  }

  /** Slabs written since `slab` (0 for the head). */
  private age(slab: number): number {
    return (this.head - slab + this.slabs) % this.slabs
  }

  /** Writes an entry at the head and points `slot` (the key's, or -1 for a new key) to it. */
  private write(key: string, hash: number, value: Uint8Array, slot: number): void {
    const need = HEADER_BYTES + key.length + value.length
    if (this.ring.length === 0) this.allocate()
    else if (this.offset + need > this.slabBytes || this.headEntries >= this.slabEntries) {
      this.advance()
      // The slab just recycled may have held the key's entry.
      if (slot >= 0) slot = this.find(key, hash)
    }
    const ring = this.ring
    const at = this.head * this.slabBytes + this.offset
    ring[at] = hash & 0xff
    ring[at + 1] = (hash >>> 8) & 0xff
    ring[at + 2] = (hash >>> 16) & 0xff
    ring[at + 3] = hash >>> 24
    ring[at + 4] = key.length
    ring[at + 5] = value.length & 0xff
    ring[at + 6] = (value.length >>> 8) & 0xff
    ring[at + 7] = value.length >>> 16
    latin1Write.call(ring, key, at + HEADER_BYTES, key.length)
    ring.set(value, at + HEADER_BYTES + key.length)
    if (slot < 0) {
      const mask = this.slots - 1
      slot = hash & mask
      while (this.offsets[slot] !== 0) slot = (slot + 1) & mask
      this.hashes[slot] = hash
      this.entries++
    }
    this.offsets[slot] = at + 1
    this.offset += need
    this.headEntries++
  }

  /** The ring and the table, with every page touched. */
  private allocate(): void {
    this.ring = new Uint8Array(this.slabs * this.slabBytes).fill(0)
    this.offsets = new Int32Array(this.slots).fill(0)
    this.hashes = new Int32Array(this.slots).fill(0)
  }

  /** Moves the writer to the next slab, deleting the entries of it that the table still points to. */
  private advance(): void {
    this.head = (this.head + 1) % this.slabs
    const ring = this.ring
    const start = this.head * this.slabBytes
    const end = start + this.slabBytes
    // A slab is zeroed when recycled (and made zeroed): its entries end at a key length of 0.
    for (let at = start; at + HEADER_BYTES <= end; ) {
      const keyLength = ring[at + 4]!
      if (keyLength === 0) break
      this.remove(at, ring[at]! | (ring[at + 1]! << 8) | (ring[at + 2]! << 16) | (ring[at + 3]! << 24))
      at += HEADER_BYTES + keyLength + (ring[at + 5]! | (ring[at + 6]! << 8) | (ring[at + 7]! << 16))
    }
    ring.fill(0, start, end)
    this.offset = 0
    this.headEntries = 0
  }

  /** Deletes the table's slot for the entry at ring offset `at`, if the table still points there. */
  private remove(at: number, hash: number): void {
    const { offsets, hashes } = this
    const mask = this.slots - 1
    let slot = hash & mask
    for (; ; slot = (slot + 1) & mask) {
      const stored = offsets[slot]!
      if (stored === 0) return
      if (stored === at + 1) break
    }
    this.entries--
    // Backward-shift deletion: move up each following entry whose home slot is at or before the hole.
    let hole = slot
    for (let next = (hole + 1) & mask; offsets[next] !== 0; next = (next + 1) & mask) {
      const home = hashes[next]! & mask
      if (((next - home) & mask) >= ((next - hole) & mask)) {
        offsets[hole] = offsets[next]!
        hashes[hole] = hashes[next]!
        hole = next
      }
    }
    offsets[hole] = 0
  }
}

/** Table slots for `entries`: a power of two at least twice as many. */
function tableSlots(entries: number): number {
  let slots = 1
  while (slots < entries * 2) slots *= 2
  return slots
}
