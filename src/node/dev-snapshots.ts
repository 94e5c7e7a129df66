/**
 * Snapshots of a dev chain (docs/dev-chain.md, "Snapshots"): a snapshot is the chain state at a height
 * (kept in memory, as Anvil's and Hardhat's) with the pool's transactions of that moment; a revert rolls
 * every store back to that height with the engine paused (`ConsensusEngine.rewind`), then refills the
 * pool with what it held. A reset is a revert to the state before the first block. The logs
 * subscriptions hear the removed blocks' logs again with `removed: true` (geth's reorg), and the
 * validator-admin contract's copy of the validator set goes back with consensus's.
 */
import type { SnapshotBackend, SnapshotEntry } from '../api/dev/index.js'
import type { ValidatorUpdate } from '../abci/types.js'
import type { ValidatorSet } from '../comet/validator-set.js'
import type { ChainState, ConsensusEngine, RewindableApp } from '../consensus/index.js'
import type { EvmApplication } from '../evm/app.js'
import type { EvmLog } from '../evm/store/views.js'
import type { TxPool } from '../txpool/index.js'
import type { Logger } from '../utils/logger.js'
import type { NodeEvents } from './node-events.js'

interface Snapshot {
  id: bigint
  state: ChainState
  /** The EVM hash of the block it returns to (anvil_metadata lists it). */
  hash: Uint8Array
  /** The pool's transactions when it was taken (raw bytes, in nonce order per sender). */
  pool: Uint8Array[]
}

export class DevSnapshots implements SnapshotBackend {
  /** Hardhat's first id is 1; ids only grow, so a stale id never names a newer snapshot. */
  private nextId = 1n
  /** Oldest first. */
  private snapshots: Snapshot[] = []
  /** One snapshot or revert at a time. */
  private exclusive: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly engine: ConsensusEngine,
    private readonly app: EvmApplication,
    private readonly pool: TxPool,
    private readonly events: NodeEvents,
    private readonly log: Logger,
  ) {}

  snapshot(): Promise<bigint> {
    return this.runExclusive(async () => {
      // A height whose receipts are readable may still be finishing in the engine: let it finish, so the
      // snapshot's state is the height the caller has seen.
      await this.engine.drained()
      const state = this.engine.getState()
      const block = await this.app.getBlock(state.lastBlockHeight)
      if (!block) throw new Error(`the EVM block of height ${state.lastBlockHeight} is missing`)
      const id = this.nextId++
      const pool = [...this.pool.pending().values(), ...this.pool.queued().values()].flat().map((tx) => tx.raw)
      this.snapshots.push({ id, state, hash: block.hash, pool })
      return id
    })
  }

  /** The snapshots evm_revert can return to, oldest first. */
  entries(): SnapshotEntry[] {
    return this.snapshots.map((s) => ({ id: s.id, height: s.state.lastBlockHeight, hash: s.hash }))
  }

  revert(id: bigint): Promise<boolean> {
    return this.runExclusive(async () => {
      const index = this.snapshots.findIndex((s) => s.id === id)
      if (index < 0) return false
      const snapshot = this.snapshots[index]!
      await this.rewind(snapshot.state, snapshot.pool)
      // Gone once used (a failed revert keeps them: the chain is as it was).
      this.snapshots = this.snapshots.slice(0, index)
      return true
    })
  }

  reset(): Promise<void> {
    return this.runExclusive(async () => {
      const genesis = await this.app.getBlock(this.app.earliestHeight())
      if (!genesis) throw new Error('the genesis block of the EVM view is missing')
      await this.rewind(this.engine.genesisState(genesis.stateRoot), [])
      this.snapshots = []
    })
  }

  private async rewind(state: ChainState, pool: readonly Uint8Array[]): Promise<void> {
    let removedLogs: EvmLog[] = []
    const app: RewindableApp = {
      stageRollback: async (stage, height) => {
        // Read with the engine paused, before the removal is staged: the logs of the blocks that go.
        if (this.events.listenerCount('logsRemoved') > 0) removedLogs = await this.app.logsAbove(height)
        // The validator-admin contract's copy of the set goes back with consensus's: the set of that height.
        await this.app.stageRollback(stage, height, validatorUpdatesOf(state.nextValidators))
      },
      rewound: () => this.app.rewound(),
    }
    // Told before consensus runs again, so no block of the new chain comes before it.
    await this.engine.rewind(state, app, async () => {
      await this.refillPool(pool)
      if (removedLogs.length > 0) this.events.emit('logsRemoved', { logs: removedLogs.map((log) => ({ ...log, removed: true })) })
      this.events.emit('chainRewound', { height: state.lastBlockHeight })
    })
  }

  /** The pool as it was: emptied, then given back the snapshot's transactions (checked against the state again). */
  private async refillPool(raws: readonly Uint8Array[]): Promise<void> {
    this.pool.flush()
    // The gas limit of that chain (a later evm_setBlockGasLimit is gone with its blocks or its queue).
    this.pool.setBlockGasLimit(this.app.nextBlockGasLimit())
    for (const raw of raws) {
      await this.pool.add(raw).catch((err: unknown) => this.log.debug('snapshot transaction not restored', { err }))
    }
  }

  private runExclusive<T>(op: () => Promise<T>): Promise<T> {
    const run = this.exclusive.then(op)
    this.exclusive = run.catch(() => undefined)
    return run
  }
}

/** A validator set as the updates that make it from nothing (the application's copy of the set keeps these). */
function validatorUpdatesOf(set: ValidatorSet): ValidatorUpdate[] {
  return set.validators.map((v) => ({ pubKey: v.pubKey, power: v.votingPower }))
}
