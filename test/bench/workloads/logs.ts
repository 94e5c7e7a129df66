/**
 * `logs`: eth_getLogs of every Transfer log of the token (address and topic), from its deployment to
 * the end of the transfer batch: the mint, the funding of the other senders and the batch's `--txs`
 * (3,010 logs by default; above 9,990 transfers the query passes nodectl's default logs-cap of 10,000).
 */
import { id } from 'ethers'
import { summarize, timeSequential } from '../stats.js'
import type { BenchContext } from './context.js'

/** Queries timed. */
const QUERIES = 20

/** topic0 of `Transfer(address,address,uint256)`. */
const TRANSFER_TOPIC = id('Transfer(address,address,uint256)')

export async function runLogs(ctx: BenchContext): Promise<void> {
  const token = await ctx.token()
  const batch = await ctx.transferBatch()
  const blocks = batch.endBlock - token.deployBlock + 1
  const filter = {
    fromBlock: `0x${token.deployBlock.toString(16)}`,
    toBlock: `0x${batch.endBlock.toString(16)}`,
    address: token.address,
    topics: [TRANSFER_TOPIC],
  }
  let count = 0
  try {
    const latencies = await timeSequential(QUERIES, async () => {
      count = (await ctx.client.call<unknown[]>('eth_getLogs', [filter])).length
    })
    const { count: queries, ...stats } = summarize(latencies)
    ctx.emit('eth_getLogs', { logs: count, blocks, queries, ...stats })
  } catch (err) {
    ctx.emit('eth_getLogs', { blocks, error: err instanceof Error ? err.message : String(err) })
  }
}
