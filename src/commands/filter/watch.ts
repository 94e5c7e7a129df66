/**
 * `nodectl filter watch logs|blocks|pending [--address] [--topic ...]`: installs a filter and polls it,
 * printing each change (one line, or one JSON line with `--json`) until Ctrl-C or `--count` changes;
 * uninstalls the filter on the way out. If the node goes away it keeps polling with back-off, and
 * installs the filter again when the node no longer knows it (a restarted node forgets filters).
 */
import { Args, Flags } from '@oclif/core'
import { durationFlag } from '../../cli/duration-flag.js'
import type { RpcLog } from '../../cli/eth-types.js'
import { renderFilterLine } from '../../cli/filter-render.js'
import { logFilterFlags } from '../../cli/log-flags.js'
import { buildLogFilter } from '../../cli/params.js'
import { RpcCommand } from '../../cli/rpc-command.js'
import { JsonRpcClientError, NodeUnreachableError, type HttpRpcClient } from '../../rpc/client/index.js'

/** The filter kinds and the method that installs each. */
const INSTALL = { logs: 'eth_newFilter', blocks: 'eth_newBlockFilter', pending: 'eth_newPendingTransactionFilter' } as const

/** Longest wait between polls while the node is unreachable, in ms. */
const MAX_RETRY_DELAY_MS = 5_000

/** Result of `filter watch`. */
export interface WatchResult {
  /** The last filter id used. */
  id: string
  kind: keyof typeof INSTALL
  /** Changes printed. */
  changes: number
  stoppedBy: 'signal' | 'count'
}

export default class FilterWatch extends RpcCommand {
  static override summary = 'Install a filter and print its changes as they come.'
  static override description =
    'Installs a logs, blocks or pending-transactions filter and polls it with eth_getFilterChanges every --interval ms, printing one ' +
    'line per change (JSON lines with --json) until Ctrl-C; the filter is uninstalled on exit. Survives node restarts: it waits for ' +
    'the node and installs the filter again.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> blocks',
    '<%= config.bin %> <%= command.id %> logs --address 0x5FbDB2315678afecb367f032d93F642f64180aa3 --json',
    '<%= config.bin %> <%= command.id %> pending --interval 200 --count 10',
  ]
  static override enableJsonFlag = false
  static override args = { kind: Args.string({ description: 'What to watch', options: Object.keys(INSTALL), required: true }) }
  static override flags = {
    from: Flags.string({ summary: 'First block of a logs filter (number or tag) [default: latest].' }),
    ...logFilterFlags,
    interval: durationFlag({ name: 'interval', summary: 'Polling interval.', default: '1s', minMs: 10 }),
    count: Flags.integer({ summary: 'Stop after this many changes [default: run until Ctrl-C].', min: 1 }),
    json: Flags.boolean({ summary: 'Print each change as one JSON line.' }),
  }

  async run(): Promise<WatchResult> {
    const { args, flags } = await this.parse(FilterWatch)
    const kind = args.kind as keyof typeof INSTALL
    const client = await this.httpClient(flags)
    const criteria = kind === 'logs' ? [buildLogFilter(flags)] : []
    const install = (): Promise<string> => client.call<string>(INSTALL[kind], criteria)
    let id = await install()
    if (!flags.json) this.logToStderr(`watching ${kind} with filter ${id} at ${client.url}; Ctrl-C to stop`)
    let stop: WatchResult['stoppedBy'] | undefined
    let wake: () => void = () => {}
    const onSignal = (): void => {
      stop = 'signal'
      wake()
    }
    process.once('SIGINT', onSignal)
    process.once('SIGTERM', onSignal)
    const sleep = (ms: number): Promise<void> =>
      new Promise((resolve) => {
        const timer = setTimeout(resolve, ms)
        wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    let changes = 0
    let retryDelay = flags.interval
    try {
      while (stop === undefined) {
        try {
          for (const item of await client.call<(string | RpcLog)[]>('eth_getFilterChanges', [id])) {
            changes++
            this.log(flags.json ? JSON.stringify(item) : renderFilterLine(item))
            if (flags.count !== undefined && changes >= flags.count) {
              stop = 'count'
              break
            }
          }
          retryDelay = flags.interval
        } catch (err) {
          if (err instanceof NodeUnreachableError) {
            this.logToStderr(`${err.message}; retrying in ${retryDelay} ms`)
            await sleep(retryDelay)
            retryDelay = Math.min(retryDelay * 2, MAX_RETRY_DELAY_MS)
            continue
          }
          if (!(err instanceof JsonRpcClientError) || !/filter not found/i.test(err.rpcMessage)) throw err
          id = await install()
          this.logToStderr(`the node forgot the filter; installed it again as ${id}`)
        }
        if (stop === undefined) await sleep(flags.interval)
      }
      return { id, kind, changes, stoppedBy: stop }
    } finally {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      await uninstall(client, id)
    }
  }
}

/** Best effort: the node may be gone, and it expires filters anyway. */
async function uninstall(client: HttpRpcClient, id: string): Promise<void> {
  await client.call('eth_uninstallFilter', [id]).catch(() => undefined)
}
