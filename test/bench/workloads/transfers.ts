/** `transfers`: throughput of `--txs` committed ERC-20 transfers (see transfer-batch.ts). */
import type { BenchContext } from './context.js'
import type { TransferBatch } from './transfer-batch.js'

/** Prints a batch's line: `extra` first, then transactions, failures, seconds from the first send to the last receipt, tx/s, blocks. */
export function emitBatch(ctx: BenchContext, line: string, b: TransferBatch, extra: Record<string, unknown> = {}): void {
  ctx.emit(line, {
    ...extra,
    txs: b.hashes.length,
    failed: b.failed,
    seconds: b.seconds,
    txPerSec: Math.round(b.hashes.length / b.seconds),
    sendSeconds: b.sendSeconds,
    sendsPerSec: Math.round(b.hashes.length / b.sendSeconds),
    sendP99Ms: b.sendLatency.p99Ms,
    blocks: b.endBlock - b.startBlock,
  })
}

export async function runTransfers(ctx: BenchContext): Promise<void> {
  emitBatch(ctx, 'erc20_transfers', await ctx.transferBatch())
}
