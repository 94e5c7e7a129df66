/**
 * `--big-state N`: how the work grows with the state (issue 32). In one invocation, a new `--dev`
 * chain ("small") and a `--dev` chain with N more funded accounts, all holders of a genesis ERC-20
 * ("big", big-state-home.ts), each run the `call` and `transfers` workloads: on the big one, balanceOf
 * of random holders among the N and transfers to random holders. Each node is also restarted on its
 * database to time a start without InitChain; its data folder is measured after the workloads. Both
 * sets of lines are printed, then a table of both with their ratios.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Interface } from 'ethers'
import { compileContracts } from '../helpers/solidity.js'
import { bigStateCacheDir, bigStateHolder, BIG_TOKEN_ADDRESS, copyBigStateHome, diskMb, prepareBigStateTemplate } from './big-state-home.js'
import { sleep } from './chain.js'
import { COMPARE_METRICS, compareLines, compareRecord, formatCompareTable, type Line, type Metric } from './compare.js'
import { peakRssMb, rssMb, spawnNode, stopNode, waitForEthCall } from './node-process.js'
import type { BenchOptions } from './options.js'
import { RpcClient } from './rpc-client.js'
import { createContext, once, type ContextOverrides, type Emit } from './workloads/context.js'
import { runEthCall } from './workloads/eth-call.js'
import { erc20TransferCall, sendBatch } from './workloads/transfer-batch.js'
import { runTransfers } from './workloads/transfers.js'

/** Longest wait for a node's first eth_call: InitChain of a million accounts takes about 20 s here. */
const STARTUP_TIMEOUT_MS = 600_000

/** The wait before the `memory` line, as main.ts's: RSS at rest after the load. */
const MEMORY_SETTLE_MS = 5_000

/** Offset of the transfers' holder sequence, so they start elsewhere than the calls'. */
const TRANSFER_HOLDER_OFFSET = 1

/** The rows of the small/big table: the two workloads, then what the state's size costs the node. */
const BIG_STATE_METRICS: readonly Metric[] = [
  ...COMPARE_METRICS.filter((m) => m.key === 'erc20TxPerSec' || m.key === 'callsPerSec'),
  {
    key: 'startupMs',
    title: () => 'first start, InitChain included: spawn → eth_call executed (ms)',
    line: 'startup',
    read: (l) => l.msToEthCall,
    better: 'lower',
  },
  {
    key: 'restartMs',
    title: () => 'restart on the database: spawn → eth_call executed (ms)',
    line: 'restart',
    read: (l) => l.msToEthCall,
    better: 'lower',
  },
  { key: 'peakRssMb', title: () => 'peak RSS of the first run (MB)', line: 'memory', read: (l) => l.peakRssMb, better: 'lower' },
  { key: 'rssMb', title: () => 'RSS 5 s after the workloads (MB)', line: 'memory', read: (l) => l.rssMb, better: 'lower' },
  { key: 'restartRssMb', title: () => 'RSS after the restart (MB)', line: 'restart', read: (l) => l.rssMb, better: 'lower' },
  { key: 'dataMb', title: () => 'data folder after the workloads (MB, du)', line: 'disk', read: (l) => l.dataMb, better: 'lower' },
]

/** Runs the selected workloads on a spawned node of `home`, then restarts it; `home` is kept. */
async function benchHome(options: BenchOptions, home: string, emit: Emit, overrides: ContextOverrides | undefined): Promise<void> {
  const node = spawnNode(options.port, { home })
  const client = new RpcClient(node.url, options.concurrency * 2)
  try {
    emit('startup', { ...(await waitForEthCall(client, node.spawnedAt, STARTUP_TIMEOUT_MS)) })
    const ctx = await createContext(options, client, emit, { wsUrl: node.wsUrl, cometUrl: node.cometUrl }, overrides)
    if (options.workloads.has('call')) await runEthCall(ctx)
    if (options.workloads.has('transfers')) await runTransfers(ctx)
    await sleep(MEMORY_SETTLE_MS)
    emit('memory', { rssMb: rssMb(node.child.pid), peakRssMb: peakRssMb(node.child.pid) })
  } finally {
    client.close()
    await stopNode(node)
  }
  emit('disk', { dataMb: diskMb(join(home, 'data')) })
  const again = spawnNode(options.port, { home })
  const againClient = new RpcClient(again.url, 1)
  try {
    const startup = await waitForEthCall(againClient, again.spawnedAt, STARTUP_TIMEOUT_MS)
    emit('restart', { ...startup, rssMb: rssMb(again.child.pid), peakRssMb: peakRssMb(again.child.pid) })
  } finally {
    againClient.close()
    await stopNode(again)
  }
}

/** The big chain's token, and the holders its workloads read and pay. */
function bigStateOverrides(n: number): ContextOverrides {
  const abi = new Interface(compileContracts('Token.sol').Token!.abi as never)
  const token = { address: BIG_TOKEN_ADDRESS, abi, deployBlock: 0 }
  return (ctx) => ({
    token: async () => token,
    holderWord: (i) => bigStateHolder(i, n).slice(2).padStart(64, '0'),
    transferBatch: once(() => sendBatch(ctx, (i) => erc20TransferCall(token, bigStateHolder(i, n, TRANSFER_HOLDER_OFFSET)))),
  })
}

export async function runBigState(options: BenchOptions, n: number, emitFor: (target: string) => Emit): Promise<void> {
  const [small, big] = ['small', 'big']
  const lines = new Map<string, Line[]>()
  const recording = (target: string): Emit => {
    const emit = emitFor(target)
    const mine: Line[] = []
    lines.set(target, mine)
    return (workload, result) => {
      mine.push({ workload, ...result })
      emit(workload, result)
    }
  }
  const smallHome = mkdtempSync(join(tmpdir(), 'nodectl-bench-small-'))
  try {
    await benchHome(options, smallHome, recording(small), undefined)
  } finally {
    rmSync(smallHome, { recursive: true, force: true })
  }
  const cacheDir = options.bigStateCache ?? bigStateCacheDir(n)
  const emitBig = recording(big)
  const template = await prepareBigStateTemplate(n, cacheDir)
  emitBig('big_state_genesis', { accounts: n, holders: n, cacheDir, ...template })
  const runHome = join(cacheDir, 'run')
  copyBigStateHome(template.home, runHome)
  try {
    await benchHome(options, runHome, emitBig, bigStateOverrides(n))
  } finally {
    rmSync(runHome, { recursive: true, force: true })
  }
  const rows = compareLines(BIG_STATE_METRICS, lines.get(small) ?? [], lines.get(big) ?? [])
  emitBig('compare', compareRecord(rows, small, big))
  const title = `a new dev chain vs ${n.toLocaleString('en-US')} more accounts and token holders, one after the other on ${cpus().length} cores, ${new Date().toISOString().slice(0, 10)}`
  process.stderr.write(`\n${title}\n\n${formatCompareTable(rows, options, small, big)}`)
}
