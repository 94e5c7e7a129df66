/** `call`: eth_call of the ERC-20's `balanceOf`, closed loop at `--concurrency`. */
import { runLoad } from '../load.js'
import type { BenchContext } from './context.js'

export async function runEthCall(ctx: BenchContext): Promise<void> {
  const token = await ctx.token()
  const data = token.abi.encodeFunctionData('balanceOf', [ctx.accounts[0]!.address])
  const result = await runLoad(() => ctx.client.call('eth_call', [{ to: token.address, data }, 'latest']), ctx.options.concurrency, ctx.options.durationMs)
  ctx.emit('eth_call', { ...result })
}
