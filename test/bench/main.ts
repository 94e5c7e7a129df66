/**
 * `npm run bench`: the workloads of the benchmark issues, one JSON line each. Starts a dev node (or
 * targets `--rpc URL`, so the same workloads run against Anvil or Hardhat side by side).
 *
 *   npm run bench                              # spawn `nodectl start --dev` on 127.0.0.1:18545…18548
 *   npm run bench -- --rpc http://127.0.0.1:8545 --label anvil
 *   npm run bench -- --workloads reads,call --duration 5
 *   npm run bench -- --workloads getlogs-range --range-home ~/.cache/nodectl-bench-range
 *   npm run bench -- --workloads trace
 *
 * Workloads run in the order of WORKLOADS; getlogs-range last, on a node of its own when spawned.
 * Flags: see options.ts (and the README's Benchmark section).
 */
import { rssMb, spawnNode, stopNode, waitForRpc, type DevNode } from './node-process.js'
import { parseBenchArgs, type BenchOptions, type WorkloadName } from './options.js'
import { RpcClient } from './rpc-client.js'
import { round } from './stats.js'
import { createContext, type BenchContext, type Emit } from './workloads/context.js'
import { runEthCall } from './workloads/eth-call.js'
import { runGetLogsRange } from './workloads/getlogs-range.js'
import { runLogs } from './workloads/logs.js'
import { runReads } from './workloads/reads.js'
import { runTrace } from './workloads/trace.js'
import { runTransfers } from './workloads/transfers.js'
import { runTxSearch } from './workloads/tx-search.js'
import { runWsHeads } from './workloads/ws-heads.js'

/** The workloads that run on the main target, in order. */
const MAIN_WORKLOADS: [WorkloadName, (ctx: BenchContext) => Promise<void>][] = [
  ['reads', runReads],
  ['call', runEthCall],
  ['transfers', runTransfers],
  ['logs', runLogs],
  ['ws-heads', runWsHeads],
  ['tx-search', runTxSearch],
  ['trace', runTrace],
]

/** The WebSocket URL of an `--rpc` target: `--ws`, else the same host and port (Anvil and Hardhat serve both). */
function wsUrlOf(options: BenchOptions): string | undefined {
  if (options.ws) return options.ws
  if (!options.rpc) return undefined
  const u = new URL(options.rpc)
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:'
  return u.toString()
}

async function main(options: BenchOptions): Promise<void> {
  const emit: Emit = (workload, result) => process.stdout.write(JSON.stringify({ target: options.label, workload, ...result }) + '\n')
  const selected = (name: WorkloadName): boolean => options.workloads.has(name)
  let node: DevNode | undefined
  let client: RpcClient | undefined
  let ctx: BenchContext | undefined
  try {
    if (MAIN_WORKLOADS.some(([name]) => selected(name)) || options.rpc) {
      if (!options.rpc) node = spawnNode(options.port)
      client = new RpcClient(node?.url ?? options.rpc!, options.concurrency * 2)
      await waitForRpc(client, 30_000)
      if (node) emit('startup', { msToFirstAnswer: round(performance.now() - node.spawnedAt, 1) })
      ctx = await createContext(options, client, emit, { wsUrl: node?.wsUrl ?? wsUrlOf(options), cometUrl: node?.cometUrl ?? options.cometRpc })
      for (const [name, run] of MAIN_WORKLOADS) if (selected(name)) await run(ctx)
      if (node) emit('memory', { rssMb: rssMb(node.child.pid) })
    }
    if (node) {
      client?.close()
      client = undefined
      await stopNode(node)
      node = undefined
    }
    if (selected('getlogs-range')) await runGetLogsRange(options, emit, options.rpc ? ctx : undefined)
  } finally {
    client?.close()
    if (node) await stopNode(node)
  }
}

try {
  await main(parseBenchArgs(process.argv.slice(2)))
} catch (err) {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(1)
}
