/** Real clients parse our shapes: ethers v6 JsonRpcProvider and viem's public client over HTTP. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JsonRpcProvider, Transaction, getAddress, hexlify } from 'ethers'
import { createPublicClient, http, type Hex } from 'viem'
import { FakeBackend, TRANSFER_TOPIC, wallet } from './fake-backend.js'
import { startTestServer, type TestServer } from './test-server.js'

describe('clients', () => {
  let backend: FakeBackend
  let t: TestServer
  beforeAll(async () => {
    backend = await FakeBackend.create()
    t = await startTestServer(backend)
  })
  afterAll(() => t.close())

  describe('ethers v6', () => {
    let provider: JsonRpcProvider
    beforeAll(() => {
      provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, batchMaxCount: 1 })
    })
    afterAll(() => provider.destroy())

    it('network, block number, balance, nonce, code, fee data', async () => {
      expect((await provider.getNetwork()).chainId).toBe(9000n)
      expect(await provider.getBlockNumber()).toBe(3)
      expect(await provider.getBalance(wallet.address)).toBe(10n ** 21n)
      expect(await provider.getTransactionCount(wallet.address, 'pending')).toBe(4)
      expect(await provider.getCode('0x' + '33'.repeat(20))).toBe('0x6080')
      const fees = await provider.getFeeData()
      expect(fees.gasPrice).toBe(1_100_000_000n)
      expect(fees.maxPriorityFeePerGas).toBe(100_000_000n)
    })

    it('getBlock with hashes and with prefetched transactions', async () => {
      const block = (await provider.getBlock(1))!
      expect(block.number).toBe(1)
      expect(block.hash).toBe(hexlify(backend.blocks[1]!.hash))
      expect(block.transactions).toHaveLength(2)
      expect(block.baseFeePerGas).toBe(1_000_000_000n)
      expect(block.difficulty).toBe(0n)
      const full = (await provider.getBlock(1, true))!
      expect(full.prefetchedTransactions.map((tx) => tx.type)).toEqual([0, 2])
      expect(full.prefetchedTransactions[0]!.from).toBe(wallet.address)
      expect(await provider.getBlock(100)).toBeNull()
      expect((await provider.getBlock(0))!.number).toBe(0)
    })

    it('getTransaction (legacy, 1559, creation, pending) with consistent signatures', async () => {
      const legacy = (await provider.getTransaction(hexlify(backend.blocks[1]!.transactions[0]!)))!
      expect(legacy.type).toBe(0)
      expect(legacy.chainId).toBe(9000n)
      expect(legacy.blockNumber).toBe(1)
      expect(legacy.signature.networkV).toBe(BigInt(legacy.signature.v) - 27n + 9000n * 2n + 35n)
      const dynamic = (await provider.getTransaction(hexlify(backend.blocks[1]!.transactions[1]!)))!
      expect(dynamic.type).toBe(2)
      expect(dynamic.maxFeePerGas).toBe(3_000_000_000n)
      expect(dynamic.accessList).toHaveLength(1)
      const create = (await provider.getTransaction(hexlify(backend.blocks[2]!.transactions[0]!)))!
      expect(create.to).toBeNull()
      const pending = (await provider.getTransaction([...backend.pending.keys()][0]!))!
      expect(pending.blockNumber).toBeNull()
      // re-serializing the fields we sent (v/r/s included) gives back the signed bytes and hash
      expect(Transaction.from(legacy).serialized).toBe(backend.raws.legacy)
      expect(Transaction.from(dynamic).serialized).toBe(backend.raws.dynamic)
      expect(Transaction.from(dynamic).hash).toBe(dynamic.hash)
    })

    it('getTransactionReceipt and getLogs', async () => {
      const receipt = (await provider.getTransactionReceipt(hexlify(backend.blocks[1]!.transactions[1]!)))!
      expect(receipt.status).toBe(1)
      expect(receipt.gasUsed).toBe(51_000n)
      expect(receipt.logs).toHaveLength(1)
      const creation = (await provider.getTransactionReceipt(hexlify(backend.blocks[2]!.transactions[0]!)))!
      expect(creation.contractAddress).toBe(getAddress('0x' + 'ab'.repeat(20)))
      expect(await provider.getTransactionReceipt([...backend.pending.keys()][0]!)).toBeNull()
      const logs = await provider.getLogs({ fromBlock: 0, toBlock: 'latest', topics: [hexlify(TRANSFER_TOPIC)] })
      expect(logs).toHaveLength(1)
      expect(logs[0]!.address).toBe('0x' + '33'.repeat(20))
      expect(logs[0]!.index).toBe(0)
    })

    it('broadcastTransaction', async () => {
      const signed = await wallet.signTransaction({
        chainId: 9000n,
        type: 2,
        to: '0x' + '22'.repeat(20),
        nonce: 5,
        gasLimit: 21000n,
        maxFeePerGas: 5n * 10n ** 9n,
        maxPriorityFeePerGas: 10n ** 9n,
      })
      const sent = await provider.broadcastTransaction(signed)
      expect(sent.hash).toMatch(/^0x[0-9a-f]{64}$/)
    })
  })

  describe('viem', () => {
    const client = () => createPublicClient({ transport: http(t.url) })

    it('getChainId, getBlockNumber, getBalance', async () => {
      const c = client()
      expect(await c.getChainId()).toBe(9000)
      expect(await c.getBlockNumber()).toBe(3n)
      expect(await c.getBalance({ address: wallet.address as Hex })).toBe(10n ** 21n)
    })

    it('getBlock', async () => {
      const c = client()
      const latest = await c.getBlock()
      expect(latest.number).toBe(3n)
      const one = await c.getBlock({ blockNumber: 1n, includeTransactions: true })
      expect(one.transactions.map((tx) => tx.type)).toEqual(['legacy', 'eip1559'])
      expect(one.totalDifficulty).toBeNull()
      const byHash = await c.getBlock({ blockHash: hexlify(backend.blocks[2]!.hash) as Hex })
      expect(byHash.number).toBe(2n)
    })

    it('getTransaction and getTransactionReceipt', async () => {
      const c = client()
      const hash = hexlify(backend.blocks[1]!.transactions[1]!) as Hex
      const tx = await c.getTransaction({ hash })
      expect(tx.type).toBe('eip1559')
      expect(tx.from).toBe(wallet.address.toLowerCase())
      expect(tx.yParity === 0 || tx.yParity === 1).toBe(true)
      const receipt = await c.getTransactionReceipt({ hash })
      expect(receipt.status).toBe('success')
      expect(receipt.effectiveGasPrice).toBe(1_500_000_000n)
      const byIndex = await c.getTransaction({ blockNumber: 1n, index: 0 })
      expect(byIndex.type).toBe('legacy')
      expect(byIndex.chainId).toBe(9000)
    })

    it('getLogs and fee history', async () => {
      const c = client()
      const logs = await c.getLogs({ fromBlock: 0n, toBlock: 'latest' })
      expect(logs).toHaveLength(2)
      expect(logs[0]!.logIndex).toBe(0)
      const history = await c.getFeeHistory({ blockCount: 2, rewardPercentiles: [50] })
      expect(history.baseFeePerGas).toHaveLength(3)
      const fees = await c.estimateFeesPerGas()
      expect(fees.maxPriorityFeePerGas).toBe(100_000_000n)
    })

    it('call revert surfaces the reason', async () => {
      const c = client()
      await expect(c.call({ to: ('0x' + '44'.repeat(20)) as Hex })).rejects.toThrow(/nope/)
    })
  })
})
