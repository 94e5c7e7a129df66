/**
 * `ws-heads`: `--ws-clients` WebSocket clients subscribed to newHeads while `--ws-blocks` transactions
 * are sent one at a time, each waited for. Block timestamps are whole seconds, so delivery is measured
 * on the bench's clock: per block, the spread from the first subscriber's receipt to the last; and
 * tx→head, from eth_sendRawTransaction returning to each client receiving the head of the block that
 * holds the tx. All clients live in the bench process: their arrival stamps include its event loop.
 */
import { getFees, getNonce, sleep, type Receipt } from '../chain.js'
import { HeadSubscriber } from '../head-subscriber.js'
import { measureHeadDelivery } from '../head-delivery.js'
import { summarize } from '../stats.js'
import type { BenchContext } from './context.js'

/** Receives the 1 wei of each transaction. */
const RECIPIENT = '0x000000000000000000000000000000000000dEaD'

/** Longest wait for a tx's block to reach every client. */
const HEAD_TIMEOUT_MS = 30_000

/** Between receipt checks when no head came (a node that notifies before its receipts are readable). */
const RECEIPT_RECHECK_MS = 50

export async function runWsHeads(ctx: BenchContext): Promise<void> {
  const { options } = ctx
  if (!ctx.wsUrl) {
    ctx.emit('ws-heads', { skipped: 'no WebSocket URL: pass --ws ws://HOST:PORT' })
    return
  }
  const opened = await Promise.allSettled(Array.from({ length: options.wsClients }, () => HeadSubscriber.open(ctx.wsUrl!)))
  const clients = opened.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))
  const failure = opened.find((r): r is PromiseRejectedResult => r.status === 'rejected')
  try {
    if (failure) {
      const hint = options.ws ? '' : ' (pass --ws URL if the target serves WebSocket elsewhere)'
      ctx.emit('ws-heads', {
        skipped: `${clients.length}/${options.wsClients} subscriptions opened: ${String(failure.reason)}${hint}`,
        url: ctx.wsUrl,
      })
      return
    }
    // Only blocks after every client was subscribed count.
    const after = Math.max(...clients.map((c) => c.highest), Number(await ctx.client.call<string>('eth_blockNumber')))
    const sender = ctx.accounts[0]!
    const fees = await getFees(ctx.client)
    let nonce = await getNonce(ctx.client, sender.address)
    const txToHead: number[] = []
    const txToFirstHead: number[] = []
    let last = after
    for (let i = 0; i < options.wsBlocks; i++) {
      const raw = await sender.signTransaction({
        type: 2,
        chainId: ctx.chainId,
        nonce: nonce++,
        gasLimit: 21_000n,
        ...fees,
        to: RECIPIENT,
        value: 1n,
      })
      const hash = await ctx.client.call<string>('eth_sendRawTransaction', [raw])
      const sentAt = performance.now()
      const block = await findInclusion(ctx, clients[0]!, hash)
      await withDeadline(Promise.all(clients.map((c) => c.waitFor(block))), `head ${block} did not reach all ${clients.length} clients`)
      const times = clients.map((c) => c.arrivals.get(block)! - sentAt)
      txToHead.push(...times)
      txToFirstHead.push(Math.min(...times))
      last = Math.max(last, block)
    }
    const delivery = measureHeadDelivery(
      clients.map((c) => c.arrivals),
      after,
      last,
    )
    ctx.emit('ws-heads', {
      clients: clients.length,
      txs: options.wsBlocks,
      blocks: delivery.spreads.length,
      missing: delivery.missing,
      spread: summarize(delivery.spreads),
      lagBehindFirst: summarize(delivery.lags),
      txToHead: summarize(txToHead),
      txToFirstHead: summarize(txToFirstHead),
    })
  } finally {
    for (const c of clients) c.close()
  }
}

/** The block holding `hash`: checks its receipt on each head the reference client gets (and every 50 ms). */
async function findInclusion(ctx: BenchContext, reference: HeadSubscriber, hash: string): Promise<number> {
  const deadline = performance.now() + HEAD_TIMEOUT_MS
  for (;;) {
    const next = reference.nextHead()
    const receipt = await ctx.client.call<Receipt | null>('eth_getTransactionReceipt', [hash])
    if (receipt) return Number(receipt.blockNumber)
    if (performance.now() > deadline) throw new Error(`ws-heads: ${hash} not included within ${HEAD_TIMEOUT_MS} ms`)
    await Promise.race([next, sleep(RECEIPT_RECHECK_MS)])
  }
}

async function withDeadline<T>(promise: Promise<T>, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), HEAD_TIMEOUT_MS))),
    ])
  } finally {
    clearTimeout(timer)
  }
}
