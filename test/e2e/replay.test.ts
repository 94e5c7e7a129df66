/**
 * The application sees only what the ABCI-shaped requests give it: a chain replayed from the block
 * store into an application that lost its state (the start-up handshake: InitChain, then FinalizeBlock +
 * Commit of every stored block) gives byte-identical EVM blocks (`size` included) and receipts to the
 * same chain committed live.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { rm } from 'node:fs/promises'
import { JsonRpcProvider, Wallet } from 'ethers'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { hashHeaderJson } from '../helpers/eth-header.js'
import { rpc, startTestNode, type TestNode } from '../helpers/dev-node.js'
import { wipeApplicationState } from '../helpers/wipe-app-state.js'
import type { BlockJson, ReceiptJson, TransactionJson } from '../../src/api/eth/format.js'

describe('replay into a fresh application', () => {
  let home: string | undefined
  let current: TestNode | undefined
  afterAll(async () => {
    await current?.stop()
    if (home) await rm(home, { recursive: true, force: true })
  })

  it('gives byte-identical EVM blocks and receipts to the blocks committed live', async () => {
    const [a0, a1, a2] = devAccounts(3)
    current = await startTestNode()
    home = current.home
    const dbPath = current.node.config.paths.db
    const provider = new JsonRpcProvider(current.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    const w0 = new Wallet(a0!.privateKey, provider)
    const w1 = new Wallet(a1!.privateKey, provider)
    const hashes: string[] = []
    for (let i = 0; i < 3; i++) {
      // Two senders at once: blocks with one or more transactions.
      const sent = await Promise.all([
        w0.sendTransaction({ to: a2!.address, value: 1000n + BigInt(i) }),
        w1.sendTransaction({ to: a2!.address, value: 7n, data: '0x' + 'ab'.repeat(40 * (i + 1)) }),
      ])
      await Promise.all(sent.map((tx) => tx.wait()))
      hashes.push(...sent.map((tx) => tx.hash))
    }
    // The blocks as committed live.
    const live = await readChain(current.url, hashes)
    provider.destroy()
    await current.stop()
    expect(live.blocks.length).toBeGreaterThan(1)

    expect(await wipeApplicationState(dbPath)).toBeGreaterThan(0)
    current = await startTestNode({ home })
    const replayed = await readChain(current.url, hashes, live.blocks.length - 1)
    // Block by block first (a readable diff), then byte for byte.
    for (let h = 0; h < live.blocks.length; h++) expect(replayed.blocks[h], `block ${h}`).toEqual(live.blocks[h])
    for (let i = 0; i < hashes.length; i++) expect(replayed.receipts[i], `receipt ${i}`).toEqual(live.receipts[i])
    expect(JSON.stringify(replayed.blocks)).toBe(JSON.stringify(live.blocks))
    expect(JSON.stringify(replayed.receipts)).toBe(JSON.stringify(live.receipts))
    // The replayed hashes are Ethereum header hashes, chained by parentHash.
    for (let h = 0; h < replayed.blocks.length; h++) {
      expect(hashHeaderJson(replayed.blocks[h]!), `block ${h}`).toBe(replayed.blocks[h]!.hash)
      if (h > 0) expect(replayed.blocks[h]!.parentHash).toBe(replayed.blocks[h - 1]!.hash)
    }
    // Sanity: the size is the consensus block's encoded size, not the sum of its transactions' bytes.
    const withTxs = live.blocks.find((b) => b.transactions.length > 0)!
    expect(Number(withTxs.size)).toBeGreaterThan(withTxs.transactions.reduce((n, tx) => n + (tx.input.length - 2) / 2, 0) + 100)
  })
})

/** A block with its full transactions. */
type FullBlock = Omit<BlockJson, 'transactions'> & { transactions: TransactionJson[] }

/** eth_getBlockByNumber (full txs) of heights 0..upTo (default: the receipts' highest block) and the receipts. */
async function readChain(url: string, hashes: string[], upTo?: number): Promise<{ blocks: FullBlock[]; receipts: ReceiptJson[] }> {
  const receipts: ReceiptJson[] = await Promise.all(
    hashes.map(async (h) => (await rpc<ReceiptJson>(url, 'eth_getTransactionReceipt', [h])).result!),
  )
  const height = upTo ?? Math.max(...receipts.map((r) => Number(r.blockNumber)))
  const blocks: FullBlock[] = []
  for (let h = 0; h <= height; h++) blocks.push((await rpc<FullBlock>(url, 'eth_getBlockByNumber', ['0x' + h.toString(16), true])).result!)
  return { blocks, receipts }
}
