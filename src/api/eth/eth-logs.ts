/**
 * eth_getLogs: resolves the filter's range (tags → heights, default `latest`), enforces the
 * `block-range-cap` and `logs-cap` limits with Evmos/geth wording, and formats the backend's logs.
 */
import { LogLimitError } from '../../evm/errors.js'
import { NodeError } from '../../utils/errors.js'
import { defineMethod, required, type MethodTable } from '../../rpc/method-table.js'
import type { EthBackend, LogQuery } from './backend.js'
import { LogMatches } from '../../evm/store/log-matches.js'
import { formatLog, type LogJson } from './format.js'
import { renderLogsJson } from './log-json.js'
import { logFilter, type LogFilter } from './log-filter.js'
import type { EthApiOptions } from './options.js'
import { resolveHeight } from './resolve-block.js'

/** Runs a decoded filter against the chain; shared with the polling filters (filters.ts). */
export async function getLogs(backend: EthBackend, filter: LogFilter, options: EthApiOptions): Promise<LogJson[]> {
  return (await queryLogs(backend, filter, options)).toArray().map(formatLog)
}

/** The logs a filter selects, limits enforced, unformatted. */
async function queryLogs(backend: EthBackend, filter: LogFilter, options: EthApiOptions): Promise<LogMatches> {
  let fromBlock: number
  let toBlock: number
  if (filter.blockHash !== undefined) {
    const block = await backend.getBlockByHash(filter.blockHash)
    if (block === undefined) throw new NodeError('unknown block')
    fromBlock = toBlock = block.number
  } else {
    const head = backend.latestHeight()
    fromBlock = resolveHeight(backend, filter.fromBlock ?? 'latest')
    toBlock = resolveHeight(backend, filter.toBlock ?? 'latest')
    if (fromBlock > toBlock) throw new NodeError('invalid block range params')
    if (fromBlock > head) return new LogMatches()
    if (toBlock > head) toBlock = head
    if (options.blockRangeCap > 0 && toBlock - fromBlock > options.blockRangeCap) {
      throw new NodeError(`maximum [from, to] blocks distance: ${options.blockRangeCap}`)
    }
  }
  const query: LogQuery = { fromBlock, toBlock, addresses: filter.addresses, topics: filter.topics, limit: options.logsCap }
  const logs = await backend.getLogs(query)
  if (options.logsCap > 0 && logs.count > options.logsCap) throw new LogLimitError(options.logsCap)
  return logs
}

export function createEthLogMethods(backend: EthBackend, options: EthApiOptions): MethodTable {
  return [defineMethod('eth_getLogs', [required(logFilter)], async ([filter]) => renderLogsJson(await queryLogs(backend, filter, options)))]
}
