/**
 * Block sync over libp2p (CometBFT's blocksync reactor, channel 0x40): peers tell each other their stored
 * range (`StatusResponse{height, base}`) when they connect and after every block, over the status channel;
 * a node that is behind asks one peer per height for the block and its commit on a request-response stream
 * (`BlockRequest{height}` → `BlockResponse{block, commit}` or `NoBlockResponse{height}`). Implements the
 * engine's `BlockSyncSource`; verification is the engine's (consensus/block-sync.ts). A peer whose block or
 * commit does not verify, or whose frames do not decode, is disconnected.
 */
import type { Stream } from '@libp2p/interface'
import type { LengthPrefixedStream } from 'it-length-prefixed-stream'
import type { Commit } from '../comet/types.js'
import { decodeCommit, encodeCommit } from '../comet/encoding.js'
import { ProtoReader, ProtoWriter } from '../comet/proto.js'
import type { BlockSyncSource, FetchedBlock } from '../consensus/block-sync.js'
import type { Logger } from '../utils/logger.js'
import { PeerChannel } from './peer-channel.js'
import type { P2PNode, Peer } from './p2p-node.js'

export const BLOCK_SYNC_STATUS_PROTOCOL = '/nodectl/blocksync/status/1'
export const BLOCK_SYNC_BLOCK_PROTOCOL = '/nodectl/blocksync/block/1'

/** A status is two varints. */
const MAX_STATUS_BYTES = 64
/** A block is at most 100 MiB (`types.MaxBlockSizeBytes`); its commit a few KiB per validator. */
const MAX_BLOCK_RESPONSE_BYTES = 104_857_600 + (1 << 20)
/** A request is one varint. */
const MAX_REQUEST_BYTES = 32
/** A peer that does not answer a block request within this is skipped (CometBFT drops peers silent for 15 s). */
const REQUEST_TIMEOUT_MS = 15_000

/** What the protocol serves blocks from (the node's block store). */
export interface BlockSyncStore {
  /** Lowest and highest stored heights (0 when empty). */
  base(): number
  height(): number
  loadBlockBytes(height: number): Promise<Uint8Array | undefined>
  /** The canonical commit (from the next block), else the seen commit of the head. */
  loadCommit(height: number): Promise<Commit | undefined>
}

interface PeerRange {
  base: number
  height: number
}

export class P2PBlockSync implements BlockSyncSource {
  private readonly ranges = new Map<Peer, PeerRange>()
  private readonly listeners = new Set<(height: number, peerId: string) => void>()
  private readonly status: PeerChannel
  /** Requests in flight per peer: fetches go to the least busy peer that has the height. */
  private readonly busy = new Map<Peer, number>()

  constructor(
    private readonly p2p: P2PNode,
    private readonly store: BlockSyncStore,
    private readonly log: Logger,
  ) {
    this.status = new PeerChannel(
      p2p,
      {
        protocol: BLOCK_SYNC_STATUS_PROTOCOL,
        maxFrameBytes: MAX_STATUS_BYTES,
        onFrame: (frame, peer) => this.receiveStatus(frame, peer),
        onOpen: (peer) => this.status.send(peer, this.encodeOwnStatus()),
        onClose: (peer) => {
          this.ranges.delete(peer)
          this.busy.delete(peer)
        },
      },
      log,
    )
  }

  /** Serves both protocols (call before p2p.start()). */
  start(): void {
    this.status.start()
    this.p2p.handle(BLOCK_SYNC_BLOCK_PROTOCOL, (stream, peer) => void this.serveBlock(stream, peer), MAX_REQUEST_BYTES)
  }

  /** A block was stored: tell every peer the new range. */
  announceHeight(): void {
    this.status.broadcast(this.encodeOwnStatus())
  }

  maxPeerHeight(): number {
    let max = 0
    for (const r of this.ranges.values()) if (r.height > max) max = r.height
    return max
  }

  onPeerHeight(listener: (height: number, peerId: string) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  async fetchBlock(height: number, signal: AbortSignal): Promise<FetchedBlock> {
    const candidates = [...this.ranges].filter(([, r]) => r.base <= height && height <= r.height).map(([p]) => p)
    if (candidates.length === 0) throw new Error(`no peer has block ${height}`)
    const peer = candidates.reduce((a, b) => ((this.busy.get(b) ?? 0) < (this.busy.get(a) ?? 0) ? b : a))
    this.busy.set(peer, (this.busy.get(peer) ?? 0) + 1)
    try {
      return await this.request(peer, height, signal)
    } finally {
      const n = this.busy.get(peer)
      if (n !== undefined) this.busy.set(peer, n - 1)
    }
  }

  reportInvalid(peerId: string, reason: string): void {
    const peer = [...this.ranges.keys()].find((p) => p.info.id === peerId)
    if (peer) this.p2p.disconnect(peer, reason)
  }

  private async request(peer: Peer, height: number, signal: AbortSignal): Promise<FetchedBlock> {
    const timeout = AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)])
    const lp = await this.p2p.openStream(peer, BLOCK_SYNC_BLOCK_PROTOCOL, MAX_BLOCK_RESPONSE_BYTES)
    try {
      await lp.write(new ProtoWriter().message(1, new ProtoWriter().int(1, height).finish()).finish(), { signal: timeout })
      const response = decodeBlockResponse((await lp.read({ signal: timeout })).subarray())
      if (response.kind === 'noBlock') {
        // A peer that pruned the height since its last status (min-retain-blocks): its range starts above it now.
        const range = this.ranges.get(peer)
        if (range && height < range.height) range.base = Math.max(range.base, height + 1)
        throw new Error(`peer ${peer.info.id} has no block ${height}`)
      }
      return { blockBytes: response.block, commit: response.commit, peerId: peer.info.id }
    } catch (err) {
      if (err instanceof MalformedMessageError) this.p2p.disconnect(peer, err.message)
      throw err
    } finally {
      await lp
        .unwrap()
        .close()
        .catch(() => {})
    }
  }

  private async serveBlock(stream: LengthPrefixedStream<Stream>, peer: Peer): Promise<void> {
    try {
      const request = new ProtoReader((await stream.read({ signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })).subarray())
      let height = 0
      while (request.next()) {
        if (request.field !== 1) {
          request.skip()
          continue
        }
        const inner = new ProtoReader(request.bytes())
        while (inner.next()) {
          if (inner.field === 1) height = inner.int64Number()
          else inner.skip()
        }
      }
      const [block, commit] = await Promise.all([this.store.loadBlockBytes(height), this.store.loadCommit(height)])
      const w = new ProtoWriter()
      if (block && commit) w.message(3, new ProtoWriter().bytes(1, block).bytes(2, encodeCommit(commit)).finish())
      else w.message(2, new ProtoWriter().int(1, height).finish())
      await stream.write(w.finish())
      await stream.unwrap().close()
    } catch (err) {
      this.log.debug('block request failed', { peer: peer.info.id, error: (err as Error).message })
      stream.unwrap().abort(err as Error)
    }
  }

  private encodeOwnStatus(): Uint8Array {
    return new ProtoWriter().message(5, new ProtoWriter().int(1, this.store.height()).int(2, this.store.base()).finish()).finish()
  }

  private receiveStatus(frame: Uint8Array, peer: Peer): void {
    let range: PeerRange
    try {
      range = decodeStatus(frame)
    } catch (err) {
      this.p2p.disconnect(peer, `malformed block sync status: ${(err as Error).message}`)
      return
    }
    this.ranges.set(peer, range)
    for (const l of [...this.listeners]) l(range.height, peer.info.id)
  }
}

/** A peer's frame that does not decode: the peer is disconnected. */
class MalformedMessageError extends Error {}

function decodeStatus(frame: Uint8Array): PeerRange {
  const r = new ProtoReader(frame)
  const range: PeerRange = { base: 0, height: 0 }
  while (r.next()) {
    if (r.field !== 5) {
      r.skip()
      continue
    }
    const inner = new ProtoReader(r.bytes())
    while (inner.next()) {
      if (inner.field === 1) range.height = inner.int64Number()
      else if (inner.field === 2) range.base = inner.int64Number()
      else inner.skip()
    }
  }
  if (range.height < 0 || range.base < 0 || range.base > range.height) throw new Error(`bad range ${range.base}..${range.height}`)
  return range
}

type BlockResponse = { kind: 'block'; block: Uint8Array; commit: Commit } | { kind: 'noBlock' }

function decodeBlockResponse(frame: Uint8Array): BlockResponse {
  try {
    const r = new ProtoReader(frame)
    let out: BlockResponse | undefined
    while (r.next()) {
      if (r.field === 2) {
        r.skip()
        out = { kind: 'noBlock' }
      } else if (r.field === 3) {
        const inner = new ProtoReader(r.bytes())
        let block: Uint8Array | undefined
        let commit: Commit | undefined
        while (inner.next()) {
          if (inner.field === 1) block = inner.bytes()
          else if (inner.field === 2) commit = decodeCommit(inner.bytes())
          else inner.skip()
        }
        if (!block || !commit) throw new Error('block response without block or commit')
        out = { kind: 'block', block, commit }
      } else r.skip()
    }
    if (!out) throw new Error('empty block sync response')
    return out
  } catch (err) {
    throw new MalformedMessageError(`malformed block sync response: ${(err as Error).message}`)
  }
}
