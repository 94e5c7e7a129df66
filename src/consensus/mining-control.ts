/**
 * The dev chain's hold on proposing (docs/dev-chain.md, "Mining"). A `--dev` node is the one validator
 * of its chain, and test suites decide when it makes blocks: at once for each transaction (automine), or
 * only when asked (`evm_mine`). The state machine asks this object at round 0 of each height; the node
 * owns its settings.
 */
export interface MiningControl {
  /**
   * On: round 0 proposes as soon as the pool has transactions (and after the empty-block interval), as
   * usual, but makes no proof block (Anvil and Hardhat make one block per transaction; the application's
   * state is current without it). Off: round 0 waits, transactions or not, until a run is asked.
   */
  readonly automine: boolean
  /**
   * True while something must have its block now, automine or not (a dev set: docs/dev-chain.md): round 0
   * then proposes as with automine on.
   */
  blockWanted?(): boolean
}

/** A run of heights made on demand (`ConsensusEngine.mine`). */
export interface MineRun {
  /** How many heights, at least 1. */
  blocks: number
  /** Called before each height's block is built (`index` from 0): where the node queues that block's timestamp. */
  beforeBlock?: (index: number) => void | Promise<void>
}
