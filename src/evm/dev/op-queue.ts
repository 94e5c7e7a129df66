/**
 * The dev operations waiting for a block. The application's PrepareProposal puts every queued
 * operation at the front of the block it proposes, in queue order; an operation leaves the queue only
 * when a committed block carried it (a proposal that is not committed leaves it for the next one),
 * and whoever queued it learns that height.
 *
 * An operation that wants a block of its own (a set, a transaction) counts in `blockWanted()` and
 * tells the `available` listeners, which wake the engine as a new pool transaction does; so does a
 * block asked for by `requestBlock()` (evm_mine). A header override waits for the next block that is
 * wanted: one with a transaction, a set, or asked for. The blocks the engine makes on its own (the
 * empty block after a change of app hash, the empty-block interval) do not take it, so an override
 * set after a transaction's receipt still applies to the next block the caller makes.
 */
import { equalBytes } from '../../primitives/hex.js'
import { TypedEmitter } from '../../utils/events.js'
import { encodeDevOp, type DevOp } from './ops.js'

interface QueuedOp {
  op: DevOp
  raw: Uint8Array
  wantsBlock: boolean
  /** Called with the height of the committed block that carried the operation. */
  resolve: (height: number) => void
  /** Called when the operation is dropped before any block carried it (a revert). */
  reject: (err: Error) => void
}

type DevOpQueueEvents = {
  /** A queued operation wants a block. */
  available: undefined
}

export class DevOpQueue {
  private readonly queued: QueuedOp[] = []
  private readonly events = new TypedEmitter<DevOpQueueEvents>()

  /**
   * Queues `op`; the promise resolves with the height of the committed block that carries it.
   * `wantsBlock`: the operation needs a block now (sets and transactions), not the next one whenever.
   */
  push(op: DevOp, wantsBlock: boolean): Promise<number> {
    let resolve: (height: number) => void = () => {}
    let reject: (err: Error) => void = () => {}
    const committed = new Promise<number>((res, rej) => {
      resolve = res
      reject = rej
    })
    this.queued.push({ op, raw: encodeDevOp(op), wantsBlock, resolve, reject })
    if (wantsBlock) this.events.emit('available', undefined)
    return committed
  }

  /**
   * Drops every queued operation (the chain went back to a snapshot: what was queued after it is gone,
   * as on Anvil and Hardhat); their callers get `reason`.
   */
  clear(reason: string): void {
    for (const q of this.queued.splice(0)) q.reject(new Error(reason))
  }

  /** The encoded operations a proposal carries first, in queue order. */
  pending(): Uint8Array[] {
    return this.queued.map((q) => q.raw)
  }

  /** The operations still queued, in order (what the next block will apply). */
  pendingOps(): DevOp[] {
    return this.queued.map((q) => q.op)
  }

  /**
   * Asks for one block, made even with nothing else to carry, which takes the header overrides queued
   * before it (a `mine` operation ends the operations a block takes, so n requests make n blocks, each
   * with the operations queued before its request). Resolves with its height once committed.
   */
  requestBlock(): Promise<number> {
    return this.push({ kind: 'mine' }, true)
  }

  /** Number of queued operations that want a block of their own (sets, transactions, requested blocks). */
  blockWanted(): number {
    let n = 0
    for (const q of this.queued) if (q.wantsBlock) n++
    return n
  }

  /** Subscribes to operations that want a block; returns the unsubscribe function. */
  onAvailable(listener: () => void): () => void {
    return this.events.on('available', listener)
  }

  /**
   * Block `height` was committed carrying `ops` (encoded): each leaves the queue and its waiter learns
   * the height.
   */
  confirm(ops: readonly Uint8Array[], height: number): void {
    for (const raw of ops) {
      const i = this.queued.findIndex((q) => equalBytes(q.raw, raw))
      if (i < 0) continue
      const [done] = this.queued.splice(i, 1)
      done!.resolve(height)
    }
    if (this.blockWanted() > 0) this.events.emit('available', undefined)
  }
}
