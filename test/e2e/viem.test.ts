/**
 * A real dev node driven by viem: deploy, read, write, revert reasons, logs and block reads, and a
 * node that keeps serving eth_call/eth_estimateGas while blocks are being committed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BaseError, ContractFunctionRevertedError, createPublicClient, createWalletClient, http, parseAbi, type Abi, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { foundry } from 'viem/chains'
import { compileContracts } from '../helpers/solidity.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { rpc, startTestNode, type TestNode } from '../helpers/dev-node.js'

describe('viem against a dev node', () => {
  let t: TestNode
  let publicClient: ReturnType<typeof createPublicClient>
  let wallet: ReturnType<typeof createWalletClient>
  const [a0, a1] = devAccounts(2)
  const account = privateKeyToAccount(a0!.privateKey as Hex)
  let token: Hex
  const { Token } = compileContracts('Token.sol')
  const abi = Token!.abi as Abi

  beforeAll(async () => {
    t = await startTestNode()
    const chain = { ...foundry, rpcUrls: { default: { http: [t.url] } } }
    publicClient = createPublicClient({ chain, transport: http(t.url), pollingInterval: 50 })
    wallet = createWalletClient({ account, chain, transport: http(t.url) })
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('deploys an ERC-20 and reads balances', async () => {
    const hash = await wallet.deployContract({ abi, bytecode: Token!.bytecode as Hex, args: [1_000_000n], account, chain: undefined })
    const receipt = await publicClient.waitForTransactionReceipt({ hash })
    expect(receipt.status).toBe('success')
    token = receipt.contractAddress!
    expect(await publicClient.readContract({ address: token, abi, functionName: 'balanceOf', args: [account.address] })).toBe(1_000_000n)
  })

  it('writes, emits a Transfer log and finds it by topic', async () => {
    const { request } = await publicClient.simulateContract({
      address: token,
      abi,
      functionName: 'transfer',
      args: [a1!.address, 250n],
      account,
    })
    const hash = await wallet.writeContract(request)
    const receipt = await publicClient.waitForTransactionReceipt({ hash })
    expect(receipt.logs).toHaveLength(1)
    const logs = await publicClient.getLogs({
      address: token,
      event: parseAbi(['event Transfer(address indexed from, address indexed to, uint256 value)'])[0],
      args: { to: a1!.address as Hex },
      fromBlock: 0n,
    })
    expect(logs).toHaveLength(1)
    expect(logs[0]!.args.value).toBe(250n)
    expect(logs[0]!.transactionHash).toBe(hash)
    expect(await publicClient.readContract({ address: token, abi, functionName: 'balanceOf', args: [a1!.address] })).toBe(250n)
  })

  it('surfaces the revert reason of a failing simulation', async () => {
    const err = await publicClient
      .simulateContract({ address: token, abi, functionName: 'transfer', args: [a1!.address, 10n ** 30n], account })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(BaseError)
    const revert = (err as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError
    expect(revert.reason).toBe('insufficient balance')
  })

  it('reads blocks with hashes that chain, and the block of a transaction', async () => {
    const head = await publicClient.getBlock({ blockTag: 'latest' })
    const parent = await publicClient.getBlock({ blockNumber: head.number - 1n })
    expect(head.parentHash).toBe(parent.hash)
    expect(head.baseFeePerGas).toBeTypeOf('bigint')
    const byHash = await publicClient.getBlock({ blockHash: head.hash })
    expect(byHash.number).toBe(head.number)
    const genesis = await publicClient.getBlock({ blockNumber: 0n })
    expect(genesis.number).toBe(0n)
    expect(await publicClient.getBlock({ blockTag: 'finalized' })).toMatchObject({ number: expect.any(BigInt) })
  })

  it('keeps answering calls while blocks are committed, without halting consensus', async () => {
    let stop = false
    const errors: unknown[] = []
    const caller = (async () => {
      while (!stop) {
        const r = await rpc(t.url, 'eth_estimateGas', [{ from: account.address, to: a1!.address, value: '0x1' }])
        if (r.error) errors.push(r.error)
      }
    })()
    for (let i = 0; i < 10; i++) {
      const hash = await wallet.sendTransaction({ to: a1!.address as Hex, value: 1n, account, chain: undefined })
      expect((await publicClient.waitForTransactionReceipt({ hash })).status).toBe('success')
    }
    stop = true
    await caller
    expect(errors).toEqual([])
  })
})
