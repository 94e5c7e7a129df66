/** `transfers`: throughput of `--txs` committed ERC-20 transfers (see transfer-batch.ts). */
import type { BenchContext } from './context.js'

export async function runTransfers(ctx: BenchContext): Promise<void> {
  const b = await ctx.transferBatch()
  ctx.emit('erc20_transfers', {
    txs: b.hashes.length,
    failed: b.failed,
    seconds: b.seconds,
    txPerSec: Math.round(b.hashes.length / b.seconds),
    sendSeconds: b.sendSeconds,
    blocks: b.endBlock - b.startBlock,
  })
}
