/**
 * State sync over libp2p (CometBFT's statesync reactor, channels 0x60 and 0x61): a peer asked for its snapshots
 * answers with the recent ones its application lists (`SnapshotsRequest` → `SnapshotsResponse`s), and a peer
 * asked for a chunk loads it from its application (`ChunkRequest{height, format, index}` →
 * `ChunkResponse{chunk}` or `missing`). Each is one request-response stream. Serves from the application's
 * `SnapshotProvider`; implements the engine's `SnapshotSource` for a node that state-syncs. A peer whose
 * answer does not decode is disconnected.
 */
import type { Stream } from '@libp2p/interface'
import type { LengthPrefixedStream } from 'it-length-prefixed-stream'
import type { SnapshotProvider } from '../abci/snapshots.js'
import type { Snapshot } from '../abci/wire/messages.js'
import { decodeSnapshot, encodeSnapshot } from '../abci/wire/snapshot-codec.js'
import { ProtoReader, ProtoWriter } from '../comet/proto.js'
import type { SnapshotSource } from '../consensus/statesync/syncer.js'
import type { Logger } from '../utils/logger.js'
import type { P2PNode, Peer } from './p2p-node.js'

export const SNAPSHOTS_PROTOCOL = '/nodectl/statesync/snapshots/1'
export const CHUNK_PROTOCOL = '/nodectl/statesync/chunk/1'

/** CometBFT `recentSnapshots`: a peer offers its 10 most recent snapshots. */
const RECENT_SNAPSHOTS = 10
/** CometBFT's statesync channel message limit (`chunkMsgSize`, 16 MB), plus room for the envelope. */
const MAX_CHUNK_RESPONSE_BYTES = 16_000_000 + 1024
/** A list of ten snapshots with their metadata. */
const MAX_SNAPSHOTS_RESPONSE_BYTES = 4 << 20
/** A request is three varints. */
const MAX_REQUEST_BYTES = 64
/** A peer that does not answer a snapshots request within this is skipped. */
const LIST_TIMEOUT_MS = 10_000

/** Test-only faults of the serving side (`nodectl start --unsafe-corrupt-snapshot-chunk`). */
export interface SnapshotServingFaults {
  /** Chunk indexes served with their bytes flipped. */
  corruptChunks?: readonly number[]
}

export class P2PSnapshots implements SnapshotSource {
  private readonly listeners = new Set<(snapshot: Snapshot, peerId: string) => void>()

  constructor(
    private readonly p2p: P2PNode,
    private readonly provider: SnapshotProvider,
    private readonly log: Logger,
    private readonly faults: SnapshotServingFaults = {},
  ) {}

  /** Serves both protocols (call before p2p.start()). */
  start(): void {
    this.p2p.handle(SNAPSHOTS_PROTOCOL, (stream, peer) => void this.serveSnapshots(stream, peer), MAX_REQUEST_BYTES)
    this.p2p.handle(CHUNK_PROTOCOL, (stream, peer) => void this.serveChunk(stream, peer), MAX_REQUEST_BYTES)
    this.p2p.events.on('peer:connected', (peer) => {
      if (this.listeners.size > 0) void this.askSnapshots(peer)
    })
  }

  discover(listener: (snapshot: Snapshot, peerId: string) => void): () => void {
    this.listeners.add(listener)
    this.rediscover()
    return () => this.listeners.delete(listener)
  }

  rediscover(): void {
    for (const peer of this.p2p.peers()) void this.askSnapshots(peer)
  }

  async fetchChunk(peerId: string, snapshot: Snapshot, index: number, signal: AbortSignal): Promise<Uint8Array> {
    const peer = this.p2p.peers().find((p) => p.info.id === peerId)
    if (!peer) throw new Error(`peer ${peerId} is not connected`)
    const lp = await this.p2p.openStream(peer, CHUNK_PROTOCOL, MAX_CHUNK_RESPONSE_BYTES)
    try {
      const request = new ProtoWriter().uint(1, snapshot.height).uint(2, snapshot.format).uint(3, index).finish()
      await lp.write(request, { signal })
      const frame = (await lp.read({ signal })).subarray()
      let chunk: Uint8Array | undefined
      let missing = false
      try {
        const r = new ProtoReader(frame)
        while (r.next()) {
          if (r.field === 1) chunk = r.bytes()
          else if (r.field === 2) missing = r.uint64() !== 0n
          else r.skip()
        }
      } catch (err) {
        this.p2p.disconnect(peer, `malformed chunk response: ${(err as Error).message}`)
        throw err
      }
      if (missing || !chunk) throw new Error(`peer ${peerId} has no chunk ${index} of snapshot ${snapshot.height}`)
      return chunk
    } finally {
      await lp
        .unwrap()
        .close()
        .catch(() => {})
    }
  }

  private async askSnapshots(peer: Peer): Promise<void> {
    try {
      const lp = await this.p2p.openStream(peer, SNAPSHOTS_PROTOCOL, MAX_SNAPSHOTS_RESPONSE_BYTES)
      const signal = AbortSignal.timeout(LIST_TIMEOUT_MS)
      await lp.write(new ProtoWriter().uint(1, 1n).finish(), { signal })
      const r = new ProtoReader((await lp.read({ signal })).subarray())
      const snapshots: Snapshot[] = []
      while (r.next()) {
        if (r.field === 1) snapshots.push(decodeSnapshot(r.bytes()))
        else r.skip()
      }
      await lp
        .unwrap()
        .close()
        .catch(() => {})
      for (const s of snapshots) for (const l of [...this.listeners]) l(s, peer.info.id)
    } catch (err) {
      this.log.debug('snapshots request failed', { peer: peer.info.id, error: (err as Error).message })
    }
  }

  private async serveSnapshots(stream: LengthPrefixedStream<Stream>, peer: Peer): Promise<void> {
    try {
      await stream.read({ signal: AbortSignal.timeout(LIST_TIMEOUT_MS) })
      const recent = (await this.provider.listSnapshots())
        .sort((a, b) => (a.height === b.height ? b.format - a.format : a.height > b.height ? -1 : 1))
        .slice(0, RECENT_SNAPSHOTS)
      const w = new ProtoWriter()
      for (const s of recent) w.bytes(1, encodeSnapshot(s))
      await stream.write(w.finish())
      await stream.unwrap().close()
    } catch (err) {
      this.log.debug('snapshots request failed', { peer: peer.info.id, error: (err as Error).message })
      stream.unwrap().abort(err as Error)
    }
  }

  private async serveChunk(stream: LengthPrefixedStream<Stream>, peer: Peer): Promise<void> {
    try {
      const r = new ProtoReader((await stream.read({ signal: AbortSignal.timeout(LIST_TIMEOUT_MS) })).subarray())
      let height = 0n
      let format = 0
      let index = 0
      while (r.next()) {
        if (r.field === 1) height = r.uint64()
        else if (r.field === 2) format = Number(r.uint64())
        else if (r.field === 3) index = Number(r.uint64())
        else r.skip()
      }
      let chunk = await this.provider.loadSnapshotChunk({ height, format, chunk: index })
      if (chunk.length > 0 && this.faults.corruptChunks?.includes(index)) chunk = chunk.map((b) => b ^ 0xff)
      const w = new ProtoWriter()
      if (chunk.length > 0) w.bytes(1, chunk)
      else w.uint(2, 1n)
      await stream.write(w.finish())
      await stream.unwrap().close()
    } catch (err) {
      this.log.debug('chunk request failed', { peer: peer.info.id, error: (err as Error).message })
      stream.unwrap().abort(err as Error)
    }
  }
}
