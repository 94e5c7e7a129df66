/**
 * `--soak SECONDS`: a light load on a spawned `nodectl start --dev` for that long (ERC-20 transfers
 * from every sender and `balanceOf` calls of distinct holders, each second), with a `soak` line each
 * minute: the node's RSS, the size of its data directory, its height, what was sent and what failed;
 * then a `soak-rss` line, the band of the readings from minute 5 around their mean. RSS flat after the
 * first minutes means nothing kept in the heap grows with the chain.
 *
 * With `--pruning` or `--min-retain-blocks` the node is the one validator of a chain of our engine
 * instead (a `--dev` chain keeps every height), started with those settings: the `diskMb` of two soaks
 * side by side is what pruning saves.
 */
import { join } from 'node:path'
import { getFees, getHeight, getNonce, sleep } from '../chain.js'
import { dirSizeMb } from '../disk-usage.js'
import { rssMb, spawnNode, stopNode, waitForEthCall, type SpawnedNode } from '../node-process.js'
import type { BenchOptions, SoakRetention } from '../options.js'
import { withTestnet } from '../testnet-network.js'
import { RpcClient } from '../rpc-client.js'
import { rssBand } from '../stats.js'
import { createContext, type Emit } from './context.js'
import { holderWord } from './eth-call.js'
import { erc20TransferCall } from './transfer-batch.js'

/** ERC-20 transfers and eth_calls sent each second: a light load, a few percent of what the node can take. */
const TXS_PER_SEC = 10
const CALLS_PER_SEC = 20

/** Between two `soak` lines. */
const REPORT_EVERY_MS = 60_000

/** Readings before this are the warm-up, left out of the `soak-rss` band. */
const WARM_UP_SECONDS = 300

/** Longest wait for the node's first correct eth_call. */
const STARTUP_TIMEOUT_MS = 30_000

export async function runSoak(options: BenchOptions, soakSeconds: number, emit: Emit): Promise<void> {
  const retention = options.soakRetention
  if (retention) {
    emit('soak-chain', { validators: 1, ...retention })
    return withTestnet(
      1,
      options.port,
      'nodectl',
      undefined,
      (net) => soakOn(net.nodes[0]!, options, soakSeconds, emit),
      retentionEnv(retention),
    )
  }
  const node = spawnNode(options.port)
  try {
    await soakOn(node, options, soakSeconds, emit)
  } finally {
    await stopNode(node)
  }
}

/** The NODECTL_* overrides of a soak's retention settings. */
function retentionEnv(retention: SoakRetention): Record<string, string> {
  return { NODECTL_PRUNING: retention.pruning, NODECTL_MIN_RETAIN_BLOCKS: String(retention.minRetainBlocks) }
}

async function soakOn(node: SpawnedNode, options: BenchOptions, soakSeconds: number, emit: Emit): Promise<void> {
  const client = new RpcClient(node.url, 8)
  try {
    emit('startup', { ...(await waitForEthCall(client, node.spawnedAt, STARTUP_TIMEOUT_MS)) })
    const ctx = await createContext(options, client, emit, { wsUrl: node.wsUrl, cometUrl: node.cometUrl })
    const token = await ctx.token()
    const transfer = erc20TransferCall(token)
    const selector = token.abi.getFunction('balanceOf')!.selector
    const senders = ctx.accounts.slice(0, options.senders)
    const nonces = await Promise.all(senders.map((w) => getNonce(client, w.address)))
    const fees = await getFees(client)
    let sent = 0
    let calls = 0
    let errors = 0
    const readings: { seconds: number; rssMb: number }[] = []
    const start = performance.now()
    let nextReport = start + REPORT_EVERY_MS
    for (let second = 0; second < soakSeconds; second++) {
      const sends = Array.from({ length: TXS_PER_SEC }, async (_, i) => {
        const s = (second * TXS_PER_SEC + i) % senders.length
        const raw = await senders[s]!.signTransaction({ type: 2, chainId: ctx.chainId, nonce: nonces[s]!++, ...fees, ...transfer })
        await client.call('eth_sendRawTransaction', [raw])
        sent++
      })
      const reads = Array.from({ length: CALLS_PER_SEC }, async () => {
        await client.call('eth_call', [{ to: token.address, data: selector + holderWord(calls++) }, 'latest'])
      })
      const failed = (await Promise.allSettled([...sends, ...reads])).filter((r) => r.status === 'rejected').length
      if (failed) {
        errors += failed
        // a rejected send leaves a nonce gap: start again from the node's nonces
        for (const [s, w] of senders.entries()) nonces[s] = await getNonce(client, w.address)
      }
      await sleep(start + (second + 1) * 1000 - performance.now())
      if (performance.now() >= nextReport || second === soakSeconds - 1) {
        const seconds = Math.round((performance.now() - start) / 1000)
        const rss = rssMb(node.child.pid)
        if (rss !== undefined) readings.push({ seconds, rssMb: rss })
        const diskMb = node.home === undefined ? undefined : dirSizeMb(join(node.home, 'data'))
        emit('soak', { seconds, rssMb: rss, diskMb, height: await getHeight(client), sent, calls, errors })
        nextReport += REPORT_EVERY_MS
      }
    }
    const band = rssBand(readings, WARM_UP_SECONDS)
    if (band) emit('soak-rss', { fromSeconds: WARM_UP_SECONDS, ...band })
  } finally {
    client.close()
  }
}
