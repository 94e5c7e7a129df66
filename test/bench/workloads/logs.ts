/**
 * `logs`: eth_getLogs of every Transfer log of the transfer batch, by the token's address, over the
 * blocks the batch spanned (not from block 0: the batch's `--txs` logs plus the funding ones would
 * pass the default logs-cap of 10000).
 */
import { summarize, timeSequential } from '../stats.js'
import type { BenchContext } from './context.js'

/** Queries timed. */
const QUERIES = 20

export async function runLogs(ctx: BenchContext): Promise<void> {
  const token = await ctx.token()
  const batch = await ctx.transferBatch()
  const filter = { fromBlock: `0x${(batch.startBlock + 1).toString(16)}`, toBlock: `0x${batch.endBlock.toString(16)}`, address: token.address }
  let count = 0
  try {
    const latencies = await timeSequential(QUERIES, async () => {
      count = (await ctx.client.call<unknown[]>('eth_getLogs', [filter])).length
    })
    const { count: queries, ...stats } = summarize(latencies)
    ctx.emit('eth_getLogs', { logs: count, blocks: batch.endBlock - batch.startBlock, queries, ...stats })
  } catch (err) {
    ctx.emit('eth_getLogs', { blocks: batch.endBlock - batch.startBlock, error: err instanceof Error ? err.message : String(err) })
  }
}
