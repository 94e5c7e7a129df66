/** Transaction helpers of the workloads: fees, nonces, receipts, over the bench's {@link RpcClient}. */
import type { RpcClient } from './rpc-client.js'

export interface Receipt {
  transactionHash: string
  status: string
  blockNumber: string
  contractAddress: string | null
  logs: { address: string }[]
}

export interface Fees {
  maxFeePerGas: bigint
  maxPriorityFeePerGas: bigint
}

/** Tip of every bench transaction: 1 gwei. */
const TIP_WEI = 1_000_000_000n

/** Base fee assumed when the head block has none (pre-London targets): 1 gwei. */
const FALLBACK_BASE_FEE_WEI = 1_000_000_000n

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/**
 * EIP-1559 fees valid for a while: 4 × the head's base fee + 1 gwei (the base fee rises at most 12.5%
 * a block, EIP-1559, so this survives ~11 full blocks in a row).
 */
export async function getFees(client: RpcClient): Promise<Fees> {
  const block = await client.call<{ baseFeePerGas?: string }>('eth_getBlockByNumber', ['latest', false])
  const base = block.baseFeePerGas ? BigInt(block.baseFeePerGas) : FALLBACK_BASE_FEE_WEI
  return { maxFeePerGas: base * 4n + TIP_WEI, maxPriorityFeePerGas: TIP_WEI }
}

/** The next nonce of `address`, counting its pool transactions. */
/** The account's nonce: at `pending` it counts the pool too, at `latest` only mined transactions. */
export async function getNonce(client: RpcClient, address: string, block: 'latest' | 'pending' = 'pending'): Promise<number> {
  return Number(await client.call<string>('eth_getTransactionCount', [address, block]))
}

export async function getHeight(client: RpcClient): Promise<number> {
  return Number(await client.call<string>('eth_blockNumber'))
}

/** Polls for a receipt every 20 ms. */
export async function waitForReceipt(client: RpcClient, hash: string, timeoutMs = 120_000): Promise<Receipt> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const receipt = await client.call<Receipt | null>('eth_getTransactionReceipt', [hash])
    if (receipt) return receipt
    if (performance.now() > deadline) throw new Error(`no receipt for ${hash} within ${timeoutMs} ms`)
    await sleep(20)
  }
}

/** Receipts of many transactions, 200 requests in flight at a time; null for a missing one. */
export async function getReceipts(client: RpcClient, hashes: readonly string[]): Promise<(Receipt | null)[]> {
  const out: (Receipt | null)[] = []
  for (let i = 0; i < hashes.length; i += 200) {
    out.push(...(await Promise.all(hashes.slice(i, i + 200).map((h) => client.call<Receipt | null>('eth_getTransactionReceipt', [h])))))
  }
  return out
}

export async function sendAndWait(client: RpcClient, raw: string): Promise<Receipt> {
  const hash = await client.call<string>('eth_sendRawTransaction', [raw])
  return waitForReceipt(client, hash)
}
