/**
 * Removal from the pool on a dev chain (docs/dev-chain.md, "The pool"): anvil_dropTransaction,
 * hardhat_dropTransaction (through viem's test client in both modes and over plain JSON-RPC) and
 * anvil_dropAllTransactions; afterwards the pool's views (txpool_*, the pending nonce, eth_getTransactionByHash)
 * and the consensus RPC's unconfirmed transactions agree, and the freed nonce is mined when sent again.
 * The transactions stay in the pool without a timer: queued behind a nonce gap, or pending with a fee
 * cap (1 wei) no block's base fee reaches.
 */
import { Wallet } from 'ethers'
import { createTestClient, http, type Hex } from 'viem'
import { foundry } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ReceiptJson } from '../../src/api/eth/format.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { cometRpc, rpc, startTestNode, waitForBlock, type TestNode } from '../helpers/dev-node.js'

const CHAIN_ID = 31337n
const [A, B] = devAccounts(2)
/** Fee cap and tip high enough for any base fee of a fresh dev chain (wei). */
const FEE = 10n ** 10n
/** A fee cap no base fee of the test's chain falls to: the transaction stays pending, never included. */
const UNPAYABLE_FEE = 1n

describe('dropping pooled transactions on a dev chain', () => {
  let t: TestNode
  const wallet = new Wallet(A!.privateKey)

  const sign = (nonce: bigint, fee = FEE): Promise<string> =>
    wallet.signTransaction({
      type: 2,
      chainId: CHAIN_ID,
      nonce: Number(nonce),
      gasLimit: 21_000n,
      maxFeePerGas: fee,
      maxPriorityFeePerGas: fee,
      to: B!.address,
      value: 1n,
    })
  const send = async (raw: string): Promise<Hex> => {
    const reply = await rpc<Hex>(t.url, 'eth_sendRawTransaction', [raw])
    if (reply.error) throw new Error(reply.error.message)
    return reply.result!
  }
  const pendingNonce = async (): Promise<bigint> =>
    BigInt((await rpc<string>(t.url, 'eth_getTransactionCount', [A!.address, 'pending'])).result!)
  const status = async () => (await rpc<{ pending: string; queued: string }>(t.url, 'txpool_status')).result
  const unconfirmed = () => cometRpc<{ n_txs: string; total: string }>(t, 'num_unconfirmed_txs')

  beforeAll(async () => {
    t = await startTestNode()
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('anvil_ answers the hash then null, hardhat_ true then false; the pool and the consensus RPC forget them', async () => {
    const anvil = createTestClient({ mode: 'anvil', chain: foundry, transport: http(t.url) })
    const hardhat = createTestClient({ mode: 'hardhat', chain: foundry, transport: http(t.url) })
    const nonce = await pendingNonce()
    // Behind a gap at `nonce`: both stay queued.
    const first = await send(await sign(nonce + 1n))
    const second = await send(await sign(nonce + 2n))
    expect(await status()).toEqual({ pending: '0x0', queued: '0x2' })
    expect(await unconfirmed()).toMatchObject({ n_txs: '2', total: '2' })

    expect((await rpc(t.url, 'anvil_dropTransaction', [first])).result).toBe(first)
    expect((await rpc(t.url, 'anvil_dropTransaction', [first])).result).toBeNull()
    await anvil.dropTransaction({ hash: second })
    expect(await status()).toEqual({ pending: '0x0', queued: '0x0' })
    expect((await rpc(t.url, 'eth_getTransactionByHash', [first])).result).toBeNull()
    expect(await unconfirmed()).toMatchObject({ n_txs: '0', total: '0' })

    const third = await send(await sign(nonce + 1n))
    expect((await rpc(t.url, 'hardhat_dropTransaction', [third])).result).toBe(true)
    expect((await rpc(t.url, 'hardhat_dropTransaction', [third])).result).toBe(false)
    await hardhat.dropTransaction({ hash: third })
    expect((await cometRpc<{ txs: string[] | null }>(t, 'unconfirmed_txs')).txs).toEqual([])
  })

  it('a dropped pending transaction queues the later nonces; anvil_dropAllTransactions empties the pool; the nonce is mined when sent again', async () => {
    const nonce = await pendingNonce()
    const head = await send(await sign(nonce, UNPAYABLE_FEE))
    const next = await send(await sign(nonce + 1n, UNPAYABLE_FEE))
    expect(await status()).toEqual({ pending: '0x2', queued: '0x0' })
    expect(await pendingNonce()).toBe(nonce + 2n)

    expect((await rpc(t.url, 'anvil_dropTransaction', [head])).result).toBe(head)
    expect(await status()).toEqual({ pending: '0x0', queued: '0x1' })
    expect(await pendingNonce()).toBe(nonce)
    const content = (await rpc<{ queued: Record<string, Record<string, { hash: string }>> }>(t.url, 'txpool_content')).result!
    expect(Object.values(content.queued).flatMap((byNonce) => Object.values(byNonce).map((tx) => tx.hash))).toEqual([next])

    expect((await rpc(t.url, 'anvil_dropAllTransactions')).result).toBeNull()
    expect(await status()).toEqual({ pending: '0x0', queued: '0x0' })
    expect(await unconfirmed()).toMatchObject({ n_txs: '0', total: '0' })

    const again = await send(await sign(nonce))
    const receipt = await waitForBlock(t, async () => (await rpc<ReceiptJson | null>(t.url, 'eth_getTransactionReceipt', [again])).result)
    expect(receipt.status).toBe('0x1')
    expect(await status()).toEqual({ pending: '0x0', queued: '0x0' })
    expect((await rpc(t.url, 'anvil_dropTransaction', [again])).result).toBeNull()
    expect((await rpc(t.url, 'hardhat_dropTransaction', [again])).error).toEqual({
      code: -32602,
      message: `Transaction ${again} cannot be dropped because it's already mined`,
    })
  })
})
