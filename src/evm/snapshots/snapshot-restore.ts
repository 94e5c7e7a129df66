/**
 * Restoring a snapshot offered by the engine (OfferSnapshot, then ApplySnapshotChunk for each chunk in
 * order). Each chunk is checked against its hash in the offered metadata first: a chunk that does not
 * match was damaged on the way or sent by a bad peer, so it is asked again (RETRY, its index to refetch,
 * its sender to reject). A chunk that matches but does not fit the trusted app hash means the snapshot
 * itself is wrong: it is refused (REJECT_SNAPSHOT) and what it wrote removed. After the last chunk the
 * state is whole under the trusted root, the application record is written, and the application
 * reopens at the snapshot's height: Info answers it, the next block is the one above.
 */
import {
  type ApplySnapshotChunkRequest,
  ApplySnapshotChunkResult,
  type OfferSnapshotRequest,
  OfferSnapshotResult,
  type ResponsePayloads,
} from '../../abci/wire/messages.js'
import type { InfoResponse } from '../../abci/application.js'
import type { Database } from '../../db/database.js'
import { bytesToHex, equalBytes } from '../../primitives/hex.js'
import type { Logger } from '../../utils/logger.js'
import { checkAppRecord, decodeAppRecord, writeAppRecord, type AppRecord } from './app-record.js'
import { SNAPSHOT_FORMAT, decodeMetadata, decodeStateChunk, hashChunk, metadataMatches, type StateEntry } from './snapshot-format.js'
import { StateImport, StateImportError } from './state-import.js'

type ApplyResponse = ResponsePayloads['applySnapshotChunk']

/** What a restore needs of the application. */
export interface RestoreTarget {
  info(): Promise<InfoResponse>
  /** Opens again at the head a restore wrote. */
  reload(): Promise<void>
}

interface Session {
  height: number
  appHash: Uint8Array
  chunkHashes: Uint8Array[]
  /** Index of the next chunk to apply. */
  next: number
  state: StateImport
  record: AppRecord | undefined
  started: number
}

const answer = (result: ApplySnapshotChunkResult, refetchChunks: number[] = [], rejectSenders: string[] = []): ApplyResponse => ({
  result,
  refetchChunks,
  rejectSenders,
})

export class SnapshotRestore {
  private session: Session | undefined

  constructor(
    private readonly db: Database,
    private readonly app: RestoreTarget,
    private readonly log: Logger,
  ) {}

  async offer(req: OfferSnapshotRequest): Promise<OfferSnapshotResult> {
    const s = req.snapshot
    if (!s) return OfferSnapshotResult.Reject
    if (s.format !== SNAPSHOT_FORMAT) return OfferSnapshotResult.RejectFormat
    const chunkHashes = decodeMetadata(s.metadata)
    if (s.chunks < 1 || !metadataMatches(s.chunks, s.hash, chunkHashes) || req.appHash.length !== 32) return OfferSnapshotResult.Reject
    if (this.session) await this.abandon('another snapshot was offered')
    const info = await this.app.info()
    if (info.lastBlockHeight !== 0) {
      this.log.error('snapshot offered to an application that has blocks: only an empty one restores', { height: info.lastBlockHeight })
      return OfferSnapshotResult.Abort
    }
    const height = Number(s.height)
    this.session = {
      height,
      appHash: req.appHash,
      chunkHashes: chunkHashes!,
      next: 0,
      state: new StateImport(this.db, req.appHash),
      record: undefined,
      started: performance.now(),
    }
    this.log.info('restoring snapshot', { height, chunks: s.chunks, appHash: bytesToHex(req.appHash) })
    return OfferSnapshotResult.Accept
  }

  async apply(req: ApplySnapshotChunkRequest): Promise<ApplyResponse> {
    const s = this.session
    if (!s) return answer(ApplySnapshotChunkResult.Abort)
    // A chunk applied already (the engine retried after an answer it lost): nothing to do.
    if (req.index < s.next) return answer(ApplySnapshotChunkResult.Accept)
    if (req.index !== s.next) {
      await this.abandon(`chunk ${req.index} came before chunk ${s.next}`)
      return answer(ApplySnapshotChunkResult.RetrySnapshot)
    }
    if (!equalBytes(hashChunk(req.chunk), s.chunkHashes[req.index]!)) {
      this.log.warn('snapshot chunk refused: not the chunk the snapshot lists', { index: req.index, sender: req.sender })
      return answer(ApplySnapshotChunkResult.Retry, [req.index], req.sender ? [req.sender] : [])
    }
    const wrong = await this.applyChunk(s, req.index, req.chunk)
    if (wrong !== undefined) {
      await this.abandon(wrong)
      return answer(ApplySnapshotChunkResult.RejectSnapshot)
    }
    s.next++
    this.log.debug('snapshot chunk applied', { index: req.index, chunks: s.chunkHashes.length, entries: s.state.count })
    if (s.next < s.chunkHashes.length) return answer(ApplySnapshotChunkResult.Accept)
    return this.finish(s)
  }

  /** Checks and writes one chunk; the reason the snapshot is wrong, if it is. */
  private async applyChunk(s: Session, index: number, chunk: Uint8Array): Promise<string | undefined> {
    let entries: StateEntry[]
    try {
      if (index === 0) {
        const record = decodeAppRecord(chunk)
        const why = checkAppRecord(record, s.height, s.appHash)
        if (why !== undefined) return `application record: ${why}`
        s.record = record
        return undefined
      }
      entries = decodeStateChunk(chunk)
    } catch (err) {
      return `chunk ${index}: ${err instanceof Error ? err.message : String(err)}`
    }
    try {
      await s.state.add(entries)
    } catch (err) {
      if (err instanceof StateImportError) return `chunk ${index}: ${err.message}`
      throw err
    }
    return undefined
  }

  private async finish(s: Session): Promise<ApplyResponse> {
    if (!s.state.complete || !s.record) {
      await this.abandon(`the state under the app hash is incomplete: ${s.state.missing} entries missing`)
      return answer(ApplySnapshotChunkResult.RejectSnapshot)
    }
    await writeAppRecord(this.db, s.record)
    this.session = undefined
    await this.app.reload()
    const info = await this.app.info()
    if (info.lastBlockHeight !== s.height || !equalBytes(info.lastBlockAppHash, s.appHash)) {
      throw new Error(`restored application answers height ${info.lastBlockHeight}, expected ${s.height}`)
    }
    this.log.info('snapshot restored', {
      height: s.height,
      appHash: bytesToHex(s.appHash),
      entries: s.state.count,
      ms: Math.round(performance.now() - s.started),
    })
    return answer(ApplySnapshotChunkResult.Accept)
  }

  /** Drops the restore in progress and what it wrote. */
  private async abandon(reason: string): Promise<void> {
    const s = this.session
    if (!s) return
    this.session = undefined
    await s.state.discard()
    this.log.warn('snapshot restore abandoned', { height: s.height, reason })
  }
}
