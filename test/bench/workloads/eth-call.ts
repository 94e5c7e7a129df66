/**
 * `call`: eth_call of the ERC-20's `balanceOf`, closed loop at `--concurrency`, each call for another
 * holder (`ctx.holderWord`), so every call reads a storage slot no earlier call touched (a cold read,
 * not a cached one).
 */
import { runLoad } from '../load.js'
import type { BenchContext } from './context.js'

/**
 * The `i`-th holder as a 32-byte ABI word: an address of "b" then `i` in hex, distinct per call and
 * none of the dev accounts (encoded by hand: the load generator shares the node's two cores).
 */
export function holderWord(i: number): string {
  return `${'0'.repeat(24)}b${i.toString(16).padStart(39, '0')}`
}

export async function runEthCall(ctx: BenchContext): Promise<void> {
  const token = await ctx.token()
  const selector = token.abi.getFunction('balanceOf')!.selector
  const call = (i: number): Promise<unknown> =>
    ctx.client.call('eth_call', [{ to: token.address, data: selector + ctx.holderWord(i) }, 'latest'])
  const result = await runLoad(call, ctx.options.concurrency, ctx.options.durationMs)
  ctx.emit('eth_call', { ...result })
}
