/**
 * `--txs` transactions, pre-signed, from `--senders` accounts (round-robin, each sender's in nonce
 * order), sent `--send-concurrency` at a time while each sender keeps at most `--in-flight` / senders
 * unmined; timed from the first send to the last receipt. The ERC-20 batch is sent once: `transfers`
 * reports its throughput, `logs` queries its logs and `tx-search` looks its hashes up; `value-transfers`
 * sends a batch of its own. `--testnet` routes each sender's sends to another node (see {@link BatchRouting}).
 */
import { getFees, getHeight, getNonce, getReceipts, sleep, waitForReceipt } from '../chain.js'
import type { RpcClient } from '../rpc-client.js'
import { type Percentiles, percentiles, round } from '../stats.js'
import type { BenchContext } from './context.js'
import type { TokenSetup } from './token.js'

export interface TransferBatch {
  /** EVM hashes of the accepted transactions. */
  hashes: string[]
  /** Those of them with a receipt (status 1 or 0): in a block, so indexed. */
  committed: string[]
  /** Rejected sends plus failed or missing receipts. */
  failed: number
  seconds: number
  sendSeconds: number
  /** eth_sendRawTransaction round trips of the accepted sends, while the node executes the blocks before them. */
  sendLatency: Percentiles
  /** Head before the first send and after the last receipt. */
  startBlock: number
  endBlock: number
}

/** What every transaction of a batch carries besides its type, chain id, nonce and fees. */
export interface BatchCall {
  to: string
  data?: string
  value?: bigint
  gasLimit: bigint
}

/** Where the tokens and the wei go. */
const RECIPIENT = '0x000000000000000000000000000000000000dEaD'

/**
 * An ERC-20 `transfer` of one token unit to `recipient` (default 0x…dEaD), with a gas limit of 80,000
 * unless given: a fixed margin above the ~52,000 eth_estimateGas answers for the first transfer to the
 * recipient (later ones use ~35,000).
 */
export function erc20TransferCall(token: TokenSetup, recipient = RECIPIENT, gasLimit = 80_000n): BatchCall {
  return { to: token.address, data: token.abi.encodeFunctionData('transfer', [recipient, 1n]), gasLimit }
}

/** A plain transfer of 1 wei: 21,000 gas, no EVM code run. */
export const VALUE_TRANSFER_CALL: BatchCall = { to: RECIPIENT, value: 1n, gasLimit: 21_000n }

/**
 * Where a batch's eth_sendRawTransaction calls go, and who hears of each accepted one. By default every
 * send goes to `ctx.client`; nonces and receipts are always read from `ctx.client`.
 */
export interface BatchRouting {
  /** The node sender `sender` (an index into the senders) sends to. */
  clientOf(sender: number): RpcClient
  /** Called for each accepted send: its hash, performance.now() just before the request, its place in the send order. */
  onSent?(hash: string, sentAt: number, order: number): void
}

interface Job {
  sender: number
  /** Position in the sender's nonce order. */
  index: number
  raw: string
}

/**
 * Sends the batch: every transaction carries `call`, or `call(n)` for the batch's n-th transaction
 * (sender n mod senders, that sender's (n div senders)-th), e.g. a transfer to another holder each.
 */
export async function sendBatch(
  ctx: BenchContext,
  call: BatchCall | ((n: number) => BatchCall),
  routing?: BatchRouting,
): Promise<TransferBatch> {
  const { client, chainId } = ctx
  const clientOf = routing?.clientOf ?? (() => client)
  const wallets = ctx.accounts.slice(0, ctx.options.senders)
  const total = ctx.options.txs
  const fees = await getFees(client)
  const firstNonces = await Promise.all(wallets.map((w) => getNonce(client, w.address)))
  const perSender = wallets.map((_, s) => Math.floor(total / wallets.length) + (s < total % wallets.length ? 1 : 0))
  const signed: string[][] = await Promise.all(
    wallets.map(async (w, s) => {
      const out: string[] = []
      for (let i = 0; i < perSender[s]!; i++) {
        const fields = typeof call === 'function' ? call(i * wallets.length + s) : call
        out.push(await w.signTransaction({ type: 2, chainId, nonce: firstNonces[s]! + i, ...fees, ...fields }))
      }
      return out
    }),
  )
  const jobs: Job[] = []
  // round-robin over the senders, each one's in nonce order
  for (let i = 0; i < perSender[0]!; i++) {
    for (const [s, txs] of signed.entries()) if (i < txs.length) jobs.push({ sender: s, index: i, raw: txs[i]! })
  }
  const window = Math.max(1, Math.floor(ctx.options.inFlight / wallets.length))
  const mined = wallets.map(() => 0)
  const hashes: (string | undefined)[][] = signed.map((txs) => new Array<string | undefined>(txs.length))
  // Open the connections before timing: a send on a new one waits for the node to accept it, while later
  // nonces of the same sender, sent on open ones, fill the pool's queue of 64 per account (geth's) and are refused.
  const sendClients = [...new Set(wallets.map((_, s) => clientOf(s)))]
  await Promise.all(sendClients.flatMap((c) => Array.from({ length: ctx.options.sendConcurrency }, () => c.call('eth_chainId'))))
  const startBlock = await getHeight(client)
  const t0 = performance.now()
  let sendErrors = 0
  const sendMs: number[] = []
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const order = next++
      const { sender, index, raw } = jobs[order]!
      // Back-pressure: at most `window` of this sender's transactions wait in the pool.
      while (index - mined[sender]! >= window) {
        await sleep(20)
        mined[sender] = (await getNonce(client, wallets[sender]!.address, 'latest')) - firstNonces[sender]!
      }
      try {
        const sentAt = performance.now()
        const hash = await clientOf(sender).call<string>('eth_sendRawTransaction', [raw])
        sendMs.push(performance.now() - sentAt)
        hashes[sender]![index] = hash
        routing?.onSent?.(hash, sentAt, order)
      } catch {
        sendErrors++
      }
    }
  }
  await Promise.all(Array.from({ length: ctx.options.sendConcurrency }, worker))
  const sentMs = performance.now() - t0
  const accepted = hashes.map((hs) => hs.filter((h): h is string => h !== undefined))
  await Promise.all(accepted.map((hs) => (hs.length ? waitForReceipt(client, hs[hs.length - 1]!) : undefined)))
  const seconds = (performance.now() - t0) / 1000
  const endBlock = await getHeight(client)
  const all = accepted.flat()
  const receipts = await getReceipts(client, all)
  const failed = sendErrors + receipts.filter((r) => r?.status !== '0x1').length
  const committed = all.filter((_, i) => receipts[i] !== null)
  return {
    hashes: all,
    committed,
    failed,
    seconds: round(seconds),
    sendSeconds: round(sentMs / 1000),
    sendLatency: percentiles(sendMs),
    startBlock,
    endBlock,
  }
}
