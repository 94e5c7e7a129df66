/**
 * `min-retain-blocks` on a real node: the application's Commit returns a retain height, the engine prunes
 * its blocks, results and index below it and the application its EVM history (above the BLOCKHASH
 * window). Pruned heights answer as the reference nodes do: CometBFT's "height X is not available, lowest
 * height is Y" on the consensus RPC (through cosmjs), geth's 4444 "pruned history unavailable" on the
 * EVM side (through viem); `earliest`, /status and eth_capabilities say where history begins; the kept
 * heights answer exactly as before.
 */
import { rm } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Comet38Client } from '@cosmjs/tendermint-rpc'
import { createPublicClient, createWalletClient, http, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { sha256 } from '../../src/crypto/index.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { bytesToUpperHex, hexToBytes } from '../../src/primitives/hex.js'
import { cometRpc, rpc, startTestNode, waitForBlock, type TestNode } from '../helpers/dev-node.js'
import { initRetentionHome } from '../helpers/retention-home.js'

/** Heights kept. */
const KEEP = 10
/** The EVM side keeps the BLOCKHASH window whatever the setting. */
const BLOCKHASH_WINDOW = 256

/** The error of a consensus-RPC call. */
async function cometError(url: string, method: string, params: Record<string, unknown>): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  return ((await res.json()) as { error?: unknown }).error
}

interface CometStatus {
  sync_info: { earliest_block_height: string; latest_block_height: string }
}

describe('history retention (min-retain-blocks)', () => {
  let home: string
  let t: TestNode
  let cometUrl: string
  const [a0, a1] = devAccounts(2)
  const account = privateKeyToAccount(a0!.privateKey as Hex)
  let oldTx: { hash: Hex; height: number; cometHash: string }
  let keptTx: { hash: Hex; height: number }
  let keptBlock: unknown
  let keptReceipt: unknown
  let keptCometBlock: unknown

  beforeAll(async () => {
    home = await initRetentionHome()
    t = await startTestNode({ home, flags: { 'min-retain-blocks': String(KEEP) } })
    cometUrl = t.addresses.cometRpc!.replace('tcp://', 'http://')
    const wallet = createWalletClient({ account, transport: http(t.url) })
    const client = createPublicClient({ transport: http(t.url) })
    const chain = {
      id: await client.getChainId(),
      name: 'dev',
      nativeCurrency: { name: 'E', symbol: 'E', decimals: 18 },
      rpcUrls: { default: { http: [t.url] } },
    }
    const send = async (value: bigint) => {
      const hash = await wallet.sendTransaction({ chain, to: a1!.address as Hex, value })
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })
      return { hash, height: Number(receipt.blockNumber) }
    }
    const first = await send(1n)
    const raw = (await rpc<Hex>(t.url, 'debug_getRawTransaction', [first.hash])).result!
    oldTx = { ...first, cometHash: bytesToUpperHex(sha256(hexToBytes(raw))) }
    // Past the BLOCKHASH window, so the EVM side prunes too.
    await rpc(t.url, 'anvil_mine', ['0x' + (BLOCKHASH_WINDOW + 2 * KEEP).toString(16)])
    keptTx = await send(2n)
    keptBlock = (await rpc(t.url, 'eth_getBlockByNumber', ['0x' + keptTx.height.toString(16), true])).result
    keptReceipt = (await rpc(t.url, 'eth_getTransactionReceipt', [keptTx.hash])).result
    keptCometBlock = await cometRpc(t, 'block', { height: String(keptTx.height) })
    // Pruning runs after Commit in the background: wait for the bases to pass the old heights.
    await waitForBlock(t, async () => {
      const status = await cometRpc<CometStatus>(t, 'status')
      return Number(status.sync_info.earliest_block_height) > BLOCKHASH_WINDOW && t.node.components.app.historyBase() > oldTx.height
    })
    await t.node.components.app.historyPruned()
  }, 60_000)

  afterAll(async () => {
    await t?.stop()
    await rm(home, { recursive: true, force: true })
  })

  it('consensus RPC: pruned heights are not available, the base moves, kept heights answer as before', async () => {
    const status = await cometRpc<CometStatus>(t, 'status')
    const base = Number(status.sync_info.earliest_block_height)
    const latest = Number(status.sync_info.latest_block_height)
    expect(base).toBeGreaterThan(oldTx.height)
    // retain = height - KEEP + 1, pruned in the background: the base trails the head by KEEP or a few more.
    expect(latest - base + 1).toBeGreaterThanOrEqual(KEEP)
    const client = await Comet38Client.connect(cometUrl)
    try {
      const notAvailable = new RegExp(`height ${oldTx.height} is not available, lowest height is \\d+`)
      await expect(client.block(oldTx.height)).rejects.toThrow(notAvailable)
      await expect(client.blockResults(oldTx.height)).rejects.toThrow(notAvailable)
      await expect(client.commit(oldTx.height)).rejects.toThrow(notAvailable)
      await expect(client.validators({ height: oldTx.height })).rejects.toThrow(notAvailable)
      // cosmjs has no `header`: the wire answer, as CometBFT words an RPC error (-32603, the reason in data).
      expect(await cometError(cometUrl, 'header', { height: String(oldTx.height) })).toMatchObject({
        code: -32603,
        data: expect.stringMatching(notAvailable),
      })
      await expect(client.tx({ hash: Buffer.from(oldTx.cometHash, 'hex') })).rejects.toThrow(notAvailable)
      const search = await client.txSearch({ query: `tx.height=${oldTx.height}` })
      expect(search.totalCount).toBe(0)
      const kept = await client.block(keptTx.height)
      expect(kept.block.header.height).toBe(keptTx.height)
      const baseBlock = await client.block(base)
      expect(baseBlock.block.header.height).toBe(base)
      expect((await client.status()).syncInfo.earliestBlockHeight).toBeGreaterThanOrEqual(base)
    } finally {
      client.disconnect()
    }
    expect(await cometRpc(t, 'block', { height: String(keptTx.height) })).toEqual(keptCometBlock)
  })

  it("EVM RPC: pruned blocks, state and logs answer geth's 4444, earliest is the history base", async () => {
    const client = createPublicClient({ transport: http(t.url) })
    const base = t.node.components.app.historyBase()
    expect(base).toBeGreaterThan(oldTx.height)
    const pruned = '0x' + oldTx.height.toString(16)
    for (const [method, params] of [
      ['eth_getBlockByNumber', [pruned, false]],
      ['eth_getBlockReceipts', [pruned]],
      ['eth_getBalance', [a1!.address, pruned]],
      ['eth_getLogs', [{ fromBlock: '0x1', toBlock: 'latest' }]],
    ] as const) {
      const reply = await rpc(t.url, method, [...params])
      expect(reply.error, method).toEqual({ code: 4444, message: 'pruned history unavailable' })
    }
    await expect(client.getBlock({ blockNumber: BigInt(oldTx.height) })).rejects.toMatchObject({ code: 4444 })
    // The tx index of a pruned height is gone with it (geth's tx lookup limit answers null too).
    expect((await rpc(t.url, 'eth_getTransactionReceipt', [oldTx.hash])).result).toBeNull()
    expect((await rpc(t.url, 'eth_getTransactionByHash', [oldTx.hash])).result).toBeNull()
    // `earliest` names the history base, and eth_capabilities says where history begins.
    const earliest = await client.getBlock({ blockTag: 'earliest' })
    expect(Number(earliest.number)).toBe(base)
    const caps = (await rpc<{ blocks: { oldestBlock: string }; receipts: { oldestBlock: string } }>(t.url, 'eth_capabilities')).result!
    expect(Number(caps.blocks.oldestBlock)).toBe(base)
    expect(Number(caps.receipts.oldestBlock)).toBe(base)
    // The genesis block stays, and logs from the base on are served.
    expect((await client.getBlock({ blockNumber: 0n })).number).toBe(0n)
    expect(await client.getLogs({ fromBlock: 'earliest', toBlock: 'latest' })).toEqual([])
    // Kept heights answer exactly as before.
    expect((await rpc(t.url, 'eth_getBlockByNumber', ['0x' + keptTx.height.toString(16), true])).result).toEqual(keptBlock)
    expect((await rpc(t.url, 'eth_getTransactionReceipt', [keptTx.hash])).result).toEqual(keptReceipt)
    expect(await client.getBalance({ address: a1!.address as Hex, blockNumber: BigInt(keptTx.height) })).toBeGreaterThan(0n)
  })
})
