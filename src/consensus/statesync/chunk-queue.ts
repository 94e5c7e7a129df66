/**
 * The chunks of the snapshot being restored (CometBFT `statesync/chunks.go`): each index is missing, being
 * fetched, fetched (with the peer that sent it) or applied. Fetchers take the lowest missing index; the
 * applier takes chunks strictly in order. The application may ask for chunks again (`refetch_chunks`) or
 * refuse a peer (`reject_senders`): those chunks go back to missing, and the peer that sent a discarded chunk
 * is not asked for that index again.
 */

type ChunkState = 'missing' | 'fetching' | 'fetched' | 'applied'

/** A fetched chunk, ready to apply. */
export interface Chunk {
  index: number
  data: Uint8Array
  /** The peer that served it. */
  sender: string
}

export class ChunkQueue {
  private readonly states: ChunkState[]
  private readonly fetched = new Map<number, Chunk>()
  private readonly banned = new Map<number, Set<string>>()
  private nextIndex = 0
  private waiters: (() => void)[] = []

  constructor(readonly total: number) {
    this.states = new Array<ChunkState>(total).fill('missing')
  }

  /** True once every chunk was applied. */
  get done(): boolean {
    return this.nextIndex >= this.total
  }

  /** Chunks applied so far, in order. */
  get applied(): number {
    return this.nextIndex
  }

  /** The lowest missing index, now marked as being fetched; undefined when none is missing. */
  allocate(): number | undefined {
    const index = this.states.indexOf('missing')
    if (index < 0) return undefined
    this.states[index] = 'fetching'
    return index
  }

  /** Stores a chunk that was being fetched; a late or unasked one is dropped. Returns whether it was kept. */
  add(chunk: Chunk): boolean {
    if (this.states[chunk.index] !== 'fetching') return false
    this.states[chunk.index] = 'fetched'
    this.fetched.set(chunk.index, chunk)
    this.notify()
    return true
  }

  /** A fetch of `index` failed: it is missing again. */
  failed(index: number): void {
    if (this.states[index] !== 'fetching') return
    this.states[index] = 'missing'
    this.notify()
  }

  /** The next chunk to apply, when it has arrived. */
  next(): Chunk | undefined {
    return this.done || this.states[this.nextIndex] !== 'fetched' ? undefined : this.fetched.get(this.nextIndex)
  }

  /** The chunk `next()` returned was accepted. */
  markApplied(index: number): void {
    if (index !== this.nextIndex || this.states[index] !== 'fetched') throw new Error(`chunk ${index} is not the next to apply`)
    this.states[index] = 'applied'
    this.nextIndex++
    this.notify()
  }

  /** Fetches `index` again (from another peer than the one that sent it) and applies it again, in order. */
  discard(index: number): void {
    if (index < 0 || index >= this.total) return
    const chunk = this.fetched.get(index)
    if (chunk) this.ban(index, chunk.sender)
    this.fetched.delete(index)
    if (this.states[index] !== 'fetching') this.states[index] = 'missing'
    if (index < this.nextIndex) this.nextIndex = index
    this.notify()
  }

  /** Discards the chunks `sender` served that are not applied yet. */
  discardSender(sender: string): void {
    for (const [index, chunk] of [...this.fetched]) if (chunk.sender === sender && this.states[index] === 'fetched') this.discard(index)
  }

  /** Peers not to ask for `index` (they sent a copy the application refused). */
  bannedFor(index: number): ReadonlySet<string> {
    return this.banned.get(index) ?? new Set()
  }

  /** Resolves at the next change (a chunk stored, failed, applied or discarded). */
  changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  private ban(index: number, peer: string): void {
    const set = this.banned.get(index) ?? new Set<string>()
    set.add(peer)
    this.banned.set(index, set)
  }

  private notify(): void {
    const waiters = this.waiters
    this.waiters = []
    for (const w of waiters) w()
  }
}
