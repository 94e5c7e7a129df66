/**
 * Transaction gossip (CometBFT's mempool reactor, channel 0x30): every transaction that enters this node's
 * pool — from RPC or from a peer — is sent to each peer not known to have it, and a peer that connects gets
 * the pool's pending transactions, so a transaction sent to any node reaches the proposer. Frames are CometBFT's `Txs{repeated bytes txs = 1}`: the transactions that
 * entered the pool within one turn of the event loop travel together. The receiving pool re-checks each
 * one (`submit`) unless its pool already holds it (`has`); a rejection there (already known, nonce too low) is
 * normal and only logged at debug.
 *
 * In a network where every node is every other's peer, each node passes on what it took from one peer to the
 * others, which mostly had it already: with 4 validators a transaction reaches each node about twice. A copy
 * the pool already holds is dropped on its hash, before any decoding or admission work.
 */
import { ProtoReader, ProtoWriter } from '../comet/proto.js'
import { keccak256 } from '../crypto/index.js'
import { bytesToHex } from '../primitives/hex.js'
import type { Logger } from '../utils/logger.js'
import { PeerChannel } from './peer-channel.js'
import type { P2PNode, Peer } from './p2p-node.js'

export const TX_PROTOCOL = '/nodectl/mempool/1'

/** Transactions per frame are cut at this many bytes; one transaction is at most `[mempool] max_tx_bytes` (1 MiB). */
const MAX_BATCH_BYTES = 1 << 20
/** A frame is a batch plus its length prefixes, or one transaction of up to 1 MiB. */
const MAX_FRAME_BYTES = 4 << 20
/** Hashes remembered per peer as "it has this tx"; the oldest are forgotten first. */
const MAX_KNOWN_PER_PEER = 20_000

/** A transaction with its EVM hash (0x hex). */
export interface GossipTx {
  raw: Uint8Array
  hash: string
}

/** The pool as gossip sees it. */
export interface TxGossipPool {
  /** Adds a peer's transaction (checked as any other submission); rejects when refused. */
  submit(raw: Uint8Array): Promise<unknown>
  /** Whether the pool holds the transaction with this EVM hash (0x hex). */
  has(hash: string): boolean
  /** The executable transactions waiting now (sent to a peer that connects). */
  pending(): GossipTx[]
}

export class TxGossip {
  private readonly channel: PeerChannel
  /** Per peer: EVM hashes (0x hex) of txs it sent us or we sent it. */
  private readonly known = new Map<Peer, Set<string>>()
  private batch: GossipTx[] = []
  private flushScheduled = false

  constructor(
    private readonly p2p: P2PNode,
    private readonly pool: TxGossipPool,
    private readonly log: Logger,
  ) {
    this.channel = new PeerChannel(
      p2p,
      {
        protocol: TX_PROTOCOL,
        maxFrameBytes: MAX_FRAME_BYTES,
        onFrame: (frame, peer) => this.receive(frame, peer),
        onOpen: (peer) => this.sendTo(peer, this.pool.pending()),
        onClose: (peer) => this.known.delete(peer),
      },
      log,
    )
  }

  /** Serves the protocol (call before p2p.start()). */
  start(): void {
    this.channel.start()
  }

  /** A tx entered the pool (its EVM hash as 0x hex): queue it for the peers that lack it. */
  announce(raw: Uint8Array, hash: string): void {
    this.batch.push({ raw, hash })
    if (this.flushScheduled) return
    this.flushScheduled = true
    setImmediate(() => this.flush())
  }

  private flush(): void {
    this.flushScheduled = false
    const batch = this.batch
    this.batch = []
    for (const peer of this.channel.peers()) this.sendTo(peer, batch)
  }

  /** Sends `txs` the peer is not known to have, in frames of at most MAX_BATCH_BYTES. */
  private sendTo(peer: Peer, txs: GossipTx[]): void {
    const known = this.knownBy(peer)
    let w = new ProtoWriter()
    let bytes = 0
    let sent: string[] = []
    const send = (): void => {
      if (sent.length > 0 && this.channel.send(peer, w.finish())) for (const hash of sent) remember(known, hash)
      w = new ProtoWriter()
      bytes = 0
      sent = []
    }
    for (const { raw, hash } of txs) {
      if (known.has(hash)) continue
      if (bytes + raw.length > MAX_BATCH_BYTES) send()
      w.bytes(1, raw)
      bytes += raw.length
      sent.push(hash)
    }
    send()
  }

  private receive(frame: Uint8Array, peer: Peer): void {
    const txs: Uint8Array[] = []
    try {
      const r = new ProtoReader(frame)
      while (r.next()) {
        if (r.field === 1) txs.push(r.bytes())
        else r.skip()
      }
    } catch (err) {
      this.p2p.disconnect(peer, `malformed txs message: ${(err as Error).message}`)
      return
    }
    const known = this.knownBy(peer)
    for (const raw of txs) {
      const hash = bytesToHex(keccak256(raw))
      remember(known, hash)
      if (this.pool.has(hash)) continue
      this.pool.submit(raw).catch((err: Error) => this.log.debug('peer tx not added', { peer: peer.info.id, reason: err.message }))
    }
  }

  private knownBy(peer: Peer): Set<string> {
    let known = this.known.get(peer)
    if (!known) {
      known = new Set()
      this.known.set(peer, known)
    }
    return known
  }
}

/** Adds `hash`, forgetting the oldest entry beyond the bound (a Set iterates in insertion order). */
function remember(known: Set<string>, hash: string): void {
  known.add(hash)
  if (known.size > MAX_KNOWN_PER_PEER) known.delete(known.values().next().value!)
}
