/**
 * Snapshots of a dev chain (docs/dev-chain.md, "Snapshots"): evm_snapshot/evm_revert through viem's test
 * client (anvil and hardhat modes), ethers and plain JSON-RPC bring back exactly the chain of the
 * snapshot: blocks, receipts, logs, state, the pool, the tx and block indexes, the consensus RPC; nested
 * snapshots; and a restart after a revert comes back on the reverted chain.
 */
import { JsonRpcProvider, Wallet } from 'ethers'
import { createTestClient, createWalletClient, http, type Abi, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { foundry } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devAccounts, type DevAccount } from '../../src/keystore/dev-accounts.js'
import { compileContracts } from '../helpers/solidity.js'
import { cometRpc, committed, rpc, startTestNode, waitForBlock, type TestNode } from '../helpers/dev-node.js'

interface CometBlock {
  block_id: { hash: string }
  block: { header: { height: string } }
}
interface CometStatus {
  sync_info: { latest_block_height: string; latest_block_hash: string }
}
interface EvmBlockJson {
  hash: string
  number: string
}

const [a0, a1, a2] = devAccounts(3)
const { Token } = compileContracts('Token.sol')

describe('snapshots of a dev chain', () => {
  let t: TestNode
  let chainId: bigint
  const head = async () => Number((await rpc<string>(t.url, 'eth_blockNumber')).result)
  const balance = async (address: string) => BigInt((await rpc<string>(t.url, 'eth_getBalance', [address, 'latest'])).result!)
  const nonce = async (address: string) => Number((await rpc<string>(t.url, 'eth_getTransactionCount', [address, 'latest'])).result)
  const evmBlock = async (n: number) =>
    (await rpc<EvmBlockJson | null>(t.url, 'eth_getBlockByNumber', ['0x' + n.toString(16), false])).result
  const receipt = async (hash: string) => (await rpc<{ blockNumber: string } | null>(t.url, 'eth_getTransactionReceipt', [hash])).result
  const send = async (from: DevAccount | undefined, to: string, value: bigint, n?: number) => {
    const raw = await new Wallet(from!.privateKey).signTransaction({
      type: 2,
      chainId,
      nonce: n ?? (await nonce(from!.address)),
      gasLimit: 21000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
      to,
      value,
    })
    return (await rpc<string>(t.url, 'eth_sendRawTransaction', [raw])).result!
  }
  const mined = (hash: string) => waitForBlock(t, () => receipt(hash), 20_000, 'the receipt')
  /** Every surface agrees on the head: the EVM view, the consensus RPC's status and block. */
  const expectHead = async (height: number) => {
    expect(await head()).toBe(height)
    const status = await cometRpc<CometStatus>(t, 'status')
    expect(Number(status.sync_info.latest_block_height)).toBe(height)
    const block = await cometRpc<CometBlock>(t, 'block', { height: String(height) })
    expect(block.block_id.hash).toBe(status.sync_info.latest_block_hash)
    expect(await evmBlock(height + 1)).toBeNull()
  }

  beforeAll(async () => {
    t = await startTestNode()
    chainId = BigInt((await rpc<string>(t.url, 'eth_chainId')).result!)
  })
  afterAll(() => t?.destroy())

  it('reverts blocks, receipts, logs, state, indexes and the consensus RPC (viem, hardhat mode)', async () => {
    const test = createTestClient({ chain: foundry, mode: 'hardhat', transport: http(t.url) })
    const account = privateKeyToAccount(a0!.privateKey as Hex)
    const wallet = createWalletClient({ account, chain: { ...foundry, id: Number(chainId) }, transport: http(t.url) })
    const deployed = await wallet.deployContract({ abi: Token!.abi as Abi, bytecode: Token!.bytecode as Hex, args: [1000n] })
    await mined(deployed)
    const token = (await rpc<{ contractAddress: string }>(t.url, 'eth_getTransactionReceipt', [deployed])).result!.contractAddress

    const id = await test.snapshot()
    expect(id).toMatch(/^0x[1-9a-f][0-9a-f]*$/)
    const height = await head()
    const blockHash = (await evmBlock(height))!.hash
    const before = { a1: await balance(a1!.address), a0Nonce: await nonce(a0!.address) }

    const transfer = await send(a0!, a1!.address, 10n ** 18n)
    await mined(transfer)
    const tokenTx = await wallet.writeContract({
      address: token as Hex,
      abi: Token!.abi as Abi,
      functionName: 'transfer',
      args: [a2!.address, 5n],
      chain: undefined,
    })
    await mined(tokenTx)
    await test.mine({ blocks: 10 })
    const removedHash = (await evmBlock(height + 1))!.hash
    const removedComet = (await cometRpc<CometBlock>(t, 'block', { height: String(height + 1) })).block_id.hash
    expect(await balance(a1!.address)).toBe(before.a1 + 10n ** 18n)

    await test.revert({ id })
    await expectHead(height)
    expect((await evmBlock(height))!.hash).toBe(blockHash)
    expect(await balance(a1!.address)).toBe(before.a1)
    expect(await nonce(a0!.address)).toBe(before.a0Nonce)
    expect(await receipt(transfer)).toBeNull()
    expect((await rpc(t.url, 'eth_getTransactionByHash', [tokenTx])).result).toBeNull()
    expect((await rpc(t.url, 'eth_getBlockByHash', [removedHash, false])).result).toBeNull()
    const logs = await rpc<unknown[]>(t.url, 'eth_getLogs', [{ address: token, topics: [], fromBlock: '0x0', toBlock: 'latest' }])
    expect(logs.result).toHaveLength(1) // the mint of the deployment only
    const byHash = await cometRpc(t, 'block_by_hash', { hash: Buffer.from(removedComet, 'hex').toString('base64') })
    expect(byHash).toMatchObject({ block: null })
    const search = await cometRpc<{ total_count: string }>(t, 'tx_search', { query: `tx.height>${height}` })
    expect(search.total_count).toBe('0')

    // The chain goes on from there: the same transfer is sent again and mined at the next height.
    const again = await send(a0!, a1!.address, 10n ** 18n)
    expect(again).toBe(transfer)
    await mined(again)
    expect(Number((await receipt(again))!.blockNumber)).toBe(height + 1)
    await expectHead(height + 1)
  })

  it('an unknown or used id answers false; nested snapshots go back one by one (anvil mode, ethers)', async () => {
    const test = createTestClient({ chain: foundry, mode: 'anvil', transport: http(t.url) })
    const provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true })
    try {
      const h0 = await head()
      const s1 = await test.snapshot()
      await test.mine({ blocks: 3 })
      const s2: string = await provider.send('evm_snapshot', [])
      expect(Number(s2)).toBeGreaterThan(Number(s1))
      await test.mine({ blocks: 2 })
      const s3 = (await rpc<string>(t.url, 'anvil_snapshot')).result!
      expect(Number(s3)).toBeGreaterThan(Number(s2))
      await test.mine({ blocks: 1 })

      expect(await provider.send('evm_revert', [s2])).toBe(true)
      await expectHead(h0 + 3)
      expect(await provider.send('evm_revert', [s3])).toBe(false)
      expect(await provider.send('evm_revert', [s2])).toBe(false)
      expect((await rpc(t.url, 'anvil_revert', ['0xffff'])).result).toBe(false)
      expect((await rpc(t.url, 'evm_revert', [Number(s1)])).result).toBe(true)
      await expectHead(h0)
      // As loadFixture: snapshot again after each revert; ids keep growing.
      const s4 = await test.snapshot()
      expect(Number(s4)).toBeGreaterThan(Number(s3))
    } finally {
      provider.destroy()
    }
  })

  it("takes back the dev methods' changes too: a set, the time offset and a queued timestamp", async () => {
    const target = `0x${'5e'.repeat(20)}`
    const stamp = async (n: number) =>
      Number((await rpc<{ timestamp: string }>(t.url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])).result!.timestamp)
    const id = (await rpc<string>(t.url, 'evm_snapshot')).result!
    const height = await head()
    const time = await stamp(height)
    expect((await rpc(t.url, 'hardhat_setBalance', [target, '0x1234'])).result).toBe(true)
    expect(await balance(target)).toBe(0x1234n)
    // The offset moves the chain's clock (consensus time), which a run of quick blocks may be ahead of.
    const clock = Math.floor(Date.now() / 1000)
    await rpc(t.url, 'evm_increaseTime', [86_400])
    await rpc(t.url, 'evm_mine')
    expect(await stamp(await head())).toBeGreaterThanOrEqual(clock + 86_400 - 1)
    await rpc(t.url, 'evm_setNextBlockTimestamp', [time + 10 * 86_400])

    expect((await rpc(t.url, 'evm_revert', [id])).result).toBe(true)
    await expectHead(height)
    expect(await balance(target)).toBe(0n)
    // The offset of the abandoned chain and its queued timestamp are gone: the next block is on the clock.
    await rpc(t.url, 'evm_mine')
    expect(await stamp(height + 1)).toBeLessThan(time + 86_400)
  })

  it('polling filters lose what they collected from the removed blocks', async () => {
    const blockFilter = (await rpc<string>(t.url, 'eth_newBlockFilter')).result!
    const logFilter = (await rpc<string>(t.url, 'eth_newFilter', [{}])).result!
    await rpc(t.url, 'hardhat_mine', ['0x1'])
    const kept = (await evmBlock(await head()))!.hash
    const id = (await rpc<string>(t.url, 'evm_snapshot')).result!
    const account = privateKeyToAccount(a0!.privateKey as Hex)
    const wallet = createWalletClient({ account, chain: { ...foundry, id: Number(chainId) }, transport: http(t.url) })
    await mined(await wallet.deployContract({ abi: Token!.abi as Abi, bytecode: Token!.bytecode as Hex, args: [5n] }))
    await rpc(t.url, 'hardhat_mine', ['0x2'])
    expect((await rpc(t.url, 'evm_revert', [id])).result).toBe(true)
    expect((await rpc(t.url, 'eth_getFilterChanges', [blockFilter])).result).toEqual([kept])
    expect((await rpc(t.url, 'eth_getFilterChanges', [logFilter])).result).toEqual([])
    await rpc(t.url, 'hardhat_mine', ['0x1'])
    expect((await rpc(t.url, 'eth_getFilterChanges', [blockFilter])).result).toEqual([(await evmBlock(await head()))!.hash])
  })

  it('brings the pool back: what was pending stays, what came after goes', async () => {
    const { pool } = t.node.components
    await rpc(t.url, 'evm_setAutomine', [false])
    const kept = await send(a1!, a2!.address, 1n)
    const id = (await rpc<string>(t.url, 'evm_snapshot')).result!
    const dropped = await send(a2!, a1!.address, 1n)
    expect(pool.size()).toBe(2)
    expect((await rpc(t.url, 'evm_revert', [id])).result).toBe(true)
    expect(pool.has(kept)).toBe(true)
    expect(pool.has(dropped)).toBe(false)
    await rpc(t.url, 'evm_mine')
    expect(await receipt(kept)).not.toBeNull()
    await rpc(t.url, 'evm_setAutomine', [true])
  })

  it('anvil_reset/hardhat_reset go back to genesis; forking is refused', async () => {
    const test = createTestClient({ chain: foundry, mode: 'hardhat', transport: http(t.url) })
    const sent = await send(a0!, a2!.address, 3n)
    await mined(sent)
    const id = (await rpc<string>(t.url, 'evm_snapshot')).result!
    expect((await rpc(t.url, 'hardhat_reset', [{ forking: { jsonRpcUrl: 'http://127.0.0.1:8545' } }])).error).toEqual({
      code: -32602,
      message: 'invalid argument 0: forking.jsonRpcUrl: forking is not supported; nodectl start --dev resets to its own genesis',
    })
    await test.reset()
    // As a new chain: the first block comes at once, with nothing in it.
    await committed(t, 1)
    await expectHead(1)
    expect(await nonce(a0!.address)).toBe(0)
    expect(await balance(a2!.address)).toBe(10n ** 22n)
    expect(await receipt(sent)).toBeNull()
    expect((await rpc(t.url, 'evm_revert', [id])).result).toBe(false)
    expect((await rpc(t.url, 'anvil_reset', [])).result).toBeNull()
    await committed(t, 1)
    await mined(await send(a0!, a2!.address, 3n))
    await expectHead(2)
  })

  it('a revert whose batch cannot be written leaves the old chain, which runs on, also after a restart', async () => {
    const id = (await rpc<string>(t.url, 'evm_snapshot')).result!
    await rpc(t.url, 'hardhat_mine', ['0x5'])
    const height = await head()
    const level = (t.node.components.db as unknown as { level: { batch: (...args: unknown[]) => Promise<void> } }).level
    const batch = level.batch
    level.batch = () => Promise.reject(new Error('disk full'))
    let reply: Awaited<ReturnType<typeof rpc>>
    try {
      reply = await rpc(t.url, 'evm_revert', [id])
    } finally {
      level.batch = batch
    }
    expect(reply.error).toBeDefined()
    await expectHead(height)
    // The snapshot is still there (used below, then gone).
    const retry = (await rpc<string>(t.url, 'evm_snapshot')).result!
    expect((await rpc(t.url, 'evm_revert', [id])).result).toBe(true)
    expect((await rpc(t.url, 'evm_revert', [retry])).result).toBe(false)
    await expectHead(height - 5)
    await rpc(t.url, 'hardhat_mine', ['0x5'])
    await rpc(t.url, 'hardhat_mine', ['0x1'])
    await expectHead(height + 1)
    const hash = (await evmBlock(height + 1))!.hash
    await t.stop()
    t = await startTestNode({ home: t.home })
    await expectHead(height + 1)
    expect((await evmBlock(height + 1))!.hash).toBe(hash)
    await rpc(t.url, 'hardhat_mine', ['0x1'])
    await expectHead(height + 2)
  })

  it('a restart after a revert comes back on the reverted chain', async () => {
    const id = (await rpc<string>(t.url, 'evm_snapshot')).result!
    const height = await head()
    const hash = (await evmBlock(height))!.hash
    await rpc(t.url, 'hardhat_mine', ['0x20'])
    await mined(await send(a0!, a2!.address, 7n))
    expect((await rpc(t.url, 'evm_revert', [id])).result).toBe(true)
    const a2Balance = await balance(a2!.address)
    await t.stop()
    t = await startTestNode({ home: t.home })
    await expectHead(height)
    expect((await evmBlock(height))!.hash).toBe(hash)
    expect(await balance(a2!.address)).toBe(a2Balance)
    await mined(await send(a0!, a2!.address, 7n))
    await expectHead(height + 1)
    await rpc(t.url, 'hardhat_mine', ['0x3'])
    await expectHead(height + 4)
  })
})
