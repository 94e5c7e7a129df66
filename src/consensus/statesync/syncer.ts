/**
 * State sync (CometBFT `statesync/syncer.go`): discover the snapshots peers offer, take the best, get the app
 * hash it must reach from the light client (header H+1's), offer it to the application, fetch its chunks from
 * the peers that have it — `chunk_fetchers` at a time, each with `chunk_request_timeout`, a failed or refused
 * one from another peer — and apply them in order. Once the last is applied the application must report height
 * H and that app hash; the chain state after H and the commit of H come from the light client. A snapshot the
 * application or the light client refuses is dropped and the next best is tried; none found within
 * `discovery_time` means discovering again. Transport-free: peers are reached through `SnapshotSource`
 * (p2p/snapshot-protocol.ts over libp2p, an in-memory source in tests).
 */
import type { InfoResponse } from '../../abci/application.js'
import type { SnapshotProvider } from '../../abci/snapshots.js'
import { ApplySnapshotChunkResult, OfferSnapshotResult, type Snapshot } from '../../abci/wire/messages.js'
import type { Commit } from '../../comet/types.js'
import { bytesToUpperHex, equalBytes } from '../../primitives/hex.js'
import type { Logger } from '../../utils/logger.js'
import type { ChainState } from '../chain-state.js'
import { ChunkQueue } from './chunk-queue.js'
import { LightVerificationError } from './light-verify.js'
import type { LightStateProvider } from './light-state-provider.js'
import { SnapshotPool } from './snapshot-pool.js'

/** How state sync reaches peers. */
export interface SnapshotSource {
  /**
   * Asks every connected peer for its snapshots, and each peer that connects while `listener` is registered;
   * `listener` gets each snapshot a peer lists. Returns the unsubscribe function.
   */
  discover(listener: (snapshot: Snapshot, peerId: string) => void): () => void
  /** Asks the connected peers again (a discovery round found nothing usable). */
  rediscover(): void
  /** Chunk `index` of `snapshot` from `peerId`; rejects when the peer has none or `signal` aborts. */
  fetchChunk(peerId: string, snapshot: Snapshot, index: number, signal: AbortSignal): Promise<Uint8Array>
}

export interface StateSyncerOptions {
  source: SnapshotSource
  /** The application's snapshot connection. */
  snapshots: SnapshotProvider
  /** The application's Info (checked after the restore). */
  info(): Promise<InfoResponse>
  light: LightStateProvider
  discoveryTimeMs: number
  chunkRequestTimeoutMs: number
  chunkFetchers: number
  logger: Logger
  /** A restore began (`complete` false, at the snapshot's height) or the state is ready (`complete` true). */
  onStatus?: (status: { complete: boolean; height: number }) => void
  /** After each chunk applied. */
  onChunk?: (progress: { height: number; applied: number; total: number }) => void
}

/** What state sync hands the engine: the state after block H and H's commit. */
export interface StateSyncResult {
  state: ChainState
  commit: Commit
}

/** The application gave up (ABORT) or disagrees with the verified header: the node cannot continue. */
export class StateSyncAbortedError extends Error {
  override name = 'StateSyncAbortedError'
}

/** The current snapshot cannot be restored; try another (`retry`: the same one from the start). */
class SnapshotFailedError extends Error {
  constructor(
    message: string,
    readonly retry = false,
  ) {
    super(message)
  }
}

/** A pause before asking a chunk again of peers that all failed it (they may be busy or just restarting). */
const ALL_PEERS_FAILED_PAUSE_MS = 500
/**
 * Rounds of asking every peer of a snapshot for one chunk before the snapshot is given up for another
 * (its peers may have deleted it since they listed it: a snapshot is kept for `snapshot-keep-recent`
 * intervals only).
 */
const MAX_CHUNK_ROUNDS = 3
/** A pause before trying a snapshot again that failed for a passing reason (a server down, H+2 not yet produced). */
const RETRY_PAUSE_MS = 1000

export class StateSyncer {
  private readonly pool = new SnapshotPool()
  private found: (() => void) | undefined

  constructor(private readonly opts: StateSyncerOptions) {}

  /** Restores a snapshot and returns the state it reaches; throws when state sync cannot succeed (or `signal` aborts). */
  async run(initial: ChainState, signal: AbortSignal): Promise<StateSyncResult> {
    const { source, logger, light } = this.opts
    const unsubscribe = source.discover((snapshot, peer) => {
      if (this.pool.add(snapshot, peer)) {
        logger.info('discovered new snapshot', { height: Number(snapshot.height), format: snapshot.format, peer })
        this.found?.()
      }
    })
    try {
      for (;;) {
        await this.discover(signal)
        for (let snapshot = this.pool.best(light.trustHeight); snapshot; snapshot = this.pool.best(light.trustHeight)) {
          signal.throwIfAborted()
          try {
            return await this.restore(initial, snapshot, signal)
          } catch (err) {
            if (!(err instanceof SnapshotFailedError)) throw err
            logger.warn('snapshot restore failed', { height: Number(snapshot.height), format: snapshot.format, reason: err.message })
            if (err.retry) {
              await delay(RETRY_PAUSE_MS, signal)
              break
            }
            this.pool.reject(snapshot)
          }
        }
        logger.info('no usable snapshot found yet; discovering again', { discoveryTime: `${this.opts.discoveryTimeMs}ms` })
        source.rediscover()
      }
    } finally {
      unsubscribe()
    }
  }

  /** Waits `discovery_time` (0: until a snapshot at or above the trust height is on offer). */
  private async discover(signal: AbortSignal): Promise<void> {
    const { discoveryTimeMs, logger, light } = this.opts
    logger.info('discovering snapshots', { for: discoveryTimeMs > 0 ? `${discoveryTimeMs}ms` : 'the first' })
    await new Promise<void>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer)
        signal.removeEventListener('abort', aborted)
        this.found = undefined
        resolve()
      }
      const aborted = (): void => {
        clearTimeout(timer)
        this.found = undefined
        reject(signal.reason)
      }
      const timer = discoveryTimeMs > 0 ? setTimeout(done, discoveryTimeMs) : undefined
      if (discoveryTimeMs === 0) {
        if (this.pool.best(light.trustHeight)) return done()
        this.found = () => {
          if (this.pool.best(light.trustHeight)) done()
        }
      }
      signal.addEventListener('abort', aborted, { once: true })
    })
  }

  private async restore(initial: ChainState, snapshot: Snapshot, signal: AbortSignal): Promise<StateSyncResult> {
    const { snapshots, light, logger } = this.opts
    const height = Number(snapshot.height)
    let appHash: Uint8Array
    try {
      appHash = await light.appHash(height)
    } catch (err) {
      // A bad trust hash or an expired trust period fails every snapshot: stop. Anything else is this height's.
      if (isTrustError(err)) throw err
      const verified = err instanceof LightVerificationError
      throw new SnapshotFailedError(`cannot verify the app hash of height ${height}: ${(err as Error).message}`, !verified)
    }
    logger.info('offering snapshot to the application', {
      height,
      format: snapshot.format,
      chunks: snapshot.chunks,
      appHash: bytesToUpperHex(appHash),
    })
    const offered = await snapshots.offerSnapshot({ snapshot, appHash })
    switch (offered) {
      case OfferSnapshotResult.Accept:
        break
      case OfferSnapshotResult.Abort:
        throw new StateSyncAbortedError('the application aborted state sync (OfferSnapshot ABORT)')
      case OfferSnapshotResult.RejectFormat:
        this.pool.rejectFormat(snapshot.format)
        throw new SnapshotFailedError(`the application rejected snapshot format ${snapshot.format}`)
      case OfferSnapshotResult.RejectSender:
        for (const peer of this.pool.peersOf(snapshot)) this.pool.rejectPeer(peer)
        throw new SnapshotFailedError('the application rejected the peers of the snapshot')
      case OfferSnapshotResult.Reject:
        throw new SnapshotFailedError('the application rejected the snapshot')
      default:
        throw new StateSyncAbortedError(`the application answered OfferSnapshot with unknown result ${offered}`)
    }
    this.opts.onStatus?.({ complete: false, height })
    await this.applyChunks(snapshot, signal)
    const info = await this.opts.info()
    if (info.lastBlockHeight !== height || !equalBytes(info.lastBlockAppHash, appHash)) {
      throw new StateSyncAbortedError(
        `after the restore the application reports height ${info.lastBlockHeight} and app hash ${bytesToUpperHex(info.lastBlockAppHash)}; ` +
          `the verified header says ${height} and ${bytesToUpperHex(appHash)}`,
      )
    }
    const [state, commit] = await Promise.all([light.state(height, initial), light.commit(height)])
    logger.info('snapshot restored', { height, appHash: bytesToUpperHex(appHash) })
    this.opts.onStatus?.({ complete: true, height })
    return { state, commit }
  }

  /** Fetches (several at a time) and applies (in order) every chunk of `snapshot`. */
  private async applyChunks(snapshot: Snapshot, signal: AbortSignal): Promise<void> {
    const queue = new ChunkQueue(snapshot.chunks)
    const stop = new AbortController()
    const stopped = AbortSignal.any([signal, stop.signal])
    const fetchers = Array.from({ length: Math.max(1, this.opts.chunkFetchers) }, () => this.fetchChunks(snapshot, queue, stopped))
    for (const f of fetchers) f.catch(() => {})
    try {
      await Promise.race([this.applyInOrder(snapshot, queue, stopped), ...fetchers])
    } finally {
      stop.abort()
      await Promise.allSettled(fetchers)
    }
  }

  private async applyInOrder(snapshot: Snapshot, queue: ChunkQueue, signal: AbortSignal): Promise<void> {
    const { snapshots, logger } = this.opts
    const height = Number(snapshot.height)
    while (!queue.done) {
      signal.throwIfAborted()
      const chunk = queue.next()
      if (!chunk) {
        await untilChangedOrAborted(queue, signal)
        continue
      }
      const response = await snapshots.applySnapshotChunk({ index: chunk.index, chunk: chunk.data, sender: chunk.sender })
      for (const index of response.refetchChunks) queue.discard(index)
      for (const sender of response.rejectSenders) {
        logger.warn('the application rejected a snapshot peer', { peer: sender })
        this.pool.rejectPeer(sender)
        queue.discardSender(sender)
      }
      switch (response.result) {
        case ApplySnapshotChunkResult.Accept:
          // The chunk may itself be among those to fetch again.
          if (queue.next()?.index === chunk.index) queue.markApplied(chunk.index)
          this.opts.onChunk?.({ height, applied: queue.applied, total: queue.total })
          logger.debug('applied snapshot chunk', { height, chunk: chunk.index, total: queue.total })
          break
        case ApplySnapshotChunkResult.Retry:
          logger.info('the application asks for a snapshot chunk again', { height, chunk: chunk.index, peer: chunk.sender })
          break
        case ApplySnapshotChunkResult.RetrySnapshot:
          throw new SnapshotFailedError('the application asked to restore the snapshot again', true)
        case ApplySnapshotChunkResult.RejectSnapshot:
          throw new SnapshotFailedError('the application rejected the snapshot while applying it')
        case ApplySnapshotChunkResult.Abort:
          throw new StateSyncAbortedError(`the application aborted state sync at chunk ${chunk.index}`)
        default:
          throw new StateSyncAbortedError(`the application answered ApplySnapshotChunk with unknown result ${response.result}`)
      }
    }
  }

  /** One fetcher: takes the lowest missing chunk and asks a peer that has the snapshot, another one after a failure. */
  private async fetchChunks(snapshot: Snapshot, queue: ChunkQueue, signal: AbortSignal): Promise<void> {
    const { source, chunkRequestTimeoutMs, logger } = this.opts
    const failedPeers = new Map<number, Set<string>>()
    const rounds = new Map<number, number>()
    while (!queue.done && !signal.aborted) {
      const index = queue.allocate()
      if (index === undefined) {
        await untilChangedOrAborted(queue, signal)
        continue
      }
      const banned = queue.bannedFor(index)
      const candidates = this.pool.peersOf(snapshot).filter((p) => !banned.has(p))
      if (candidates.length === 0) {
        queue.failed(index)
        throw new SnapshotFailedError(`no peer left to serve chunk ${index}`)
      }
      const failed = failedPeers.get(index) ?? new Set<string>()
      let fresh = candidates.filter((p) => !failed.has(p))
      if (fresh.length === 0) {
        const round = (rounds.get(index) ?? 1) + 1
        if (round > MAX_CHUNK_ROUNDS) {
          queue.failed(index)
          throw new SnapshotFailedError(
            `no peer served chunk ${index} in ${MAX_CHUNK_ROUNDS} rounds of asking each peer that listed the snapshot`,
          )
        }
        rounds.set(index, round)
        failed.clear()
        fresh = candidates
        await delay(ALL_PEERS_FAILED_PAUSE_MS, signal).catch(() => {})
      }
      const peer = fresh[index % fresh.length]!
      try {
        const data = await source.fetchChunk(peer, snapshot, index, AbortSignal.any([signal, AbortSignal.timeout(chunkRequestTimeoutMs)]))
        queue.add({ index, data, sender: peer })
        failedPeers.delete(index)
        rounds.delete(index)
      } catch (err) {
        queue.failed(index)
        if (signal.aborted) return
        failed.add(peer)
        failedPeers.set(index, failed)
        logger.debug('snapshot chunk fetch failed', { chunk: index, peer, error: (err as Error).message })
      }
    }
  }
}

function isTrustError(err: unknown): boolean {
  return err instanceof Error && (err.name === 'TrustOptionsError' || err.name === 'TrustExpiredError')
}

function untilChangedOrAborted(queue: ChunkQueue, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const onAbort = (): void => resolve()
    signal.addEventListener('abort', onAbort, { once: true })
    void queue.changed().then(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    })
  })
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer)
        reject(signal.reason)
      },
      { once: true },
    )
  })
}
