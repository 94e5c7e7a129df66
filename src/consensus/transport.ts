/**
 * How the engine reaches other validators. The p2p layer implements `ConsensusTransport` over libp2p
 * (p2p/consensus-transport.ts); here are the single-node loopback and an in-memory network for tests. Messages cross the
 * in-memory network encoded and decoded (messages.ts), so whatever works here is also encodable.
 */
import { decodeConsensusMessage, encodeConsensusMessage, type ConsensusMessage } from './messages.js'

export type ConsensusMessageHandler = (msg: ConsensusMessage, peerId: string) => void

export interface ConsensusTransport {
  /** Sends one of our own messages to every peer (best effort). */
  broadcast(msg: ConsensusMessage): void
  /** Receives peers' messages; returns the unsubscribe function. */
  subscribe(handler: ConsensusMessageHandler): () => void
}

/** A single node: no peers, so broadcasts go nowhere and nothing arrives. */
export class LoopbackTransport implements ConsensusTransport {
  broadcast(_msg: ConsensusMessage): void {}

  subscribe(_handler: ConsensusMessageHandler): () => void {
    return () => {}
  }
}

/**
 * N engines in one process. Delivery is asynchronous (next macrotask) and in order per sender. A node can
 * be made silent (its messages are dropped) or isolated (it neither sends nor receives), and a share of
 * all deliveries can be dropped at random (seeded, so a failing run can be repeated).
 */
export class InMemoryNetwork {
  private readonly handlers = new Map<string, Set<ConsensusMessageHandler>>()
  private readonly silent = new Set<string>()
  private readonly isolated = new Set<string>()
  private dropRate = 0
  private seed = 1

  /** The transport of node `id`. */
  join(id: string): ConsensusTransport {
    if (!this.handlers.has(id)) this.handlers.set(id, new Set())
    return {
      broadcast: (msg) => this.send(id, msg),
      subscribe: (handler) => {
        this.handlers.get(id)!.add(handler)
        return () => this.handlers.get(id)?.delete(handler)
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

  private send(from: string, msg: ConsensusMessage): void {
    if (this.silent.has(from) || this.isolated.has(from)) return
    const bytes = encodeConsensusMessage(msg)
    for (const [to, handlers] of this.handlers) {
      if (to === from) continue
      if (this.dropRate > 0 && this.random() < this.dropRate) continue
      setImmediate(() => {
        if (this.isolated.has(to) || this.isolated.has(from)) return
        for (const h of [...handlers]) h(decodeConsensusMessage(bytes), from)
      })
    }
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
