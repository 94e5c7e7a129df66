/** `value-transfers`: throughput of `--txs` committed transfers of 1 wei, sent as the ERC-20 batch (see transfer-batch.ts). */
import type { BenchContext } from './context.js'
import { sendBatch, VALUE_TRANSFER_CALL } from './transfer-batch.js'
import { emitBatch } from './transfers.js'

export async function runValueTransfers(ctx: BenchContext): Promise<void> {
  emitBatch(ctx, 'value_transfers', await sendBatch(ctx, VALUE_TRANSFER_CALL))
}
