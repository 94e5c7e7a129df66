/**
 * `--txs` ERC-20 transfers, pre-signed, from `--senders` accounts in parallel (each sends its own in
 * nonce order, keeping at most `--in-flight` / senders unmined), timed from the first send to the last receipt. Sent once: `transfers` reports its
 * throughput, `logs` queries its logs and `tx-search` looks its hashes up.
 */
import { getFees, getHeight, getNonce, getReceipts, sleep, waitForReceipt } from '../chain.js'
import { round } from '../stats.js'
import type { BenchContext } from './context.js'
import type { TokenSetup } from './token.js'

export interface TransferBatch {
  /** EVM hashes of the accepted transfers. */
  hashes: string[]
  /** Those of them with a receipt (status 1 or 0): in a block, so indexed. */
  committed: string[]
  /** Rejected sends plus failed or missing receipts. */
  failed: number
  seconds: number
  sendSeconds: number
  /** Head before the first send and after the last receipt. */
  startBlock: number
  endBlock: number
}

/** Where the tokens go. */
const RECIPIENT = '0x000000000000000000000000000000000000dEaD'

export async function sendTransferBatch(ctx: BenchContext, token: TokenSetup): Promise<TransferBatch> {
  const { client, chainId } = ctx
  const wallets = ctx.accounts.slice(0, ctx.options.senders)
  const total = ctx.options.txs
  const perSender = Math.ceil(total / wallets.length)
  const fees = await getFees(client)
  const data = token.abi.encodeFunctionData('transfer', [RECIPIENT, 1n])
  const firstNonces = await Promise.all(wallets.map((w) => getNonce(client, w.address)))
  const signed: string[][] = await Promise.all(
    wallets.map(async (w, s) => {
      const out: string[] = []
      for (let i = 0; i < perSender && s * perSender + i < total; i++) {
        out.push(await w.signTransaction({ type: 2, chainId, nonce: firstNonces[s]! + i, gasLimit: 80_000n, ...fees, to: token.address, data }))
      }
      return out
    }),
  )
  const window = Math.max(1, Math.floor(ctx.options.inFlight / wallets.length))
  const hashes: string[][] = signed.map(() => [])
  const startBlock = await getHeight(client)
  const t0 = performance.now()
  let sendErrors = 0
  await Promise.all(
    signed.map(async (txs, s) => {
      let mined = 0
      for (const [i, raw] of txs.entries()) {
        // Back-pressure: at most `window` of this sender's transfers wait in the pool.
        while (i - mined >= window) {
          await sleep(20)
          mined = (await getNonce(client, wallets[s]!.address, 'latest')) - firstNonces[s]!
        }
        try {
          hashes[s]!.push(await client.call<string>('eth_sendRawTransaction', [raw]))
        } catch {
          sendErrors++
        }
      }
    }),
  )
  const sentMs = performance.now() - t0
  await Promise.all(hashes.map((hs) => (hs.length ? waitForReceipt(client, hs[hs.length - 1]!) : undefined)))
  const seconds = (performance.now() - t0) / 1000
  const endBlock = await getHeight(client)
  const all = hashes.flat()
  const receipts = await getReceipts(client, all)
  const failed = sendErrors + receipts.filter((r) => !r || r.status !== '0x1').length
  const committed = all.filter((_, i) => receipts[i] !== null)
  return { hashes: all, committed, failed, seconds: round(seconds), sendSeconds: round(sentMs / 1000), startBlock, endBlock }
}
