/**
 * The logs matching an eth_getLogs query, block by block in chain order. Each entry keeps the block's
 * whole list of logs, which is the same array for as long as the block's logs are cached
 * (block-logs.ts), so a reader can memoise what it derives from a block once (the RPC layer keeps the
 * JSON of a block's logs: api/eth/log-json.ts), and the positions in it that matched.
 */
import type { EvmLog } from './views.js'

/** One block's share of a result. */
export interface BlockLogMatch {
  /** All the logs of the block, in block order. */
  readonly logs: readonly EvmLog[]
  /** The positions in `logs` that matched, ascending, at least one. */
  readonly indexes: readonly number[]
}

export class LogMatches {
  readonly blocks: BlockLogMatch[] = []
  /** Logs matched, over all blocks. */
  count = 0

  /** Adds a block's matches (after those of lower blocks); nothing when `indexes` is empty. */
  add(logs: readonly EvmLog[], indexes: readonly number[]): void {
    if (indexes.length === 0) return
    this.blocks.push({ logs, indexes })
    this.count += indexes.length
  }

  /** The matching logs in chain order. */
  toArray(): EvmLog[] {
    const out: EvmLog[] = []
    for (const { logs, indexes } of this.blocks) for (const i of indexes) out.push(logs[i]!)
    return out
  }
}
