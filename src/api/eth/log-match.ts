/**
 * Matching one new log against a filter as it arrives (geth `filterLogs`): block bounds that are
 * numbers apply, tags do not (each new block is `latest` when it arrives); a `blockHash` filter only
 * takes logs of that block; addresses are OR-ed; topics are positional, a null or empty position
 * matches anything, and a log with fewer topics than the filter constrains never matches.
 */
import { matchesLog } from '../../evm/store/log-columns.js'
import type { EvmLog } from '../../evm/store/views.js'
import { equalBytes } from '../../primitives/hex.js'
import type { LogFilter } from './log-filter.js'

/** True when `log` belongs in the results of `filter`. */
export function matchesLogFilter(log: EvmLog, filter: LogFilter): boolean {
  if (filter.blockHash !== undefined) {
    if (!equalBytes(filter.blockHash, log.blockHash)) return false
  } else {
    if (typeof filter.fromBlock === 'number' && log.blockNumber < filter.fromBlock) return false
    if (typeof filter.toBlock === 'number' && log.blockNumber > filter.toBlock) return false
  }
  return matchesLog(log, filter)
}
