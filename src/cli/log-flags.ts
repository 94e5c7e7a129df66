/** The `--address` / `--topic` flags shared by `query logs`, `subscribe logs` and the log filters, and the logs table. */
import { Flags } from '@oclif/core'
import type { RpcLog } from './eth-types.js'
import { decimalOf, listTable } from './render.js'

/** `--address` (repeatable or comma separated) and `--topic` (repeatable, one per position). */
export const logFilterFlags = {
  address: Flags.string({ summary: 'Contract address emitting the logs (repeatable, or comma separated).', multiple: true }),
  topic: Flags.string({
    summary: 'Topic for the next position: a hash, hashes separated by commas (any of), or "any" (repeatable).',
    multiple: true,
  }),
}

/** One row per log. */
export function logsTable(logs: readonly RpcLog[]): string {
  return listTable(
    ['block', 'tx', 'index', 'address', 'topics', 'data'],
    logs.map((l) => [
      decimalOf(l.blockNumber),
      l.transactionHash,
      decimalOf(l.logIndex),
      l.address,
      l.topics.join('\n'),
      l.data.length > 66 ? `${l.data.slice(0, 66)}…` : l.data,
    ]),
  )
}
