/**
 * `--testnet N` (issue 11): the `transfers` batch over a network of N validators. The ERC-20 is deployed
 * on node0; sender k sends its transfers to node k mod N, so most transactions reach the proposer by
 * gossip. Measured on node0: committed transfers/s (first send → last receipt), the blocks of the run and
 * their intervals (newHeads arrivals), tx → finality for one transfer in {@link FINALITY_SAMPLE_EVERY}
 * (send → the head of its block arriving); then every node's hash at the final height must agree.
 */
import { getHeight, getReceipts, sleep } from '../chain.js'
import { formatFigure } from '../compare.js'
import { blockIntervals, finalityLatencies, summarizeBlockTimes, type BlockTimeSummary, type SentTx } from '../block-times.js'
import { HeadSubscriber } from '../head-subscriber.js'
import { cpuMs, rssMb } from '../node-process.js'
import type { BenchOptions } from '../options.js'
import { RpcClient } from '../rpc-client.js'
import { mean, round, summarize, type LatencySummary } from '../stats.js'
import { TESTNET_ENV, type BenchTestnet, type TestnetStartup } from '../testnet-network.js'
import { type BenchContext, createContext, type Emit } from './context.js'
import type { TokenSetup } from './token.js'
import { type BatchCall, erc20TransferCall, sendBatch, type TransferBatch } from './transfer-batch.js'
import { emitBatch } from './transfers.js'

/** One transfer in this many (by send order) is timed from send to finality: 150 of the default 3,000. */
const FINALITY_SAMPLE_EVERY = 20

/** Issue 11's goals: at least 300 committed ERC-20 transfers/s, blocks at most 1 s apart. */
const GOAL_TX_PER_SEC = 300
const GOAL_BLOCK_MS = 1000

/** Longest wait for node0's head of the last block, and for every node to reach the final height (ms). */
const CATCH_UP_TIMEOUT_MS = 30_000

/** A block of the run as eth_getBlockByNumber(n, false) returns it, the fields read here. */
interface BlockInfo {
  hash: string
  gasUsed: string
  gasLimit: string
  transactions: string[]
}

export async function runTestnetTransfers(options: BenchOptions, emit: Emit, net: BenchTestnet, startup: TestnetStartup): Promise<void> {
  const validators = net.nodes.length
  const node0 = net.nodes[0]!
  emit('startup', { validators, ...startup, env: TESTNET_ENV })
  const clients = net.nodes.map((n) => new RpcClient(n.url, options.sendConcurrency))
  let heads: HeadSubscriber | undefined
  try {
    const ctx = await createContext(options, clients[0]!, emit, { wsUrl: node0.wsUrl, cometUrl: node0.cometUrl })
    const token = await ctx.token()
    heads = await HeadSubscriber.open(node0.wsUrl)
    await withDeadline(heads.nextHead(), "node0's first newHeads")
    const transfer = await estimatedTransferCall(ctx, token)
    emit('gas', { validators, transferGasLimit: transfer.gasLimit.toString() })
    if (options.warmUp > 0) await warmUp(ctx, transfer, clients, heads)
    const sent = new Map<string, number>()
    const cpuBefore = net.nodes.map((n) => cpuMs(n.child.pid))
    const batch = await sendBatch(ctx, transfer, {
      clientOf: (sender) => clients[sender % validators]!,
      onSent: (hash, sentAt, order) => {
        if (order % FINALITY_SAMPLE_EVERY === 0) sent.set(hash, sentAt)
      },
    })
    await withDeadline(heads.waitFor(batch.endBlock), `node0's newHeads of block ${batch.endBlock}`)
    const cpuPerTx = net.nodes.map((n, i) => msPerTx(cpuBefore[i], cpuMs(n.child.pid), batch.hashes.length))

    const { startBlock, endBlock } = batch
    const blocks = await Promise.all(
      Array.from({ length: endBlock - startBlock }, (_, i) =>
        ctx.client.call<BlockInfo>('eth_getBlockByNumber', [`0x${(startBlock + 1 + i).toString(16)}`, false]),
      ),
    )
    const txCounts = blocks.map((b) => b.transactions.length)
    const gasShares = blocks.map((b) => Number(b.gasUsed) / Number(b.gasLimit))

    const sampled = [...sent.keys()]
    const receipts = await getReceipts(ctx.client, sampled)
    const samples: SentTx[] = sampled.flatMap((hash, i) => {
      const r = receipts[i]
      return r ? [{ sentAt: sent.get(hash)!, block: Number(r.blockNumber) }] : []
    })
    const finality = finalityLatencies(samples, heads.arrivals)
    const intervals = blockIntervals(heads.arrivals, startBlock, endBlock)
    const figures: TestnetFigures = {
      validators,
      txPerSec: Math.round(batch.hashes.length / batch.seconds),
      blockTime: summarizeBlockTimes(intervals),
      txsPerBlock: { mean: round(mean(txCounts), 1), max: Math.max(0, ...txCounts), empty: txCounts.filter((n) => n === 0).length },
      finality: summarize(finality.latencies),
      agreement: await checkAgreement(clients, endBlock),
    }

    emitBatch(ctx, 'erc20_transfers', batch, { validators, sendsTo: `sender k → node k mod ${validators}` })
    emit('blocks', {
      validators,
      blocks: endBlock - startBlock,
      blockTime: figures.blockTime,
      txsPerBlock: figures.txsPerBlock,
      maxGasShare: round(Math.max(0, ...gasShares), 3),
      txCounts,
      intervalsMs: intervals.map((ms) => Math.round(ms)),
    })
    emit('finality', { validators, sampleEvery: FINALITY_SAMPLE_EVERY, missing: finality.missing, ...figures.finality })
    emit('agreement', { ...figures.agreement })
    emit('cpu', { validators, msPerTx: cpuPerTx })
    emit('memory', { rssMb: net.nodes.map((n) => rssMb(n.child.pid)) })
    const { agreement } = figures
    if (!agreement.sameHash) {
      process.stderr.write(`\n!!! BLOCK HASH MISMATCH at height ${agreement.height}: ${agreement.hashes.join(' ')}\n\n`)
      process.exitCode = 1
    }
    process.stderr.write(formatTestnetTable(options, batch, figures))
  } finally {
    heads?.close()
    for (const c of clients) c.close()
  }
}

/** The figures of the table, besides the batch's own. */
interface TestnetFigures {
  validators: number
  txPerSec: number
  blockTime: BlockTimeSummary
  txsPerBlock: { mean: number; max: number; empty: number }
  finality: LatencySummary
  agreement: Agreement
}

/** Every node's hash at one height. */
interface Agreement {
  height: number
  sameHash: boolean
  hashes: string[]
}

/** The human rendering, for stderr: a title and the figures against issue 11's goals as a Markdown table. */
function formatTestnetTable(options: BenchOptions, batch: TransferBatch, f: TestnetFigures): string {
  const { blockTime, finality, agreement } = f
  const triple = (a: number, b: number, c: number): string => [a, b, c].map(formatFigure).join(' / ')
  const rows: [string, string, string][] = [
    [
      `committed ERC-20 transfers/s (${options.txs.toLocaleString('en-US')} from ${options.senders} senders ` +
        `over ${f.validators} nodes, c=${options.sendConcurrency})`,
      formatFigure(f.txPerSec),
      verdict(f.txPerSec >= GOAL_TX_PER_SEC, `≥ ${GOAL_TX_PER_SEC}`),
    ],
    ['failed transfers', formatFigure(batch.failed), ''],
    [`blocks during the run (${batch.seconds} s)`, formatFigure(batch.endBlock - batch.startBlock), ''],
    [
      'block time mean / p50 / max (ms)',
      triple(blockTime.meanMs, blockTime.p50Ms, blockTime.maxMs),
      verdict(blockTime.count > 0 && blockTime.meanMs <= GOAL_BLOCK_MS, `≤ ${GOAL_BLOCK_MS}`),
    ],
    ['transfers per block mean / max', `${formatFigure(f.txsPerBlock.mean)} / ${formatFigure(f.txsPerBlock.max)}`, ''],
    [`tx → finality p50 / p95 / max (ms, ${finality.count} sampled)`, triple(finality.p50Ms, finality.p95Ms, finality.maxMs), ''],
    [
      `same block hash on all ${f.validators} nodes at height ${agreement.height}`,
      agreement.sameHash ? 'yes' : 'NO (mismatch)',
      verdict(agreement.sameHash, 'yes'),
    ],
  ]
  const commitWait = TESTNET_ENV.NODECTL_CONSENSUS_TIMEOUT_COMMIT
  const date = new Date().toISOString().slice(0, 10)
  const title = `nodectl testnet of ${f.validators} validators on this machine (timeout_commit ${commitWait}), ${date}`
  return `\n${title}\n\n${formatTable(['figure', 'value', 'goal'], rows)}`
}

/** Every node's hash at `height`, once each has reached it. */
async function checkAgreement(clients: readonly RpcClient[], height: number): Promise<Agreement> {
  const hashes = await Promise.all(
    clients.map(async (c) => {
      await withDeadline(waitForHeight(c, height), `height ${height} on every node`)
      return (await c.call<BlockInfo>('eth_getBlockByNumber', [`0x${height.toString(16)}`, false])).hash
    }),
  )
  return { height, sameHash: hashes.every((h) => h === hashes[0]), hashes }
}

/**
 * The transfer with the gas limit a wallet library gives it: ethers v6 and viem fill an unset gas limit
 * with eth_estimateGas's answer, adding no margin. Estimated once, before the batch (the recipient holds
 * no token yet, so the answer covers the first transfer's new storage slot); a proposal sums gas limits,
 * so the limit a transaction declares is what it takes of the block.
 */
async function estimatedTransferCall(ctx: BenchContext, token: TokenSetup): Promise<BatchCall> {
  const call = erc20TransferCall(token)
  const request = { from: ctx.accounts[0]!.address, to: call.to, data: call.data }
  return erc20TransferCall(token, undefined, BigInt(await ctx.client.call<string>('eth_estimateGas', [request])))
}

/**
 * `--warm-up N`: N transfers over the same nodes as the batch, committed before it starts. A node's
 * first transfers run its transfer path through V8's compilers: in a cold batch of 3,000 a fifth to a
 * third of the nodes' CPU (sampled with `perf`) was TurboFan compiling, which a network in service has
 * long done.
 */
async function warmUp(ctx: BenchContext, transfer: BatchCall, clients: readonly RpcClient[], heads: HeadSubscriber): Promise<void> {
  const validators = clients.length
  const batch = await sendBatch({ ...ctx, options: { ...ctx.options, txs: ctx.options.warmUp } }, transfer, {
    clientOf: (sender) => clients[sender % validators]!,
  })
  await withDeadline(heads.waitFor(batch.endBlock), `node0's newHeads of warm-up block ${batch.endBlock}`)
  ctx.emit('warm-up', { validators, txs: batch.hashes.length, failed: batch.failed, seconds: batch.seconds })
}

/** CPU ms a transfer cost a node over the batch (from the first send to node0's head of the last block). */
function msPerTx(before: number | undefined, after: number | undefined, txs: number): number | undefined {
  return before === undefined || after === undefined || txs === 0 ? undefined : round((after - before) / txs, 3)
}

async function waitForHeight(client: RpcClient, height: number): Promise<void> {
  while ((await getHeight(client)) < height) await sleep(50)
}

async function withDeadline<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${CATCH_UP_TIMEOUT_MS} ms`)), CATCH_UP_TIMEOUT_MS)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

function verdict(met: boolean, goal: string): string {
  return `${goal}: ${met ? 'met' : 'missed'}`
}

/** An aligned Markdown table (as the `--compare` table), the value column right-aligned. */
function formatTable(header: string[], rows: readonly string[][]): string {
  const table = [header, ...rows]
  const widths = header.map((_, c) => Math.max(...table.map((r) => r[c]!.length)))
  const pad = (cell: string, c: number): string => (c === 1 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))
  const render = (r: readonly string[]): string => `| ${r.map(pad).join(' | ')} |`
  const rule = `|${widths.map((w, c) => (c === 1 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`
  return [render(header), rule, ...rows.map(render)].join('\n') + '\n'
}
