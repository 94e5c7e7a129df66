/**
 * `npm run bench`: the workloads of the benchmark issues, one JSON line each. Starts a dev node (or
 * targets `--rpc URL`, so the same workloads run against Anvil or Hardhat side by side).
 *
 *   npm run bench                              # spawn `nodectl start --dev` on 127.0.0.1:18545…18548
 *   npm run bench -- --compare anvil           # spawn Anvil, then nodectl: both figures and their ratios
 *   npm run bench -- --compare anvil,hardhat   # Anvil, Hardhat 3 (installed once into ~/.cache/nodectl), then nodectl
 *   npm run bench -- --compare cometbft        # our application under a stock CometBFT, then nodectl --dev
 *   npm run bench -- --rpc http://127.0.0.1:8545 --label anvil
 *   npm run bench -- --workloads reads,call --duration 5
 *   npm run bench -- --workloads getlogs-range --range-home ~/.cache/nodectl-bench-range
 *   npm run bench -- --workloads trace
 *   npm run bench -- --soak 3600               # a light load for an hour, RSS each minute
 *   npm run bench -- --kill-storm 100          # 100 SIGKILLs under load, every receipt re-checked (--seed S replays)
 *   npm run bench -- --big-state 1000000       # call and transfers on a new dev chain, then on 1M more token holders
 *   npm run bench -- --testnet 4               # 4 validators: ERC-20 transfers/s, block time, tx → finality
 *   npm run bench -- --testnet 4 --cpu-prof /tmp/prof   # the same, each node's CPU profile in /tmp/prof/node<i>/
 *   npm run bench -- --testnet 4 --engine cometbft   # the same over 4 cometbft + 4 nodectl start --abci
 *
 * Workloads run in the order of WORKLOADS; getlogs-range last, on a node of its own when nodectl is spawned.
 * Flags: see options.ts (and docs/benchmark.md).
 */
import { cpus } from 'node:os'
import { runBigState } from './big-state.js'
import { sleep } from './chain.js'
import { COMPARE_METRICS, compareLines, compareRecord, formatCompareTable, type Line } from './compare.js'
import { spawnHardhat } from './hardhat.js'
import {
  peakRssMb,
  rssMb,
  STARTUP_SPAWNS,
  nodeJsStartup,
  spawnAnvil,
  spawnCometbftPair,
  spawnNode,
  stopNode,
  waitForEthCall,
  waitForRpc,
  type SpawnedNode,
  type Startup,
} from './node-process.js'
import { parseBenchArgs, type BenchOptions, type CompareTarget, type WorkloadName } from './options.js'
import { RpcClient } from './rpc-client.js'
import { startupSummary } from './stats.js'
import { withTestnet } from './testnet-network.js'
import { createContext, type BenchContext, type Emit } from './workloads/context.js'
import { runEthCall } from './workloads/eth-call.js'
import { runGetLogsRange } from './workloads/getlogs-range.js'
import { runKillStormBench } from './workloads/kill-storm.js'
import { runLogs } from './workloads/logs.js'
import { runReads } from './workloads/reads.js'
import { runSoak } from './workloads/soak.js'
import { runTestnetTransfers } from './workloads/testnet-transfers.js'
import { runTrace } from './workloads/trace.js'
import { runTransfers } from './workloads/transfers.js'
import { runTxSearch } from './workloads/tx-search.js'
import { runValueTransfers } from './workloads/value-transfers.js'
import { runWsHeads } from './workloads/ws-heads.js'

/** The workloads that run on the main target, in order. */
const MAIN_WORKLOADS: [WorkloadName, (ctx: BenchContext) => Promise<void>][] = [
  ['reads', runReads],
  ['call', runEthCall],
  ['transfers', runTransfers],
  ['value-transfers', runValueTransfers],
  ['logs', runLogs],
  ['ws-heads', runWsHeads],
  ['tx-search', runTxSearch],
  ['trace', runTrace],
]

/** A spawned `--compare` node listens this far above `--port`, clear of the main node's four ports and the range node's. */
const COMPARE_PORT_OFFSET = 20

/** Longest wait for a target's first answer. */
const STARTUP_TIMEOUT_MS = 30_000
/**
 * The `memory` line reads RSS this long after the last workload: the footprint of the node at rest
 * after the load, the same wait for every target (nodectl returns free heap once idle for 2 s).
 */
const MEMORY_SETTLE_MS = 5_000

/**
 * Flags of the nodectl the bench spawns: the `trace` workload's struct-logger trace of `burn` answers
 * about 35 MB, past the default `[json-rpc] trace-response-max-size` (25,000,000 bytes), so the bench
 * raises the cap to time the trace rather than its refusal.
 */
const NODECTL_FLAGS: readonly string[] = ['--json-rpc.trace-response-max-size', '100000000']

/** Where the workloads run. */
interface Target {
  label: string
  /** Spawns the node; undefined for an `--rpc` target. */
  spawn: (() => SpawnedNode | Promise<SpawnedNode>) | undefined
  /**
   * A nodectl the bench spawns: getlogs-range then builds its chain on a nodectl of its own rather
   * than on this target, and the start-up line adds Node.js's own start under nodectl's.
   */
  spawnedNodectl: boolean
}

/** `--compare`'s node first, then ours (spawned, or `--rpc`). */
function targetsOf(options: BenchOptions): Target[] {
  const ours: Target = options.rpc
    ? { label: options.label, spawn: undefined, spawnedNodectl: false }
    : { label: options.label, spawn: () => spawnNode(options.port, { flags: NODECTL_FLAGS }), spawnedNodectl: true }
  const port = options.port + COMPARE_PORT_OFFSET
  const spawners: Record<CompareTarget, () => SpawnedNode | Promise<SpawnedNode>> = {
    anvil: () => spawnAnvil(port),
    hardhat: () => spawnHardhat(port),
    cometbft: () => spawnCometbftPair(port, { flags: NODECTL_FLAGS }),
  }
  return [...(options.compare ?? []).map((label) => ({ label, spawn: spawners[label], spawnedNodectl: false })), ours]
}

/** The WebSocket URL of an `--rpc` target: `--ws`, else the same host and port (Anvil and Hardhat serve both). */
function wsUrlOf(options: BenchOptions): string | undefined {
  if (options.ws) return options.ws
  if (!options.rpc) return undefined
  const u = new URL(options.rpc)
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:'
  return u.toString()
}

/** Runs the selected workloads on one target; a spawned node is stopped before the next target starts. */
async function benchTarget(options: BenchOptions, target: Target, emit: Emit): Promise<void> {
  const selected = (name: WorkloadName): boolean => options.workloads.has(name)
  let node: SpawnedNode | undefined
  let client: RpcClient | undefined
  try {
    if (MAIN_WORKLOADS.some(([name]) => selected(name)) || !target.spawnedNodectl) {
      const startups = target.spawn ? await measureStartups(target.spawn, STARTUP_SPAWNS - 1) : []
      node = await target.spawn?.()
      client = new RpcClient(node?.url ?? options.rpc!, options.concurrency * 2)
      if (node) {
        const startup = startupSummary([...startups, await waitForEthCall(client, node.spawnedAt, STARTUP_TIMEOUT_MS)])
        emit('startup', { ...startup, ...(target.spawnedNodectl ? await nodeJsStartup(STARTUP_SPAWNS) : {}) })
      } else await waitForRpc(client, STARTUP_TIMEOUT_MS)
      const urls = { wsUrl: node?.wsUrl ?? wsUrlOf(options), cometUrl: node?.cometUrl ?? options.cometRpc }
      const ctx = await createContext(options, client, emit, urls)
      for (const [name, run] of MAIN_WORKLOADS) if (selected(name)) await run(ctx)
      if (node) {
        await sleep(MEMORY_SETTLE_MS)
        emit('memory', {
          rssMb: rssMb(node.child.pid),
          peakRssMb: peakRssMb(node.child.pid),
          ...(node.companion ? { cometbftRssMb: rssMb(node.companion.pid) } : {}),
        })
      }
      if (selected('getlogs-range') && !target.spawnedNodectl) await runGetLogsRange(options, emit, ctx)
    }
  } finally {
    client?.close()
    if (node) await stopNode(node)
  }
  if (selected('getlogs-range') && target.spawnedNodectl) await runGetLogsRange(options, emit, undefined)
}

/** Spawns the target `count` times, each until it answers the start-up eth_call, then stops it. */
async function measureStartups(spawn: () => SpawnedNode | Promise<SpawnedNode>, count: number): Promise<Startup[]> {
  const out: Startup[] = []
  for (let i = 0; i < count; i++) {
    const node = await spawn()
    const client = new RpcClient(node.url, 1)
    try {
      out.push(await waitForEthCall(client, node.spawnedAt, STARTUP_TIMEOUT_MS))
    } finally {
      client.close()
      await stopNode(node)
    }
  }
  return out
}

async function main(options: BenchOptions): Promise<void> {
  /** Every target's lines, as printed, for the comparison. */
  const lines = new Map<string, Line[]>()
  const emitFor = (target: string): Emit => {
    const mine = lines.get(target) ?? []
    lines.set(target, mine)
    return (workload, result) => {
      mine.push({ workload, ...result })
      process.stdout.write(JSON.stringify({ target, workload, ...result }) + '\n')
    }
  }
  if (options.soakSeconds !== undefined) return runSoak(options, options.soakSeconds, emitFor(options.label))
  if (options.killStorm !== undefined) return runKillStormBench(options, options.killStorm, emitFor(options.label))
  if (options.bigState !== undefined) return runBigState(options, options.bigState, emitFor)
  if (options.testnet !== undefined) {
    const emit = emitFor(options.engine === 'nodectl' ? options.label : `${options.label}+${options.engine}`)
    return withTestnet(options.testnet, options.port, options.engine, options.cpuProfDir, (net, startup) =>
      runTestnetTransfers(options, emit, net, startup),
    )
  }
  for (const target of targetsOf(options)) await benchTarget(options, target, emitFor(target.label))
  const ours = options.label
  for (const theirs of options.compare ?? []) {
    const rows = compareLines(COMPARE_METRICS, lines.get(theirs) ?? [], lines.get(ours) ?? [])
    emitFor(ours)('compare', compareRecord(rows, theirs, ours))
    const title = `${ours} vs ${theirs}, one after the other on ${cpus().length} cores, ${new Date().toISOString().slice(0, 10)}`
    process.stderr.write(`\n${title}\n\n${formatCompareTable(rows, options, theirs, ours)}`)
  }
}

try {
  await main(parseBenchArgs(process.argv.slice(2)))
} catch (err) {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`)
  process.exit(1)
}
