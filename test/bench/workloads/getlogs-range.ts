/**
 * `getlogs-range`: eth_getLogs over a `--range-blocks` range (default 10,000) with an address filter:
 * `selective` (the target contract: `--range-hits` logs at spread heights) and `busy` (a contract with
 * `--busy-logs` logs over the whole range, default 10,000 = the default logs-cap), while most blocks of
 * the range hold logs of 8 other contracts.
 *
 * Against a spawned nodectl the chain is built by its own node (own home, ports `--port` + 10…13), with
 * empty blocks back to back ({@link FAST_EMPTY_BLOCK_FLAGS}); the node is then restarted with the dev
 * settings, so the queries do not compete with a block every few ms. `--range-home DIR` keeps that
 * home: the next run with the same DIR and range flags reuses it. An `--rpc` target or the
 * `--compare` node builds it by mining (Anvil, Hardhat); one that cannot is skipped.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getHeight, sleep } from '../chain.js'
import { FAST_EMPTY_BLOCK_FLAGS, spawnNode, stopNode, waitForRpc, type SpawnedNode } from '../node-process.js'
import type { BenchOptions } from '../options.js'
import {
  buildRangeChain,
  detectMineMethod,
  loadRangeChain,
  miningDriver,
  NOISE_CONTRACTS,
  saveRangeChain,
  waitingDriver,
  type RangeChain,
} from '../range-chain.js'
import type { RangePlanOptions } from '../range-plan.js'
import { RpcClient } from '../rpc-client.js'
import { round, summarize, timeSequential } from '../stats.js'
import { devWallets, type ChainTarget, type Emit } from './context.js'

const WORKLOAD = 'getlogs-range'

/** The range node's ports start this far above `--port`, clear of the main node's four. */
const PORT_OFFSET = 10

/** How long the empty-block rate is sampled before anything is sent. */
const EMPTY_RATE_SAMPLE_MS = 5_000

function rangePlanOf(options: BenchOptions): RangePlanOptions {
  return {
    blocks: options.rangeBlocks,
    hits: options.rangeHits,
    busyLogs: options.busyLogs,
    noiseEvery: options.noiseEvery,
    noiseContracts: NOISE_CONTRACTS,
  }
}

const toQuantity = (n: number): string => `0x${n.toString(16)}`

/** Times the two queries and prints the line. */
async function measureRange(
  client: RpcClient,
  options: BenchOptions,
  chain: RangeChain,
  emit: Emit,
  setup: Record<string, unknown>,
): Promise<void> {
  const range = { fromBlock: toQuantity(chain.fromBlock), toBlock: toQuantity(chain.toBlock) }
  const timeQuery = async (address: string, expected: number, count: number): Promise<Record<string, unknown>> => {
    let wrong = 0
    let logs = 0
    try {
      const latencies = await timeSequential(count, async () => {
        logs = (await client.call<unknown[]>('eth_getLogs', [{ ...range, address }])).length
        if (logs !== expected) wrong++
      })
      return { logs, expected, wrong, ...summarize(latencies) }
    } catch (err) {
      return { expected, error: err instanceof Error ? err.message : String(err) }
    }
  }
  const selective = await timeQuery(chain.target, chain.targetLogs, options.rangeQueries)
  const busy = await timeQuery(chain.busy, chain.busyLogs, Math.max(5, Math.ceil(options.rangeQueries / 5)))
  emit(WORKLOAD, {
    blocks: chain.toBlock - chain.fromBlock + 1,
    fromBlock: chain.fromBlock,
    toBlock: chain.toBlock,
    head: await getHeight(client),
    selective: { targetHeights: chain.targetHeights, ...selective },
    busy,
    noise: { contracts: chain.noise.length, logs: chain.noiseLogs, blocksWithLogs: chain.noiseBlocks },
    ...setup,
  })
}

/** Blocks per second over a short sample, nothing being sent. */
async function sampleBlockRate(client: RpcClient): Promise<number> {
  const h0 = await getHeight(client)
  const t0 = performance.now()
  await sleep(EMPTY_RATE_SAMPLE_MS)
  const h1 = await getHeight(client)
  return round((h1 - h0) / ((performance.now() - t0) / 1000), 1)
}

/** Against a spawned nodectl: build (or reuse) the range in its own home, then query it. */
/** nodectl's default `[json-rpc] block-range-cap`, as Evmos': eth_getLogs spans at most this many blocks. */
const DEFAULT_BLOCK_RANGE_CAP = 10_000

async function runOnOwnNode(options: BenchOptions, emit: Emit): Promise<void> {
  const home = options.rangeHome ?? mkdtempSync(join(tmpdir(), 'nodectl-bench-range-'))
  const port = options.port + PORT_OFFSET
  let chain = loadRangeChain(home)
  if (chain && JSON.stringify(chain.plan) !== JSON.stringify(rangePlanOf(options))) {
    throw new Error(`--range-home ${home} was built for ${JSON.stringify(chain.plan)}: use another directory, or the same range flags`)
  }
  if (!chain && options.rangeHome && existsSync(home) && readdirSync(home).length > 0) {
    throw new Error(`--range-home ${home} is not empty and holds no bench range: give a new or empty directory`)
  }
  mkdirSync(home, { recursive: true })
  let node: SpawnedNode | undefined
  let client: RpcClient | undefined
  const start = async (flags: readonly string[]): Promise<number> => {
    node = spawnNode(port, { home, flags })
    client = new RpcClient(node.url, 8)
    await waitForRpc(client, 120_000)
    return round(performance.now() - node.spawnedAt, 1)
  }
  const stop = async (): Promise<void> => {
    client?.close()
    if (node) await stopNode(node)
  }
  try {
    let build: Record<string, unknown>
    if (chain) {
      build = { reusedHome: home, buildSeconds: chain.buildSeconds, blocksPerSec: chain.blocksPerSec }
    } else {
      await start(FAST_EMPTY_BLOCK_FLAGS)
      const emptyBlocksPerSec = await sampleBlockRate(client!)
      const chainId = BigInt(await client!.call<string>('eth_chainId'))
      chain = await buildRangeChain(client!, chainId, devWallets(), rangePlanOf(options), waitingDriver(client!))
      saveRangeChain(home, chain)
      build = {
        flags: FAST_EMPTY_BLOCK_FLAGS.join(' '),
        emptyBlocksPerSec,
        buildSeconds: chain.buildSeconds,
        blocksPerSec: chain.blocksPerSec,
        ...(options.rangeHome ? { savedHome: home } : {}),
      }
      await stop()
    }
    // Measure on a node with the dev settings (blocks only for transactions, an empty one every 5 s) and
    // eth_getLogs' block-range cap raised to the range when it is longer than the default 10,000.
    const msToFirstAnswer = await start(['--json-rpc.block-range-cap', String(Math.max(DEFAULT_BLOCK_RANGE_CAP, options.rangeBlocks))])
    if ((await getHeight(client!)) < chain.toBlock) throw new Error(`${home} holds fewer blocks than its range (to ${chain.toBlock})`)
    await measureRange(client!, options, chain, emit, { build: { ...build, restartMs: msToFirstAnswer } })
  } finally {
    await stop()
    if (!options.rangeHome) rmSync(home, { recursive: true, force: true })
  }
}

export async function runGetLogsRange(options: BenchOptions, emit: Emit, target: ChainTarget | undefined): Promise<void> {
  if (!target) return runOnOwnNode(options, emit)
  const method = await detectMineMethod(target.client)
  if (!method) {
    emit(WORKLOAD, {
      skipped:
        'the target cannot mine blocks on request (anvil_mine, hardhat_mine); run without --rpc to build the range on a spawned node',
    })
    return
  }
  const chain = await buildRangeChain(
    target.client,
    target.chainId,
    target.accounts,
    rangePlanOf(options),
    miningDriver(target.client, method),
  )
  await measureRange(target.client, options, chain, emit, {
    build: { minedWith: method, buildSeconds: chain.buildSeconds, blocksPerSec: chain.blocksPerSec },
  })
}
