/**
 * Mining control of a dev chain (docs/dev-chain.md, "Mining"): the `MiningBackend` of the dev methods
 * over the engine's run of heights and the automine setting it reads at round 0 of each height.
 */
import type { DevHeaderOverrides, MiningBackend } from '../api/dev/index.js'
import type { ConsensusEngine } from '../consensus/index.js'
import type { EvmApplication } from '../evm/app.js'
import { NodeError } from '../utils/errors.js'
import type { Logger } from '../utils/logger.js'

/** The automine setting, shared by the engine (which reads it) and {@link DevMining} (which sets it). */
export interface DevMiningSettings {
  automine: boolean
  /** Something must have its block now even with automine off (the dev operations' queue). */
  blockWanted?(): boolean
}

export class DevMining implements MiningBackend {
  private intervalMs = 0
  private intervalTimer: NodeJS.Timeout | undefined

  constructor(
    private readonly settings: DevMiningSettings,
    private readonly engine: ConsensusEngine,
    private readonly app: EvmApplication,
    private readonly log: Logger,
    /** Sets each mined block's timestamp; without it the blocks keep the consensus clock's. */
    private readonly headers?: DevHeaderOverrides,
    /**
     * The dev operations' queue: each mined block is asked of it, so the header overrides queued before
     * (a timestamp, a coinbase…) ride in that block, as in any block a transaction or a set wants.
     */
    private readonly blocks?: { requestBlock(): Promise<number> },
  ) {}

  setAutomine(on: boolean): void {
    this.settings.automine = on
    if (on) this.engine.proposePending()
  }

  getAutomine(): boolean {
    return this.settings.automine
  }

  /**
   * The first block's timestamp is `timestamp` when given; each later one's is the previous block's plus
   * `interval` when given (anvil_mine/hardhat_mine), else the chain's clock.
   */
  async mine(blocks: number, opts: { timestamp?: bigint; interval?: bigint }): Promise<void> {
    const { timestamp, interval } = opts
    const headers = this.headers
    if (timestamp !== undefined && !headers) throw new NodeError('block timestamps cannot be set on this node')
    await this.engine.mine({
      blocks,
      beforeBlock: async (index) => {
        await this.setTimestamp(index, timestamp, interval)
        // Resolves at the block's commit, which the run itself waits for.
        this.blocks?.requestBlock().catch((err: unknown) => this.log.debug('mined block not confirmed', { err }))
      },
    })
  }

  /** The timestamp of block `index` of a run: `timestamp` for the first, the previous plus `interval` for the others. */
  private async setTimestamp(index: number, timestamp: bigint | undefined, interval: bigint | undefined): Promise<void> {
    const headers = this.headers
    if (!headers) return
    if (index === 0) {
      if (timestamp !== undefined) headers.setNextTimestamp(timestamp)
      return
    }
    // viem sends interval 0 when none is given: the chain's clock then, as without one.
    if (interval === undefined || interval === 0n) return
    const latest = await this.app.getBlock(this.app.latestHeight())
    if (latest) headers.setNextTimestamp(BigInt(latest.timestamp) + interval)
  }

  setIntervalMining(ms: number): void {
    this.intervalMs = ms
    this.scheduleInterval()
  }

  /** Stops interval mining (the node is stopping). */
  stop(): void {
    this.intervalMs = 0
    clearTimeout(this.intervalTimer)
  }

  /** The next interval block `intervalMs` after the previous one is made (none while one is being made). */
  private scheduleInterval(): void {
    clearTimeout(this.intervalTimer)
    this.intervalTimer = undefined
    if (this.intervalMs <= 0) return
    this.intervalTimer = setTimeout(() => {
      this.mine(1, {})
        .catch((err: unknown) => this.log.debug('interval block not made', { err }))
        .finally(() => this.scheduleInterval())
    }, this.intervalMs)
  }
}
