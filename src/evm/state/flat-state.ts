/**
 * The flat state beside the trie (flat-keys.ts for the layout, flat-reader.ts for the reads): the
 * application's side, which keeps it exact for the head.
 *
 * - Each Commit stages, into the height's one atomic batch, the accounts and slots the block changed
 *   (flat-diff.ts) and the marker at the new root, so the records and the marker are always of one
 *   height, whatever a crash interrupts.
 * - The genesis state is written with its trie (genesis-trie.ts), marker complete.
 * - When the marker is not the head's at start (a database from before the flat state, a dev chain's
 *   revert, a state-sync restore), the records are generated again from the head's trie, in slices
 *   between Commits (flat-generator.ts); until done the marker says "generating" and reads walk the
 *   trie. A block's changes are written only for keys the generation has done; the rest it reads from
 *   the newer trie when it gets there.
 * - A wiped storage (a deleted account, a cleared one) of an account that had slots is not deleted key
 *   by key: the generation steps back to that account and walks it and everything after it again.
 *   Post-Cancun this is rare (EIP-6780 deletes only accounts created in the same transaction, which
 *   had no slots before it).
 */
import type { Caches, MerkleStateManager } from '@ethereumjs/statemanager'
import { KECCAK256_RLP } from '@ethereumjs/util'
import { keccak256 } from '../../crypto/index.js'
import type { Database } from '../../db/database.js'
import type { WriteStage } from '../../db/write-stage.js'
import type { Logger } from '../../utils/logger.js'
import { compareBytes, equalBytes } from '../../primitives/hex.js'
import { FlatDiff, recordFlatDiff } from './flat-diff.js'
import { FlatGenerator } from './flat-generator.js'
import { DATA_END, dataKey, decodeFlatMarker, encodeFlatMarker, FlatStatus, MARKER_KEY, slotDataKey, type FlatMarker } from './flat-keys.js'
import { storageRootOf } from './flat-reader.js'

/** The empty string's RLP: a slot cached with it is no slot. */
const EMPTY_RLP = 0x80

/**
 * Runs tasks one at a time. A task given while none runs starts at once, in the caller's turn: a
 * Commit queues its write on the state pruner's lock in the same turn as without the flat state.
 */
class TurnLock {
  private tail: Promise<unknown> | undefined

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail === undefined ? task() : this.tail.then(task)
    const tail = result.catch(() => undefined)
    this.tail = tail
    void tail.then(() => {
      if (this.tail === tail) this.tail = undefined
    })
    return result
  }
}

export class FlatState {
  /** The marker as last staged or written (undefined before a state exists). */
  private marker: FlatMarker | undefined
  private diff = new FlatDiff()
  /** Commits and generation slices, one after the other. */
  readonly lock = new TurnLock()
  private readonly generator: FlatGenerator

  constructor(
    private readonly db: Database,
    log: Logger,
  ) {
    this.generator = new FlatGenerator(db, log, this)
  }

  /** The marker now (for the generator). */
  current(): FlatMarker | undefined {
    return this.marker
  }

  /** Sets the marker after a generation slice wrote it. */
  advance(marker: FlatMarker): void {
    this.marker = marker
  }

  /** Records what `sm`'s caches flush from now on (the consensus state manager). */
  watch(sm: MerkleStateManager, caches: Caches): void {
    this.diff = recordFlatDiff(sm, caches)
  }

  /**
   * At start, with the head written: keeps the flat state if its marker is the head's, else starts
   * its generation over; either way resumes a generation not finished.
   */
  async open(head: { height: number; stateRoot: Uint8Array } | undefined): Promise<void> {
    await this.generator.stop()
    if (!head) {
      this.marker = undefined
      return
    }
    const stored = await this.db.get(MARKER_KEY)
    const marker = stored && decodeFlatMarker(stored)
    if (marker && equalBytes(marker.root, head.stateRoot)) this.marker = marker
    else {
      this.marker = {
        status: FlatStatus.generating,
        root: head.stateRoot,
        height: head.height,
        generation: (marker?.generation ?? 0n) + 1n,
        progress: new Uint8Array(),
      }
    }
    this.resume()
  }

  /** Whether the database holds any flat record or marker (before InitChain writes the genesis records). */
  async hasRecords(): Promise<boolean> {
    return (await this.db.keys({ gte: MARKER_KEY, lt: DATA_END, limit: 1 })).length > 0
  }

  /**
   * The genesis state's records were written with its trie: stages the marker at its root, complete,
   * or generating when the database held records before them (an application state wiped but the flat
   * state's, an InitChain of another genesis cut short): the generation deletes those.
   */
  stageGenesis(stage: WriteStage, height: number, root: Uint8Array, hadRecords: boolean): void {
    this.marker = {
      status: hadRecords ? FlatStatus.generating : FlatStatus.complete,
      root,
      height,
      generation: (this.marker?.generation ?? 0n) + 1n,
      progress: new Uint8Array(),
    }
    stage.put(MARKER_KEY, encodeFlatMarker(this.marker))
  }

  /** Forgets what was recorded: a block is about to execute, or its execution was abandoned. */
  beginBlock(): void {
    this.diff.clear()
  }

  /** Whether the flat key `key` holds its records for the current root (generated, or complete). */
  private done(marker: FlatMarker, key: Uint8Array): boolean {
    return marker.status === FlatStatus.complete || (marker.progress.length > 0 && compareBytes(key, marker.progress) <= 0)
  }

  /**
   * Stages into `stage` the changes of the executed block at `height` (state root `root`) and the
   * marker at that root. Runs under `lock`, before the stage is written.
   */
  stageBlock(stage: WriteStage, height: number, root: Uint8Array): void {
    const marker = this.marker
    if (!marker) return
    const hashes = new Map<string, Uint8Array>()
    const hashOf = (address: string): Uint8Array => {
      let h = hashes.get(address)
      if (!h) {
        h = keccak256(Buffer.from(address, 'hex'))
        hashes.set(address, h)
      }
      return h
    }
    for (const address of new Set([...this.diff.wiped, ...[...this.diff.accounts].filter(([, rlp]) => rlp === null).map(([a]) => a)])) {
      const h = hashOf(address)
      if (!this.done(marker, h)) continue
      const before = this.db.getSync(dataKey(h))
      if (before === undefined || equalBytes(storageRootOf(before), KECCAK256_RLP)) continue
      // Its slots at the parent are in the records: generate this account's storage and all after it again.
      marker.status = FlatStatus.generating
      marker.progress = h
    }
    for (const [address, rlp] of this.diff.accounts) {
      const h = hashOf(address)
      if (!this.done(marker, h)) continue
      if (rlp === null) stage.del(dataKey(h))
      else stage.put(dataKey(h), rlp)
    }
    for (const [address, slots] of this.diff.slots) {
      // The flush writes no slot of an account it deletes.
      if (this.diff.accounts.get(address) === null) continue
      const h = hashOf(address)
      for (const [slot, value] of slots) {
        const key = slotDataKey(h, keccak256(Buffer.from(slot, 'hex')))
        if (!this.done(marker, key.subarray(2))) continue
        if (value === undefined || (value.length === 1 && value[0] === EMPTY_RLP)) stage.del(key)
        else stage.put(key, value)
      }
    }
    this.diff.clear()
    marker.root = root
    marker.height = height
    marker.generation += 1n
    stage.put(MARKER_KEY, encodeFlatMarker(marker))
  }

  /** Starts the generation if the marker says one is due (after a Commit or at start). */
  resume(): void {
    if (this.marker?.status === FlatStatus.generating) this.generator.start()
  }

  /** Resolves once the records are complete for the head (tests, measurements); stops waiting on `close`. */
  complete(): Promise<void> {
    return this.generator.idle()
  }

  async close(): Promise<void> {
    await this.generator.stop()
  }
}
