/**
 * Matching one new log against a filter as it arrives (geth `filterLogs`): block bounds that are
 * numbers apply, tags do not (each new block is `latest` when it arrives); a `blockHash` filter only
 * takes logs of that block; addresses are OR-ed; topics are positional, a null or empty position
 * matches anything, and a log with fewer topics than the filter constrains never matches.
 */
import type { EvmLog } from '../../chain/evm/views.js'
import type { LogFilter } from './log-filter.js'

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function includesBytes(set: readonly Uint8Array[], value: Uint8Array): boolean {
  for (let i = 0; i < set.length; i++) if (equalBytes(set[i]!, value)) return true
  return false
}

/** True when `log` belongs in the results of `filter`. */
export function matchesLogFilter(log: EvmLog, filter: LogFilter): boolean {
  if (filter.blockHash !== undefined) {
    if (!equalBytes(filter.blockHash, log.blockHash)) return false
  } else {
    if (typeof filter.fromBlock === 'number' && log.blockNumber < filter.fromBlock) return false
    if (typeof filter.toBlock === 'number' && log.blockNumber > filter.toBlock) return false
  }
  if (filter.addresses.length > 0 && !includesBytes(filter.addresses, log.address)) return false
  const topics = filter.topics
  if (topics.length > log.topics.length) return false
  for (let i = 0; i < topics.length; i++) {
    const wanted = topics[i]
    if (wanted && wanted.length > 0 && !includesBytes(wanted, log.topics[i]!)) return false
  }
  return true
}
