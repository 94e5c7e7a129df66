/**
 * The polling filter methods over a `FilterSystem` (filters.ts), served on HTTP and WebSocket alike.
 * Without a filter system (an API built for a test double) they answer -32000, as eth_subscribe does
 * without a subscription service.
 */
import { DecodeError, jsonKind, type Codec } from '../../rpc/codecs.js'
import { defineMethod, required, type MethodTable } from '../../rpc/method-table.js'
import { NodeError } from '../../utils/errors.js'
import type { FilterSystem } from './filters.js'
import { logFilter } from './log-filter.js'
import { formatLog } from './format.js'

/**
 * A filter id: any JSON string (geth `rpc.ID`, a Go string: null is `''`); an unknown one is answered
 * by the filter system.
 */
export const filterId: Codec<string> = (value) => {
  if (value === null) return ''
  if (typeof value !== 'string') throw new DecodeError(jsonKind(value), 'rpc.ID')
  return value
}

export function createEthFilterMethods(filters?: FilterSystem): MethodTable {
  const system = (): FilterSystem => {
    if (filters === undefined) throw new NodeError('filters are not available')
    return filters
  }
  return [
    defineMethod('eth_newFilter', [required(logFilter)], ([criteria]) => system().newLogFilter(criteria)),
    defineMethod('eth_newBlockFilter', [], () => system().newBlockFilter()),
    defineMethod('eth_newPendingTransactionFilter', [], () => system().newPendingTransactionFilter()),
    defineMethod('eth_getFilterChanges', [required(filterId)], ([id]) => {
      const changes = system().getFilterChanges(id)
      return changes.kind === 'logs' ? changes.logs.map(formatLog) : changes.hashes
    }),
    defineMethod('eth_getFilterLogs', [required(filterId)], ([id]) => system().getFilterLogs(id)),
    defineMethod('eth_uninstallFilter', [required(filterId)], ([id]) => system().uninstall(id)),
  ]
}
