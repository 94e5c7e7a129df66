/**
 * A real dev node driven by ethers v6: deploy a contract compiled from Solidity, call and send,
 * revert reasons, logs by address and topic, back-to-back transactions, the three tx types, and
 * the pool's errors as ethers classifies them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Contract, ContractFactory, JsonRpcProvider, Wallet, parseEther, type TransactionReceipt } from 'ethers'
import { compileContracts } from '../helpers/solidity.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { startTestNode, type TestNode } from '../helpers/dev-node.js'

const [KEY0, KEY1, KEY2] = devAccounts(3).map((a) => a.privateKey)

describe('ethers v6 against a dev node', () => {
  let t: TestNode
  let provider: JsonRpcProvider
  let alice: Wallet
  let bob: Wallet
  let store: Contract

  beforeAll(async () => {
    t = await startTestNode()
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    alice = new Wallet(KEY0!, provider)
    bob = new Wallet(KEY1!, provider)
  })
  afterAll(async () => {
    provider?.destroy()
    await t?.destroy()
  })

  it('sees the chain id and the funded dev accounts', async () => {
    expect((await provider.getNetwork()).chainId).toBe(31337n)
    expect(await provider.getBalance(alice.address)).toBe(10_000n * 10n ** 18n)
  })

  it('deploys a contract and reads its state', async () => {
    const { Store } = compileContracts('Store.sol')
    const factory = new ContractFactory(Store!.abi as never, Store!.bytecode, alice)
    const deployed = await factory.deploy(7n)
    await deployed.waitForDeployment()
    store = deployed as unknown as Contract
    expect(await store.getFunction('value')()).toBe(7n)
    expect((await provider.getCode(await store.getAddress())).length).toBeGreaterThan(10)
  })

  it('sends a transaction that changes state and emits a log', async () => {
    const tx = await store.getFunction('set')(42n, 'hello')
    const receipt = (await tx.wait()) as TransactionReceipt
    expect(receipt.status).toBe(1)
    expect(await store.getFunction('value')()).toBe(42n)
    expect(receipt.logs).toHaveLength(1)
    const parsed = store.interface.parseLog(receipt.logs[0]!)
    expect(parsed?.name).toBe('ValueChanged')
    expect(parsed?.args[2]).toBe('hello')
  })

  it('surfaces revert reasons from calls, estimates and custom errors', async () => {
    await expect(store.getFunction('set').staticCall(13n, 'x')).rejects.toMatchObject({ code: 'CALL_EXCEPTION', reason: 'unlucky number' })
    await expect(store.getFunction('set').estimateGas(13n, 'x')).rejects.toMatchObject({ code: 'CALL_EXCEPTION', reason: 'unlucky number' })
    const asBob = store.connect(bob) as Contract
    await expect(asBob.getFunction('onlyOwner')()).rejects.toMatchObject({ code: 'CALL_EXCEPTION', revert: { name: 'Unauthorized' } })
    await expect(store.getFunction('divide')(1n, 0n)).rejects.toMatchObject({
      code: 'CALL_EXCEPTION',
      reason: 'Panic due to DIVIDE_BY_ZERO(18)',
    })
  })

  it('records a failed transaction with status 0', async () => {
    const tx = await store.getFunction('set')(13n, 'x', { gasLimit: 100_000n })
    await expect(tx.wait()).rejects.toMatchObject({ code: 'CALL_EXCEPTION' })
    const receipt = await provider.getTransactionReceipt(tx.hash)
    expect(receipt?.status).toBe(0)
  })

  it('finds logs by address and by topic', async () => {
    const address = await store.getAddress()
    const byAddress = await provider.getLogs({ address, fromBlock: 0 })
    expect(byAddress.length).toBeGreaterThanOrEqual(1)
    const filter = store.filters.ValueChanged!(alice.address, 42n)
    const byTopic = await store.queryFilter(filter, 0)
    expect(byTopic).toHaveLength(1)
    const none = await store.queryFilter(store.filters.ValueChanged!(bob.address), 0)
    expect(none).toHaveLength(0)
  })

  it('commits 20 back-to-back transactions from one sender', async () => {
    const start = await provider.getTransactionCount(alice.address, 'pending')
    const sent = []
    for (let i = 0; i < 20; i++) sent.push(await alice.sendTransaction({ to: bob.address, value: 1n, nonce: start + i }))
    const receipts = await Promise.all(sent.map((tx) => tx.wait()))
    expect(receipts.every((r) => r?.status === 1)).toBe(true)
    expect(await provider.getTransactionCount(alice.address)).toBe(start + 20)
  })

  it('accepts legacy, EIP-2930 and EIP-1559 transactions', async () => {
    const carol = new Wallet(KEY2!, provider)
    const legacy = await carol.sendTransaction({ type: 0, to: bob.address, value: 1n, gasPrice: 3_000_000_000n })
    const accessList = await carol.sendTransaction({
      type: 1,
      to: bob.address,
      value: 1n,
      gasPrice: 3_000_000_000n,
      accessList: [{ address: bob.address, storageKeys: [] }],
    })
    const dynamic = await carol.sendTransaction({ type: 2, to: bob.address, value: 1n })
    const receipts = await Promise.all([legacy.wait(), accessList.wait(), dynamic.wait()])
    expect(receipts.map((r) => r?.type)).toEqual([0, 1, 2])
    expect(receipts.every((r) => r?.status === 1)).toBe(true)
    const fetched = await provider.getTransaction(accessList.hash)
    expect(fetched?.accessList).toEqual([{ address: bob.address, storageKeys: [] }])
  })

  it('rejects a reused nonce, missing funds and an underpriced replacement', async () => {
    const nonce = await provider.getTransactionCount(alice.address)
    await expect(alice.sendTransaction({ to: bob.address, value: 1n, nonce: nonce - 1 })).rejects.toMatchObject({ code: 'NONCE_EXPIRED' })
    const poor = Wallet.createRandom(provider)
    await expect(
      poor.sendTransaction({
        to: bob.address,
        value: 1n,
        gasLimit: 21_000n,
        maxFeePerGas: 2_000_000_000n,
        maxPriorityFeePerGas: 1n,
        nonce: 0,
      }),
    ).rejects.toMatchObject({ code: 'INSUFFICIENT_FUNDS' })
    // Two transactions with the same nonce at the same price: the second is an underpriced replacement.
    const gap = nonce + 5
    await alice.sendTransaction({
      to: bob.address,
      value: 1n,
      nonce: gap,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    })
    await expect(
      alice.sendTransaction({
        to: bob.address,
        value: 2n,
        nonce: gap,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
      }),
    ).rejects.toMatchObject({ code: 'REPLACEMENT_UNDERPRICED' })
    expect(parseEther('1')).toBe(10n ** 18n)
  })
})
