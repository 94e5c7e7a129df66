/**
 * `tx-search`: the consensus RPC's tx_search by EVM hash (`ethereum_tx.ethereumTxHash='0x…'`, the
 * Evmos event attribute) for `--searches` random hashes of the transfer batch, one at a time. Each
 * answer must hold exactly one tx (total_count "1") carrying that hash; the others count as wrong.
 * Skipped when the target has no consensus RPC (Anvil, Hardhat; `--comet-rpc URL` names one).
 */
import { RpcClient } from '../rpc-client.js'
import { summarize, timeSequential } from '../stats.js'
import type { BenchContext } from './context.js'

interface TxSearchResult {
  total_count: string
  txs: { tx_result: { events: { type: string; attributes: { key: string; value: string }[] }[] } }[]
}

/** A deterministic generator (mulberry32), so two runs look the same hashes up. */
function createRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** CometBFT ≥ 0.37 sends event attributes as text, 0.34 (older Evmos) in base64. */
const fromBase64 = (text: string): string => Buffer.from(text, 'base64').toString('utf8')

/** Whether `result` is exactly the one tx with EVM hash `hash`. */
export function isSingleMatch(result: TxSearchResult, hash: string): boolean {
  if (result.total_count !== '1' || result.txs.length !== 1) return false
  const event = result.txs[0]!.tx_result.events.find((e) => e.type === 'ethereum_tx')
  const key = 'ethereumTxHash'
  const attr = event?.attributes.find((a) => a.key === key || fromBase64(a.key) === key)
  if (!attr) return false
  const value = attr.key === key ? attr.value : fromBase64(attr.value)
  return value.toLowerCase() === hash.toLowerCase()
}

export async function runTxSearch(ctx: BenchContext): Promise<void> {
  if (!ctx.cometUrl) {
    ctx.emit('tx-search', { skipped: 'no consensus RPC: the target serves EVM JSON-RPC only (pass --comet-rpc URL if it has one)' })
    return
  }
  const batch = await ctx.transferBatch()
  const hashes = batch.committed
  if (hashes.length === 0) throw new Error('tx-search: the transfer batch committed no transaction')
  const comet = new RpcClient(ctx.cometUrl, 1)
  const random = createRandom(1)
  let wrong = 0
  let errors = 0
  try {
    const latencies = await timeSequential(ctx.options.searches, async () => {
      const hash = hashes[Math.floor(random() * hashes.length)]!
      try {
        const result = await comet.call<TxSearchResult>('tx_search', { query: `ethereum_tx.ethereumTxHash='${hash}'` })
        if (!isSingleMatch(result, hash)) wrong++
      } catch {
        errors++
      }
    })
    ctx.emit('tx-search', { indexedTxs: hashes.length, searches: latencies.length, wrong, errors, ...summarize(latencies) })
  } finally {
    comet.close()
  }
}
