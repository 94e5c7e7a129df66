/**
 * A node stopped and started again on the same home keeps every committed block, receipt and
 * balance, and goes on producing blocks from where it stopped.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { rm } from 'node:fs/promises'
import { JsonRpcProvider, Wallet } from 'ethers'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import type { BlockJson } from '../../src/api/eth/format.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'

describe('restart on the same home', () => {
  let home: string | undefined
  let current: TestNode | undefined
  afterAll(async () => {
    await current?.stop()
    if (home) await rm(home, { recursive: true, force: true })
  })

  it('keeps blocks, receipts and balances and continues the chain', async () => {
    const [a0, a1] = devAccounts(2)
    current = await startTestNode()
    home = current.home
    let provider = new JsonRpcProvider(current.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    const wallet = new Wallet(a0!.privateKey, provider)
    const hashes: string[] = []
    for (let i = 0; i < 5; i++) {
      const tx = await wallet.sendTransaction({ to: a1!.address, value: 1000n + BigInt(i) })
      await tx.wait()
      hashes.push(tx.hash)
    }
    const height = Number((await rpc(current.url, 'eth_blockNumber')).result)
    const blocks = await Promise.all(
      Array.from({ length: height + 1 }, (_, h) =>
        rpc<BlockJson>(current!.url, 'eth_getBlockByNumber', ['0x' + h.toString(16), true]).then((r) => r.result!),
      ),
    )
    const receipts = await Promise.all(hashes.map((h) => rpc(current!.url, 'eth_getTransactionReceipt', [h]).then((r) => r.result)))
    const balance = (await rpc(current.url, 'eth_getBalance', [a1!.address, 'latest'])).result
    const oldBalance = (await rpc(current.url, 'eth_getBalance', [a1!.address, '0x1'])).result
    provider.destroy()
    await current.stop()

    current = await startTestNode({ home })
    const url = current.url
    expect(Number((await rpc(url, 'eth_blockNumber')).result)).toBeGreaterThanOrEqual(height)
    for (let h = 0; h <= height; h++)
      expect((await rpc(url, 'eth_getBlockByNumber', ['0x' + h.toString(16), true])).result).toEqual(blocks[h])
    for (let i = 0; i < hashes.length; i++) expect((await rpc(url, 'eth_getTransactionReceipt', [hashes[i]])).result).toEqual(receipts[i])
    expect((await rpc(url, 'eth_getBalance', [a1!.address, '0x' + height.toString(16)])).result).toBe(balance)
    expect((await rpc(url, 'eth_getBalance', [a1!.address, '0x1'])).result).toBe(oldBalance)

    // The chain goes on: a new transaction is committed above the old head.
    provider = new JsonRpcProvider(url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    const again = new Wallet(a0!.privateKey, provider)
    const tx = await again.sendTransaction({ to: a1!.address, value: 1n })
    const receipt = await tx.wait()
    expect(receipt!.blockNumber).toBeGreaterThan(height)
    const next = await waitFor(
      async () => (await rpc<BlockJson>(url, 'eth_getBlockByNumber', ['0x' + (height + 1).toString(16), false])).result,
    )
    expect(next.parentHash).toBe(blocks[height].hash)
    provider.destroy()
  })
})
