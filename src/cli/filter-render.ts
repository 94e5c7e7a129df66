/** Human rendering of filter results: a new filter's id, logs as the logs table, hashes one per row. */
import type { RpcLog } from './eth-types.js'
import { logsTable } from './log-flags.js'
import { isTerminal, keyValueTable, listTable } from './render.js'

/** Result of the `filter new-*` commands. */
export interface NewFilterResult {
  /** The filter id to pass to `filter changes|logs|uninstall`. */
  id: string
  kind: 'logs' | 'blocks' | 'pending'
}

/** A new filter: its id and kind as a table on a terminal, the id alone on a plain line otherwise. */
export function renderNewFilter(filter: NewFilterResult): string {
  if (!isTerminal()) return filter.id
  return keyValueTable([
    ['filter id', filter.id],
    ['kind', filter.kind],
  ])
}

/** A table of what a filter returned (empty → "no changes"). */
export function renderFilterItems(items: readonly (string | RpcLog)[]): string {
  if (items.length === 0) return 'no changes'
  const hashes = items.filter((i): i is string => typeof i === 'string')
  return hashes.length === items.length
    ? listTable(
        ['hash'],
        hashes.map((h) => [h]),
      )
    : logsTable(items.filter((i): i is RpcLog => typeof i !== 'string'))
}

/** One line per item, for `filter watch`. */
export function renderFilterLine(item: string | RpcLog): string {
  if (typeof item === 'string') return item
  return `block ${BigInt(item.blockNumber)} tx ${item.transactionHash} #${BigInt(item.logIndex)} ${item.address} topics [${item.topics.join(', ')}] data ${item.data}`
}
