/**
 * State-sync snapshots of the EVM application: taken every `snapshot-interval` heights, served and
 * restored through the four ABCI snapshot calls (docs/state-sync.md).
 *
 * API (stable):
 * - `new StateSnapshots({ db, app, dir, interval, keepRecent, pinState?, chunkBytes?, logger? })` is a
 *   `SnapshotProvider` (abci/snapshots.ts): hand it to the ABCI server (`nodectl start --abci`) or to
 *   our engine's state sync as is.
 * - `committed(head)` is the application's Commit hook (`EvmApplicationOptions.committed`): at every
 *   `interval`-th height it starts taking a snapshot in the background and returns at once.
 * - `idle()` settles when no snapshot is being taken; `close()` stops one being taken (nothing of it
 *   is listed) and waits for it.
 * - `pinState(height)` (default none) is called when a snapshot of `height` starts and must keep that
 *   height's state from being pruned until the function it returns is called (when the snapshot ends).
 *
 * A snapshot is format 1 (snapshot-format.ts): chunk 0 the application record (app-record.ts), then
 * the state trie at the height, node by node. Restoring is allowed only into an empty application
 * (snapshot-restore.ts).
 */
import type { SnapshotProvider } from '../../abci/snapshots.js'
import type { ValidatorUpdate } from '../../abci/types.js'
import type {
  ApplySnapshotChunkRequest,
  LoadSnapshotChunkRequest,
  OfferSnapshotRequest,
  OfferSnapshotResult,
  ResponsePayloads,
  Snapshot,
} from '../../abci/wire/messages.js'
import type { Database } from '../../db/database.js'
import { bytesToHex } from '../../primitives/hex.js'
import { silentLogger, type Logger } from '../../utils/logger.js'
import { encodeAppRecord, readAppRecord } from './app-record.js'
import { DEFAULT_CHUNK_BYTES, SNAPSHOT_FORMAT, StateChunkBuilder } from './snapshot-format.js'
import { SnapshotRestore, type RestoreTarget } from './snapshot-restore.js'
import { SnapshotStore } from './snapshot-store.js'
import { exportState } from './state-export.js'

/** What the application hands the Commit hook: the height just written and what a snapshot of it needs. */
export interface CommittedHead {
  height: number
  stateRoot: Uint8Array
  /** The validator-admin contract's copy of the validator set after `height`. */
  validators: ValidatorUpdate[]
}

export interface StateSnapshotsOptions {
  db: Database
  /** The application restores write into (and reopen). */
  app: RestoreTarget
  /** Where snapshots are kept: `<home>/data/snapshots`. */
  dir: string
  /** `[state-sync] snapshot-interval`: heights between two snapshots; 0 takes none (the default). */
  interval: number
  /** `[state-sync] snapshot-keep-recent`: snapshots kept, older ones deleted; 0 keeps all (default 2). */
  keepRecent: number
  /** Target size of a state chunk, bytes (default 4 MiB). */
  chunkBytes?: number
  /** Keeps the state of `height` from being pruned; returns its release. Default: nothing to pin. */
  pinState?: (height: number) => () => void
  logger?: Logger
}

/** `[state-sync] snapshot-keep-recent` when unset (the Cosmos SDK's). */
export const DEFAULT_SNAPSHOT_KEEP_RECENT = 2

export class StateSnapshots implements SnapshotProvider {
  private readonly store: SnapshotStore
  private readonly restore: SnapshotRestore
  private readonly log: Logger
  private opening: Promise<void> | undefined
  private taking: Promise<void> | undefined
  private closed = false

  constructor(private readonly opts: StateSnapshotsOptions) {
    this.log = (opts.logger ?? silentLogger).child({ module: 'snapshots' })
    this.store = new SnapshotStore(opts.dir)
    this.restore = new SnapshotRestore(opts.db, opts.app, this.log)
  }

  /** The Commit hook: starts a snapshot of `head` when its height is due and none is being taken. */
  committed(head: CommittedHead): void {
    const { interval } = this.opts
    if (interval <= 0 || head.height % interval !== 0 || this.closed) return
    if (this.taking !== undefined) {
      this.log.info('snapshot skipped: the previous one is still being taken', { height: head.height })
      return
    }
    const release = this.opts.pinState?.(head.height)
    this.taking = this.take(head)
      .catch((err: unknown) => this.log.error('snapshot failed', { height: head.height, err }))
      .finally(() => {
        release?.()
        this.taking = undefined
      })
  }

  /** Settles when no snapshot is being taken. */
  async idle(): Promise<void> {
    while (this.taking !== undefined) await this.taking
  }

  /** Stops a snapshot being taken (it is not listed) and takes no more. */
  async close(): Promise<void> {
    this.closed = true
    await this.idle()
  }

  async listSnapshots(): Promise<Snapshot[]> {
    await this.open()
    return (await this.store.list()).map((s) => ({
      height: BigInt(s.height),
      format: s.format,
      chunks: s.chunks,
      hash: s.hash,
      metadata: s.metadata,
    }))
  }

  async loadSnapshotChunk(req: LoadSnapshotChunkRequest): Promise<Uint8Array> {
    await this.open()
    return (await this.store.loadChunk(Number(req.height), req.format, req.chunk)) ?? new Uint8Array()
  }

  offerSnapshot(req: OfferSnapshotRequest): Promise<OfferSnapshotResult> {
    return this.restore.offer(req)
  }

  applySnapshotChunk(req: ApplySnapshotChunkRequest): Promise<ResponsePayloads['applySnapshotChunk']> {
    return this.restore.apply(req)
  }

  private open(): Promise<void> {
    this.opening ??= this.store.open()
    return this.opening
  }

  private async take(head: CommittedHead): Promise<void> {
    await this.open()
    const started = performance.now()
    const record = await readAppRecord(this.opts.db, head.height, head.stateRoot, head.validators)
    const writer = await this.store.create(head.height, SNAPSHOT_FORMAT)
    try {
      await writer.addChunk(encodeAppRecord(record))
      const chunkBytes = this.opts.chunkBytes ?? DEFAULT_CHUNK_BYTES
      const chunk = new StateChunkBuilder()
      let count = 0
      for await (const entry of exportState(this.opts.db, head.stateRoot, () => this.closed)) {
        chunk.add(entry)
        count++
        if (chunk.size >= chunkBytes) await writer.addChunk(chunk.finish())
      }
      if (this.closed) {
        await writer.discard()
        return
      }
      if (chunk.size > 0) await writer.addChunk(chunk.finish())
      const snapshot = await writer.finish()
      this.log.info('snapshot taken', {
        height: head.height,
        chunks: snapshot.chunks,
        entries: count,
        hash: bytesToHex(snapshot.hash),
        ms: Math.round(performance.now() - started),
      })
    } catch (err) {
      await writer.discard()
      throw err
    }
    if (this.opts.keepRecent <= 0) return
    const deleted = await this.store.prune(this.opts.keepRecent)
    if (deleted.length > 0) this.log.info('old snapshots deleted', { heights: deleted })
  }
}
