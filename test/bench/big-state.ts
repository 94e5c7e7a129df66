/**
 * `--big-state N`: how the work grows with the state (issue 32). In one invocation, a new `--dev`
 * chain ("small") and a `--dev` chain with N more funded accounts, all holders of a genesis ERC-20
 * ("big", big-state-home.ts), each run the `call` and `transfers` workloads: on the big one, balanceOf
 * of random holders among the N and transfers to random holders. Each node's first start (InitChain) is
 * timed, then the workloads run on a restart of it; its data folder is measured after the workloads.
 * Both sets of lines are printed, then a table of both with their ratios.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Interface } from 'ethers'
import { compileContracts } from '../helpers/solidity.js'
import { bigStateCacheDir, bigStateHolder, BIG_TOKEN_ADDRESS, copyBigStateHome, diskMb, prepareBigStateTemplate } from './big-state-home.js'
import { getFees, getNonce, sendAndWait, sleep } from './chain.js'
import { COMPARE_METRICS, compareLines, compareRecord, formatCompareTable, type Line, type Metric } from './compare.js'
import { peakRssMb, rssMb, spawnNode, stopNode, waitForEthCall, type SpawnedNode, type Startup } from './node-process.js'
import type { BenchOptions } from './options.js'
import { RpcClient } from './rpc-client.js'
import { createContext, once, type ContextOverrides, type Emit } from './workloads/context.js'
import { runEthCall } from './workloads/eth-call.js'
import { erc20TransferCall, sendBatch } from './workloads/transfer-batch.js'
import { runTransfers } from './workloads/transfers.js'

/** Longest wait for a node's first eth_call: InitChain of a million accounts and holders took minutes on a busy 2-core machine. */
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
  { key: 'startupPeakRssMb', title: () => 'peak RSS of the first start (MB)', line: 'startup', read: (l) => l.peakRssMb, better: 'lower' },
  {
    key: 'restartMs',
    title: () => 'restart on the database: spawn → eth_call executed (ms)',
    line: 'restart',
    read: (l) => l.msToEthCall,
    better: 'lower',
  },
  { key: 'restartRssMb', title: () => 'RSS once restarted (MB)', line: 'restart', read: (l) => l.rssMb, better: 'lower' },
  {
    key: 'peakRssMb',
    title: () => 'peak RSS of the restarted node, workloads included (MB)',
    line: 'memory',
    read: (l) => l.peakRssMb,
    better: 'lower',
  },
  { key: 'rssMb', title: () => 'RSS 5 s after the workloads (MB)', line: 'memory', read: (l) => l.rssMb, better: 'lower' },
  { key: 'dataMb', title: () => 'data folder after the workloads (MB, du)', line: 'disk', read: (l) => l.dataMb, better: 'lower' },
]

/** Spawns a node of `home` and waits for its eth_call; the caller stops it. */
async function startHome(options: BenchOptions, home: string): Promise<{ node: SpawnedNode; startup: Startup }> {
  const node = spawnNode(options.port, { home })
  const client = new RpcClient(node.url, 1)
  try {
    return { node, startup: await waitForEthCall(client, node.spawnedAt, STARTUP_TIMEOUT_MS) }
  } catch (err) {
    await stopNode(node)
    throw err
  } finally {
    client.close()
  }
}

/**
 * Times the first start of `home` (InitChain), stops it, then runs the selected workloads on a restart:
 * a node with a big state starts once with InitChain and many times on its database, and the first
 * process carries InitChain's garbage for a while. `home` is kept.
 */
async function benchHome(options: BenchOptions, home: string, emit: Emit, overrides: ContextOverrides | undefined): Promise<void> {
  const first = await startHome(options, home)
  emit('startup', { ...first.startup, peakRssMb: peakRssMb(first.node.child.pid) })
  await stopNode(first.node)
  const { node, startup } = await startHome(options, home)
  const client = new RpcClient(node.url, options.concurrency * 2)
  try {
    emit('restart', { ...startup, rssMb: rssMb(node.child.pid) })
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
}

/**
 * The big chain's token, and the holders its workloads read and pay. Before the first workload one
 * transfer is mined, as the small chain mines its token's deployment: until the first Commit writes
 * the genesis, eth_call runs on the main thread rather than on the call workers.
 */
function bigStateOverrides(n: number): ContextOverrides {
  const abi = new Interface(compileContracts('Token.sol').Token!.abi as never)
  const token = { address: BIG_TOKEN_ADDRESS, abi, deployBlock: 0 }
  return (ctx) => ({
    token: once(async () => {
      const [sender] = ctx.accounts
      const call = erc20TransferCall(token, bigStateHolder(0, n))
      const nonce = await getNonce(ctx.client, sender!.address)
      const raw = await sender!.signTransaction({ type: 2, chainId: ctx.chainId, nonce, ...(await getFees(ctx.client)), ...call })
      const receipt = await sendAndWait(ctx.client, raw)
      if (receipt.status !== '0x1') throw new Error(`the genesis token's transfer failed: ${JSON.stringify(receipt)}`)
      return token
    }),
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
