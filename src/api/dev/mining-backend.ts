/** What the mining methods need from the node: the engine's dev seam (docs/dev-chain.md, "Mining"). */
export interface MiningBackend {
  /** Automine: a block as soon as the pool has transactions (on), or none until asked (off). */
  setAutomine(on: boolean): void
  getAutomine(): boolean
  /**
   * Commits `blocks` blocks (the pool's pending transactions go into the first), then resolves. With
   * `timestamp`, the first block's EVM timestamp is that (seconds); with `interval`, each following one's
   * is the previous one's plus `interval` seconds.
   */
  mine(blocks: number, opts: { timestamp?: bigint; interval?: bigint }): Promise<void>
  /** A block every `ms` milliseconds, transactions or not; 0 stops it. */
  setIntervalMining(ms: number): void
}
