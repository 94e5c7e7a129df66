/**
 * The dev methods that shape the next block's header (time, base fee, coinbase, PREVRANDAO, gas limit)
 * on a real dev node, through viem's test client and plain JSON-RPC: they answer at once and ride in
 * the next block (here the block of a set); every such block still hashes as an Ethereum header, and a
 * replay of the stored blocks into an application that lost its state gives the same blocks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type createPublicClient, createWalletClient, http, type Hex, type TestClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import type { BlockJson } from '../../src/api/eth/format.js'
import { hashHeaderJson } from '../helpers/eth-header.js'
import { viemDevClients } from '../helpers/viem-dev-clients.js'
import { rpc, startTestNode, type TestNode } from '../helpers/dev-node.js'
import { restartWithWipedApp } from '../helpers/wipe-app-state.js'

const FILLER = '0x0000000000000000000000000000000000000f11'
const COINBASE = '0x00000000000000000000000000000000c0ffee00'
const RANDAO = `0x${'ab'.repeat(32)}`
/** PREVRANDAO PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: returns the block's PREVRANDAO. */
const RETURNS_PREVRANDAO = '0x4460005260206000f3'
const READER = '0x00000000000000000000000000000000000ead00'
const [dev0] = devAccounts(1)

/** Makes a block (a set is a block of its own) and returns it. */
async function nextBlock(url: string): Promise<BlockJson> {
  // A balance no earlier block set, so the set is never a no-op.
  const height = Number((await rpc<string>(url, 'eth_blockNumber')).result)
  await rpc(url, 'anvil_setBalance', [FILLER, `0x${(height + 1).toString(16)}`])
  const block = (await rpc<BlockJson>(url, 'eth_getBlockByNumber', ['latest', false])).result!
  expect(hashHeaderJson(block)).toBe(block.hash)
  return block
}

describe('dev header overrides', () => {
  let t: TestNode
  let anvil: TestClient
  let hardhat: TestClient
  let client: ReturnType<typeof createPublicClient>

  beforeAll(async () => {
    t = await startTestNode()
    ;({ anvil, hardhat, client } = viemDevClients(t.url))
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('evm_setNextBlockTimestamp gives the next block exactly that timestamp; later blocks continue from it', async () => {
    const latest = await client.getBlock()
    const ts = latest.timestamp + 1000n
    await anvil.setNextBlockTimestamp({ timestamp: ts })
    const block = await nextBlock(t.url)
    expect(BigInt(block.timestamp)).toBe(ts)
    const after = await nextBlock(t.url)
    expect(BigInt(after.timestamp)).toBeGreaterThanOrEqual(ts)
  })

  it('a timestamp set right after a set applies to the block of the next transaction (not the empty block after the set)', async () => {
    const latest = await nextBlock(t.url)
    const ts = BigInt(latest.timestamp) + 500n
    await anvil.setNextBlockTimestamp({ timestamp: ts })
    const wallet = createWalletClient({
      account: privateKeyToAccount(dev0!.privateKey as Hex),
      chain: client.chain,
      transport: http(t.url),
    })
    const hash = await wallet.sendTransaction({ to: FILLER, value: 1n, chain: client.chain })
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 })
    expect((await client.getBlock({ blockNumber: receipt.blockNumber })).timestamp).toBe(ts)
  })

  it("refuses a timestamp that is not after the latest block's, with Hardhat's words", async () => {
    const latest = await client.getBlock()
    const res = await rpc(t.url, 'evm_setNextBlockTimestamp', [Number(latest.timestamp)])
    expect(res.error?.message).toBe(
      `Timestamp ${latest.timestamp} is lower than or equal to previous block's timestamp ${latest.timestamp}`,
    )
  })

  it('evm_increaseTime answers the total offset as a JSON number and moves the next block forward', async () => {
    const before = await nextBlock(t.url)
    const first = (await rpc<number>(t.url, 'evm_increaseTime', [3600])).result!
    expect(typeof first).toBe('number')
    expect((await rpc<number>(t.url, 'anvil_increaseTime', ['0x3c'])).result).toBe(first + 60)
    await hardhat.increaseTime({ seconds: 60 })
    const block = await nextBlock(t.url)
    // `before` may be a second ahead of the clock (a block is always a second after its parent).
    expect(Number(block.timestamp) - Number(before.timestamp)).toBeGreaterThanOrEqual(3719)
  })

  it('evm_setTime sets the clock of the next block', async () => {
    const latest = await client.getBlock()
    const target = latest.timestamp + 86_400n
    expect(typeof (await rpc(t.url, 'evm_setTime', [Number(target)])).result).toBe('number')
    const block = await nextBlock(t.url)
    expect(BigInt(block.timestamp)).toBeGreaterThanOrEqual(target)
  })

  it('anvil_setNextBlockBaseFeePerGas sets the next base fee, then EIP-1559 goes on from it', async () => {
    await anvil.setNextBlockBaseFeePerGas({ baseFeePerGas: 7n })
    expect(BigInt((await rpc<string>(t.url, 'eth_gasPrice')).result!)).toBeGreaterThanOrEqual(7n)
    const block = await nextBlock(t.url)
    expect(block.baseFeePerGas).toBe('0x7')
    expect((await rpc(t.url, 'hardhat_setNextBlockBaseFeePerGas', ['0x9'])).result).toBe(true)
    expect((await nextBlock(t.url)).baseFeePerGas).toBe('0x9')
  })

  it('anvil_setCoinbase names the miner of every later block, and eth_coinbase says so', async () => {
    await anvil.setCoinbase({ address: COINBASE })
    expect((await nextBlock(t.url)).miner).toBe(COINBASE)
    expect((await nextBlock(t.url)).miner).toBe(COINBASE)
    expect((await rpc<string>(t.url, 'eth_coinbase')).result).toBe(COINBASE)
  })

  it('hardhat_setPrevRandao sets the next block mixHash, which PREVRANDAO reads', async () => {
    await rpc(t.url, 'anvil_setCode', [READER, RETURNS_PREVRANDAO])
    expect((await rpc(t.url, 'hardhat_setPrevRandao', [RANDAO])).result).toBe(true)
    const block = await nextBlock(t.url)
    expect(block.mixHash).toBe(RANDAO)
    expect((await rpc(t.url, 'eth_call', [{ to: READER }, block.number])).result).toBe(RANDAO)
    expect((await nextBlock(t.url)).mixHash).toBe(`0x${'00'.repeat(32)}`)
  })

  it('evm_setBlockGasLimit sets the gas limit of every later block', async () => {
    await anvil.setBlockGasLimit({ gasLimit: 50_000_000n })
    expect((await nextBlock(t.url)).gasLimit).toBe('0x2faf080')
    expect((await nextBlock(t.url)).gasLimit).toBe('0x2faf080')
    expect((await rpc(t.url, 'evm_setBlockGasLimit', ['0x0'])).error?.code).toBe(-32602)
  })

  it('replays the overridden blocks into a fresh application identically', async () => {
    const height = Number((await rpc<string>(t.url, 'eth_blockNumber')).result)
    const read = async (url: string) => {
      const blocks: BlockJson[] = []
      for (let h = 0; h <= height; h++)
        blocks.push((await rpc<BlockJson>(url, 'eth_getBlockByNumber', [`0x${h.toString(16)}`, false])).result!)
      return blocks
    }
    const live = await read(t.url)
    t = await restartWithWipedApp(t)
    expect(await read(t.url)).toEqual(live)
    // The settings that last (coinbase, gas limit) came back with the replay.
    const next = await nextBlock(t.url)
    expect(next.miner).toBe(COINBASE)
    expect(next.gasLimit).toBe('0x2faf080')
  })
})
