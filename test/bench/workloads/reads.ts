/** `reads`: eth_blockNumber / eth_getBalance / eth_chainId round-robin, closed loop at `--concurrency`. */
import { runLoad } from '../load.js'
import type { BenchContext } from './context.js'

export async function runReads(ctx: BenchContext): Promise<void> {
  const { client, options } = ctx
  const address = ctx.accounts[0]!.address
  const result = await runLoad(
    (i) =>
      i % 3 === 0
        ? client.call('eth_blockNumber')
        : i % 3 === 1
          ? client.call('eth_getBalance', [address, 'latest'])
          : client.call('eth_chainId'),
    options.concurrency,
    options.durationMs,
  )
  ctx.emit('reads', { ...result })
}
