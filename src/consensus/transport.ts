/**
 * How the consensus reactor reaches other validators: a channel per peer that carries gossip messages
 * (gossip-messages.ts) both ways. The p2p layer implements `ConsensusTransport` over libp2p
 * (p2p/consensus-transport.ts); here are the single-node loopback and an in-memory network for tests.
 * What to send whom is the reactor's business (reactor.ts): a transport only delivers. Messages cross the
 * in-memory network encoded and decoded, so whatever works here is also encodable.
 */
import { decodeGossipMessage, encodeGossipMessage, type GossipMessage } from './gossip-messages.js'

export type GossipMessageHandler = (msg: GossipMessage, peerId: string) => void

/** Told when a peer's channel opens (it can be sent to from now on) and when it closes. */
export interface PeerListener {
  added(peerId: string): void
  removed(peerId: string): void
}

export interface ConsensusTransport {
  /** The peers whose channel is open, by id. */
  peers(): Iterable<string>
  /** Queues `msg` for one peer, in order after what was queued before; false when it cannot take it (gone, queue full). */
  send(peerId: string, msg: GossipMessage): boolean
  /** Receives peers' messages; returns the unsubscribe function. */
  subscribe(handler: GossipMessageHandler): () => void
  /** Peers coming and going from now on (`removed` may also name a peer whose channel never opened); returns the unsubscribe function. */
  watchPeers(listener: PeerListener): () => void
}

/** A single node: no peers, so nothing goes out and nothing arrives. */
export class LoopbackTransport implements ConsensusTransport {
  peers(): Iterable<string> {
    return []
  }

  send(_peerId: string, _msg: GossipMessage): boolean {
    return false
  }

  subscribe(_handler: GossipMessageHandler): () => void {
    return () => {}
  }

  watchPeers(_listener: PeerListener): () => void {
    return () => {}
  }
}

/**
 * N engines in one process, every one a peer of every other. Delivery is asynchronous (next macrotask) and
 * in order per sender. A node can be made silent (its messages are dropped) or isolated (it neither sends
 * nor receives), and a share of all deliveries can be dropped at random (seeded, so a failing run can be
 * repeated) — unlike a TCP stream, which is why the reactor sends a stuck peer again what it was sent.
 */
export class InMemoryNetwork {
  private readonly handlers = new Map<string, Set<GossipMessageHandler>>()
  private readonly listeners = new Map<string, Set<PeerListener>>()
  private readonly silent = new Set<string>()
  private readonly isolated = new Set<string>()
  private dropRate = 0
  private seed = 1

  /** The transport of node `id`. */
  join(id: string): ConsensusTransport {
    if (!this.handlers.has(id)) {
      this.handlers.set(id, new Set())
      this.listeners.set(id, new Set())
      for (const [other, listeners] of this.listeners) if (other !== id) for (const l of [...listeners]) l.added(id)
    }
    return {
      peers: () => [...this.handlers.keys()].filter((other) => other !== id),
      send: (to, msg) => this.send(id, to, msg),
      subscribe: (handler) => {
        this.handlers.get(id)!.add(handler)
        return () => this.handlers.get(id)?.delete(handler)
      },
      watchPeers: (listener) => {
        this.listeners.get(id)!.add(listener)
        return () => this.listeners.get(id)?.delete(listener)
      },
    }
  }

  /** Drops everything `id` sends (it still receives). */
  setSilent(id: string, silent: boolean): void {
    if (silent) this.silent.add(id)
    else this.silent.delete(id)
  }

  /** Drops everything `id` sends and everything sent to it. */
  setIsolated(id: string, isolated: boolean): void {
    if (isolated) this.isolated.add(id)
    else this.isolated.delete(id)
  }

  /** Drops each delivery with probability `rate` (0..1), from a PRNG seeded with `seed`. */
  setDropRate(rate: number, seed = 1): void {
    this.dropRate = rate
    this.seed = seed >>> 0 || 1
  }

  private send(from: string, to: string, msg: GossipMessage): boolean {
    const handlers = this.handlers.get(to)
    if (!handlers || to === from) return false
    if (this.silent.has(from) || this.isolated.has(from)) return true
    if (this.dropRate > 0 && this.random() < this.dropRate) return true
    const bytes = encodeGossipMessage(msg)
    setImmediate(() => {
      if (this.isolated.has(to) || this.isolated.has(from)) return
      for (const h of [...handlers]) h(decodeGossipMessage(bytes), from)
    })
    return true
  }

  /** xorshift32: deterministic for a seed. */
  private random(): number {
    let x = this.seed
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    this.seed = x >>> 0
    return this.seed / 0x100000000
  }
}
