/**
 * Mining control of a dev chain (docs/dev-chain.md, "Mining"): automine off keeps transactions pending
 * until evm_mine puts them in one block; anvil_mine/hardhat_mine make runs of real blocks (signed
 * commits in the block store, seen by the consensus RPC and kept over a restart); interval mining; the
 * same methods refused on a node that is not a dev chain. Driven through viem's test client (anvil and
 * hardhat modes), ethers and plain JSON-RPC.
 */
import { JsonRpcProvider, Wallet } from 'ethers'
import { createTestClient, http } from 'viem'
import { foundry } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RoundStep } from '../../src/consensus/round-step.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { cometRpc, committed, rpc, startTestNode, waitFor, waitForBlock, type TestNode } from '../helpers/dev-node.js'

interface CometBlock {
  block_id: { hash: string }
  block: { header: { height: string; time: string }; data: { txs: string[] } }
}
interface CometCommit {
  signed_header: { commit: { height: string; signatures: { signature: string; block_id_flag: number }[] } }
}
interface CometStatus {
  sync_info: { latest_block_height: string }
}

const head = async (t: TestNode) => Number((await rpc<string>(t.url, 'eth_blockNumber')).result)

/**
 * Resolves once the engine has handled everything queued and waits at round 0 of the next height (a
 * node that did not wait would commit a block first).
 */
async function idle(t: TestNode): Promise<void> {
  const { engine } = t.node.components
  await waitFor(
    async () => {
      await engine.drained()
      const rs = engine.getRoundState()
      return rs.round === 0 && rs.step === RoundStep.NewRound
    },
    20_000,
    'the engine to wait at round 0',
  )
}

/** The consensus RPC agrees with the EVM view on the latest height, and `height` is a real signed block. */
async function expectStoredBlock(t: TestNode, height: number): Promise<CometBlock> {
  const status = await cometRpc<CometStatus>(t, 'status')
  expect(Number(status.sync_info.latest_block_height)).toBe(await head(t))
  const block = await cometRpc<CometBlock>(t, 'block', { height: String(height) })
  expect(Number(block.block.header.height)).toBe(height)
  const commit = await cometRpc<CometCommit>(t, 'commit', { height: String(height) })
  expect(commit.signed_header.commit.signatures).toHaveLength(1)
  expect(commit.signed_header.commit.signatures[0]!.signature.length).toBeGreaterThan(0)
  return block
}

describe('mining control on a dev chain', () => {
  let t: TestNode
  let chainId: bigint
  const [a0, a1] = devAccounts(2)
  const transfer = (nonce: number) =>
    new Wallet(a0!.privateKey).signTransaction({
      type: 2,
      chainId,
      nonce,
      gasLimit: 21000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 10n ** 9n,
      to: a1!.address,
      value: 1n,
    })

  beforeAll(async () => {
    t = await startTestNode()
    chainId = BigInt((await rpc<string>(t.url, 'eth_chainId')).result!)
    await committed(t, 1)
  })
  afterAll(() => t?.destroy())

  it('automine on: a block per transaction, and no proof block after it', async () => {
    expect((await rpc(t.url, 'hardhat_getAutomine')).result).toBe(true)
    const before = await head(t)
    const sent = await rpc<string>(t.url, 'eth_sendRawTransaction', [await transfer(0)])
    await waitForBlock(t, async () => (await rpc(t.url, 'eth_getTransactionReceipt', [sent.result])).result, 20_000, 'the receipt')
    await idle(t)
    expect(await head(t)).toBe(before + 1)
  })

  it('automine off: transactions wait in the pool until evm_mine puts them in one block', async () => {
    const { pool } = t.node.components
    const test = createTestClient({ chain: foundry, mode: 'hardhat', transport: http(t.url) })
    await test.setAutomine(false)
    expect(await test.getAutomine()).toBe(false)
    const before = await head(t)
    const hashes: string[] = []
    for (const nonce of [1, 2]) hashes.push((await rpc<string>(t.url, 'eth_sendRawTransaction', [await transfer(nonce)])).result!)
    await idle(t)
    expect(await head(t)).toBe(before)
    expect(pool.size()).toBe(2)

    expect((await rpc(t.url, 'evm_mine')).result).toBe('0x0')
    expect(await head(t)).toBe(before + 1)
    expect(pool.size()).toBe(0)
    for (const hash of hashes) {
      const receipt = (await rpc<{ blockNumber: string }>(t.url, 'eth_getTransactionReceipt', [hash])).result!
      expect(Number(receipt.blockNumber)).toBe(before + 1)
    }
    const block = await expectStoredBlock(t, before + 1)
    // The two transactions, and the dev operation that asked for the block (0xbe "dev" …, docs/dev-chain.md).
    const txs = block.block.data.txs.map((tx: string) => Buffer.from(tx, 'base64'))
    expect(txs.filter((tx: Buffer) => tx.subarray(0, 4).toString('hex') !== 'be646576')).toHaveLength(2)
    expect(txs).toHaveLength(3)

    // Back on: what is pending goes out at once.
    const pending = (await rpc<string>(t.url, 'eth_sendRawTransaction', [await transfer(3)])).result!
    await idle(t)
    expect(await head(t)).toBe(before + 1)
    expect((await rpc(t.url, 'evm_setAutomine', [true])).result).toBe(true)
    await waitForBlock(t, async () => (await rpc(t.url, 'eth_getTransactionReceipt', [pending])).result, 20_000, 'the receipt')
    expect(await head(t)).toBe(before + 2)
  })

  it('hardhat_mine makes thousands of real blocks, each signed and stored', async () => {
    const test = createTestClient({ chain: foundry, mode: 'hardhat', transport: http(t.url) })
    const before = await head(t)
    await test.mine({ blocks: 2000 })
    expect(await head(t)).toBe(before + 2000)
    await expectStoredBlock(t, before + 1000)
    const last = await expectStoredBlock(t, before + 2000)
    // The EVM view of the last height is there, with the consensus time in seconds.
    const evm = (await rpc<{ timestamp: string }>(t.url, 'eth_getBlockByNumber', ['latest', false])).result!
    expect(Number(evm.timestamp)).toBeGreaterThanOrEqual(Math.floor(Date.parse(last.block.header.time) / 1000))
    await idle(t)
    expect(await head(t)).toBe(before + 2000)
  })

  it('anvil_mine and evm_mine({blocks}) take counts as hex or numbers, viem anvil mode too', async () => {
    const test = createTestClient({ chain: foundry, mode: 'anvil', transport: http(t.url) })
    const before = await head(t)
    expect((await rpc(t.url, 'anvil_mine', ['0x3'])).result).toBeNull()
    expect((await rpc(t.url, 'anvil_mine', [2, 1])).result).toBeNull()
    expect((await rpc(t.url, 'anvil_mine')).result).toBeNull()
    expect((await rpc(t.url, 'evm_mine', [{ blocks: 4 }])).result).toBe('0x0')
    await test.mine({ blocks: 5 })
    expect(await head(t)).toBe(before + 15)
    expect(await test.getAutomine()).toBe(true)
    expect((await rpc(t.url, 'anvil_setAutomine', [false])).result).toBeNull()
    expect((await rpc(t.url, 'anvil_getAutomine')).result).toBe(false)
    expect((await rpc(t.url, 'anvil_setAutomine', [true])).result).toBeNull()
    expect((await rpc(t.url, 'hardhat_mine', ['0x186a1'])).error).toMatchObject({
      code: -32602,
      message: 'invalid argument 0: at most 100000 blocks per call, asked 100001',
    })
  })

  it("evm_mine(ts) and hardhat_mine(n, interval) set the blocks' timestamps, as the network helpers' time.increase does", async () => {
    const latest = async () => (await rpc<{ number: string; timestamp: string }>(t.url, 'eth_getBlockByNumber', ['latest', false])).result!
    const target = Number((await latest()).timestamp) + 1000
    expect((await rpc(t.url, 'evm_mine', [target])).result).toBe('0x0')
    expect(Number((await latest()).timestamp)).toBe(target)
    const from = Number((await latest()).number)
    expect((await rpc(t.url, 'hardhat_mine', ['0x3', '0x3c'])).result).toBe(true)
    const stamps: number[] = []
    for (let n = from + 1; n <= from + 3; n++)
      stamps.push(
        Number((await rpc<{ timestamp: string }>(t.url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])).result!.timestamp),
      )
    expect(stamps[1]! - stamps[0]!).toBe(60)
    expect(stamps[2]! - stamps[1]!).toBe(60)
    expect(stamps[0]!).toBeGreaterThan(target)
  })

  it('ethers: evm_setAutomine, evm_mine', async () => {
    const provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true })
    try {
      const blockNumber = async () => Number(await provider.send('eth_blockNumber', []))
      const before = await blockNumber()
      expect(await provider.send('evm_setAutomine', [false])).toBe(true)
      expect(await provider.send('evm_mine', [])).toBe('0x0')
      expect(await provider.send('evm_setAutomine', [true])).toBe(true)
      expect(await blockNumber()).toBe(before + 1)
    } finally {
      provider.destroy()
    }
  })

  it('interval mining: blocks come without transactions, until it is set to 0', async () => {
    const before = await head(t)
    expect((await rpc(t.url, 'evm_setIntervalMining', [20])).result).toBe(true)
    await committed(t, before + 3)
    expect((await rpc(t.url, 'anvil_setIntervalMining', [0])).result).toBeNull()
    const stoppedAt = await head(t)
    await expectStoredBlock(t, stoppedAt)
    await idle(t)
    // At most the block that was being made when it stopped.
    expect(await head(t)).toBeLessThanOrEqual(stoppedAt + 1)
  })

  it('keeps the mined chain over a restart, and mines on from it', async () => {
    await rpc(t.url, 'hardhat_mine', ['0x64'])
    const height = await head(t)
    const hash = (await cometRpc<CometBlock>(t, 'block', { height: String(height) })).block_id.hash
    await t.stop()
    t = await startTestNode({ home: t.home })
    expect(await head(t)).toBe(height)
    expect((await cometRpc<CometBlock>(t, 'block', { height: String(height) })).block_id.hash).toBe(hash)
    await rpc(t.url, 'hardhat_mine', ['0x2'])
    expect(await head(t)).toBe(height + 2)
    await expectStoredBlock(t, height + 2)
  })
})

describe('the dev methods on a node that is not a dev chain', () => {
  let t: TestNode
  beforeAll(async () => {
    t = await startTestNode({ dev: false })
  })
  afterAll(() => t?.destroy())

  it.each(['evm_mine', 'anvil_mine', 'hardhat_mine', 'evm_setAutomine', 'hardhat_getAutomine', 'anvil_setIntervalMining'])(
    '%s answers -32601 with the reason',
    async (method) => {
      const reply = await rpc(t.url, method, method.endsWith('Automine') && method.startsWith('evm') ? [false] : [])
      expect(reply.error).toEqual({ code: -32601, message: `${method} is served only by a development chain (nodectl start --dev)` })
    },
  )

  it('an unknown method of those namespaces is still unknown', async () => {
    expect((await rpc(t.url, 'evm_nothing')).error).toEqual({
      code: -32601,
      message: 'the method evm_nothing does not exist/is not available',
    })
  })
})
