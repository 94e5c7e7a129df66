/**
 * What a node restored by state sync at height `base - 1` answers about the history it does not have:
 * below `base` the EVM answers as a node whose history was pruned (4444 `pruned history unavailable`,
 * geth's `PrunedHistoryError`), blocks, logs and state alike, and `earliest`, eth_capabilities and the
 * consensus side's store agree that its history begins at `base`. The genesis block is served when the
 * snapshot carried it (fewer than 256 heights in), as every node serves it; its state never is.
 */
import { expect } from 'vitest'
import { createPublicClient, http } from 'viem'

export interface RestoredNode {
  evmUrl: string
  cometUrl: string
  /** The first height above the restored snapshot. */
  base: number
  /** A height below the snapshot that had transactions on the chain. */
  preSnapshot: number
  /** An account with a balance at `preSnapshot`. */
  account: `0x${string}`
}

const PRUNED = { code: 4444, message: 'pruned history unavailable' }
/** Heights a snapshot carries blocks of, up to its own (BLOCKHASH's window). */
const CARRIED_BLOCKS = 256

/** The JSON-RPC error code and message a viem call fails with. */
async function rpcErrorOf(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e as { code: number; details: string },
  )
  if (!err) throw new Error('the call succeeded')
  return { code: err.code, message: err.details }
}

async function cometReply(cometUrl: string, path: string): Promise<{ result?: unknown; error?: { data?: string } }> {
  return (await (await fetch(`${cometUrl}${path}`)).json()) as { result?: unknown; error?: { data?: string } }
}

export async function expectHistoryFrom(node: RestoredNode): Promise<void> {
  const { base, preSnapshot } = node
  const client = createPublicClient({ transport: http(node.evmUrl) })
  for (const blockNumber of [BigInt(preSnapshot), BigInt(base - 1)]) {
    expect(await rpcErrorOf(client.getBlock({ blockNumber })), `block ${blockNumber}`).toEqual(PRUNED)
  }
  if (base - 1 < CARRIED_BLOCKS) expect((await client.getBlock({ blockNumber: 0n })).number).toBe(0n)
  else expect(await rpcErrorOf(client.getBlock({ blockNumber: 0n }))).toEqual(PRUNED)
  expect(await rpcErrorOf(client.getLogs({ fromBlock: BigInt(base - 2), toBlock: BigInt(base + 1) }))).toEqual(PRUNED)
  for (const blockNumber of [0n, BigInt(preSnapshot)]) {
    expect(await rpcErrorOf(client.getBalance({ address: node.account, blockNumber })), `balance at ${blockNumber}`).toEqual(PRUNED)
  }
  expect(await client.getLogs({ fromBlock: BigInt(base), toBlock: BigInt(base + 1) })).toEqual([])
  expect((await client.getBlock({ blockTag: 'earliest' })).number).toBe(BigInt(base))
  const capabilities = (await client.request({ method: 'eth_capabilities' as never })) as Record<string, { oldestBlock: string }>
  for (const kind of ['state', 'tx', 'logs', 'receipts', 'blocks']) expect(Number(capabilities[kind]!.oldestBlock), kind).toBe(base)

  const status = (await cometReply(node.cometUrl, '/status')).result as { sync_info: { earliest_block_height: string } }
  expect(status.sync_info.earliest_block_height).toBe(String(base))
  expect((await cometReply(node.cometUrl, `/block?height=${base - 1}`)).error?.data).toBe(
    `height ${base - 1} is not available, lowest height is ${base}`,
  )
}
