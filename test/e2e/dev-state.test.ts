/**
 * The dev methods that change state (each a block of its own, docs/dev-chain.md) on a real dev node,
 * through viem's test client in both its modes and ethers: what a set changes is read at `latest` as
 * soon as it answers; the consensus block carries the operation while the EVM block shows no
 * transaction; a restart, and a replay of the stored blocks into an application that lost its state,
 * give the same chain; a node that is not a dev chain refuses the methods and the bytes.
 */
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JsonRpcProvider, Wallet } from 'ethers'
import type { createPublicClient, Hex, TestClient } from 'viem'
import type { BlockJson } from '../../src/api/eth/format.js'
import { hashHeaderJson } from '../helpers/eth-header.js'
import { viemDevClients } from '../helpers/viem-dev-clients.js'
import { cometRpc, rpc, startTestNode, type TestNode } from '../helpers/dev-node.js'
import { wipeApplicationState } from '../helpers/wipe-app-state.js'
import { DEV_OP_PREFIX, decodeDevOp, encodeDevOp } from '../../src/evm/dev/ops.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'

const ALICE = '0x00000000000000000000000000000000000a11ce' as const
const BOB = '0x0000000000000000000000000000000000000b0b' as const
/** PUSH1 0x2a PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: returns 42. */
const RETURNS_42 = '0x602a60005260206000f3'

interface CometBlock {
  block: { header: { height: string; app_hash: string }; data: { txs: string[] | null } }
}

/** The consensus block's txs, decoded from base64. */
async function cometTxs(t: TestNode, height: number): Promise<Uint8Array[]> {
  const res = await cometRpc<CometBlock>(t, 'block', { height: String(height) })
  return (res.block.data.txs ?? []).map((b64) => new Uint8Array(Buffer.from(b64, 'base64')))
}

/** Each consensus header's app hash is the state root of the EVM block before it. */
async function expectAppHashesAgree(t: TestNode, blocks: readonly BlockJson[]): Promise<void> {
  for (let h = 2; h < blocks.length; h++) {
    const header = (await cometRpc<CometBlock>(t, 'block', { height: String(h) })).block.header
    expect(`0x${header.app_hash.toLowerCase()}`, `height ${h}`).toBe(blocks[h - 1]!.stateRoot)
  }
}

async function latestBlock(url: string): Promise<BlockJson> {
  return (await rpc<BlockJson>(url, 'eth_getBlockByNumber', ['latest', false])).result!
}

describe('dev state methods', () => {
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

  it('anvil_setBalance makes a block whose consensus txs carry the operation and whose EVM block has no transaction', async () => {
    const before = await client.getBlockNumber()
    await anvil.setBalance({ address: ALICE, value: 10n ** 21n })
    expect(await client.getBalance({ address: ALICE })).toBe(10n ** 21n)
    const block = await latestBlock(t.url)
    const height = Number(block.number)
    expect(height).toBeGreaterThan(Number(before))
    expect(block.transactions).toEqual([])
    const txs = await cometTxs(t, height)
    const ops = txs.filter((tx) => tx[0] === DEV_OP_PREFIX[0])
    expect(ops.map((raw) => decodeDevOp(raw))).toContainEqual({
      kind: 'setBalance',
      address: Buffer.from(ALICE.slice(2), 'hex'),
      balance: 10n ** 21n,
    })
    // The EVM header still hashes to its hash.
    expect(hashHeaderJson(block)).toBe(block.hash)
  })

  it('answers null under anvil_ names and true under hardhat_ names', async () => {
    expect((await rpc(t.url, 'anvil_setBalance', [BOB, '0x1'])).result).toBeNull()
    expect((await rpc(t.url, 'hardhat_setBalance', [BOB, '0x2'])).result).toBe(true)
    expect(await client.getBalance({ address: BOB })).toBe(2n)
  })

  it('sets code, nonce and storage in both modes', async () => {
    await hardhat.setCode({ address: BOB, bytecode: RETURNS_42 })
    expect(await client.getCode({ address: BOB })).toBe(RETURNS_42)
    expect(await client.call({ to: BOB })).toEqual({ data: `0x${'0'.repeat(62)}2a` })
    await anvil.setNonce({ address: BOB, nonce: 7 })
    expect(await client.getTransactionCount({ address: BOB })).toBe(7)
    await hardhat.setNonce({ address: BOB, nonce: 9 })
    expect(await client.getTransactionCount({ address: BOB })).toBe(9)
    expect((await rpc(t.url, 'evm_setAccountNonce', [BOB, '0xb'])).result).toBe(true)
    expect(await client.getTransactionCount({ address: BOB })).toBe(11)
    const value = `0x${'00'.repeat(31)}ff` as Hex
    await anvil.setStorageAt({ address: BOB, index: 3, value })
    expect(await client.getStorageAt({ address: BOB, slot: '0x3' })).toBe(value)
    const slot = `0x${'00'.repeat(31)}04` as Hex
    await hardhat.setStorageAt({ address: BOB, index: slot, value })
    expect(await client.getStorageAt({ address: BOB, slot })).toBe(value)
  })

  it("hardhat_setNonce refuses a lower nonce with Hardhat's words; anvil_setNonce and evm_setAccountNonce take it, as Anvil", async () => {
    await hardhat.setNonce({ address: ALICE, nonce: 5 })
    const res = await rpc(t.url, 'hardhat_setNonce', [ALICE, '0x3'])
    expect(res.error).toEqual({ code: -32000, message: 'New nonce (3) must not be smaller than the existing nonce (5)' })
    expect(await client.getTransactionCount({ address: ALICE })).toBe(5)
    // The same nonce is not smaller: accepted.
    expect((await rpc(t.url, 'hardhat_setNonce', [ALICE, '0x5'])).result).toBe(true)
    await anvil.setNonce({ address: ALICE, nonce: 2 })
    expect(await client.getTransactionCount({ address: ALICE })).toBe(2)
    expect((await rpc(t.url, 'evm_setAccountNonce', [ALICE, '0x1'])).result).toBe(true)
    expect(await client.getTransactionCount({ address: ALICE })).toBe(1)
  })

  it('evm_setBlockGasLimit holds the pool to the new limit at once: above the old limit and below the new one is mined, above the new one refused; a revert brings the old limit back', async () => {
    const sender = new Wallet(devAccounts(4)[3]!.privateKey)
    // Fees low enough that tens of millions of gas stay under the node's txfee-cap (1 ether).
    const gasPrice = await client.getGasPrice()
    const signWithGas = async (gasLimit: bigint) =>
      sender.signTransaction({
        type: 2,
        chainId: 31337n,
        nonce: await client.getTransactionCount({ address: sender.address as Hex }),
        gasLimit,
        maxFeePerGas: gasPrice * 2n,
        maxPriorityFeePerGas: gasPrice,
        to: BOB,
        value: 1n,
      })
    const oldLimit = BigInt((await latestBlock(t.url)).gasLimit)
    const snapshot = (await rpc<string>(t.url, 'evm_snapshot')).result!
    const between = oldLimit + 10_000_000n
    const refusedBefore = await rpc(t.url, 'eth_sendRawTransaction', [await signWithGas(between)])
    expect(refusedBefore.error?.message).toMatch(/exceeds block gas limit/)

    expect((await rpc(t.url, 'evm_setBlockGasLimit', [`0x${(between + 10_000_000n).toString(16)}`])).result).toBe(true)
    const hash = (await rpc<Hex>(t.url, 'eth_sendRawTransaction', [await signWithGas(between)])).result!
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/)
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 })
    expect(receipt.status).toBe('success')
    const block = await client.getBlock({ blockNumber: receipt.blockNumber })
    expect(block.gasLimit).toBe(between + 10_000_000n)

    const refusedAfter = await rpc(t.url, 'eth_sendRawTransaction', [await signWithGas(between + 20_000_000n)])
    expect(refusedAfter.error?.message).toMatch(/exceeds block gas limit/)
    // A revert to before the change brings the old limit back, for admission too.
    expect((await rpc(t.url, 'evm_revert', [snapshot])).result).toBe(true)
    expect(BigInt((await latestBlock(t.url)).gasLimit)).toBe(oldLimit)
    const refusedAgain = await rpc(t.url, 'eth_sendRawTransaction', [await signWithGas(between)])
    expect(refusedAgain.error?.message).toMatch(/exceeds block gas limit/)
  })

  it('refuses a storage value that is not exactly 32 bytes, as Hardhat does', async () => {
    const res = await rpc(t.url, 'hardhat_setStorageAt', [BOB, '0x0', '0x01'])
    expect(res.error?.code).toBe(-32602)
  })

  it('serves the sets to ethers as to any client', async () => {
    const provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, cacheTimeout: -1 })
    await provider.send('hardhat_setBalance', [ALICE, '0x3e8'])
    expect(await provider.getBalance(ALICE)).toBe(1000n)
    provider.destroy()
  })

  it('refuses anvil_setMinGasPrice on this EIP-1559 chain, as Anvil and Hardhat do', async () => {
    const res = await rpc(t.url, 'anvil_setMinGasPrice', ['0x1'])
    expect(res.error).toEqual({ code: -32602, message: 'anvil_setMinGasPrice is not supported when EIP-1559 is active' })
  })

  it('keeps dev operations out of the pool: CheckTx refuses them', async () => {
    const op = encodeDevOp({ kind: 'setBalance', address: new Uint8Array(20), balance: 1n })
    const res = await cometRpc<{ code: number; log: string }>(t, 'broadcast_tx_sync', { tx: Buffer.from(op).toString('base64') })
    expect(res.code).not.toBe(0)
    expect(res.log).toContain('dev operations are not transactions')
  })
})

describe('dev state across a restart and a replay', () => {
  let t: TestNode | undefined
  afterAll(async () => {
    await t?.destroy()
  })

  it('gives the same state, app hash and EVM blocks after a restart and after replaying every block', async () => {
    t = await startTestNode()
    const home = t.home
    await rpc(t.url, 'anvil_setBalance', [ALICE, '0x1234'])
    await rpc(t.url, 'anvil_setCode', [BOB, RETURNS_42])
    await rpc(t.url, 'anvil_setStorageAt', [BOB, '0x1', `0x${'11'.repeat(32)}`])
    await rpc(t.url, 'anvil_setNonce', [ALICE, '0x5'])
    const read = async (url: string) => {
      const head = await latestBlock(url)
      const height = Number(head.number)
      const blocks: BlockJson[] = []
      for (let h = 0; h <= height; h++)
        blocks.push((await rpc<BlockJson>(url, 'eth_getBlockByNumber', [`0x${h.toString(16)}`, false])).result!)
      return {
        blocks,
        balance: (await rpc(url, 'eth_getBalance', [ALICE, 'latest'])).result,
        nonce: (await rpc(url, 'eth_getTransactionCount', [ALICE, 'latest'])).result,
        code: (await rpc(url, 'eth_getCode', [BOB, 'latest'])).result,
        storage: (await rpc(url, 'eth_getStorageAt', [BOB, '0x1', 'latest'])).result,
      }
    }
    const live = await read(t.url)
    const height = live.blocks.length - 1
    await expectAppHashesAgree(t, live.blocks)
    expect(live.balance).toBe('0x1234')
    expect(live.nonce).toBe('0x5')
    expect(live.code).toBe(RETURNS_42)
    expect(live.storage).toBe(`0x${'11'.repeat(32)}`)
    await t.stop()

    t = await startTestNode({ home })
    const restarted = await read(t.url)
    expect(restarted.blocks.slice(0, height + 1)).toEqual(live.blocks)
    expect({ ...restarted, blocks: undefined }).toEqual({ ...live, blocks: undefined })
    const dbPath = t.node.config.paths.db
    await t.stop()

    expect(await wipeApplicationState(dbPath)).toBeGreaterThan(0)
    t = await startTestNode({ home })
    const replayed = await read(t.url)
    expect(replayed.blocks.slice(0, height + 1)).toEqual(live.blocks)
    expect({ ...replayed, blocks: undefined }).toEqual({ ...live, blocks: undefined })
    await expectAppHashesAgree(t, replayed.blocks)
  })
})

describe('anvil_dumpState and anvil_loadState', () => {
  const nodes: TestNode[] = []
  afterAll(async () => {
    for (const n of nodes) await n.destroy()
  })

  it('dumps the state of one dev chain and merges it into another', async () => {
    const a = await startTestNode()
    nodes.push(a)
    const [dev0] = devAccounts(1)
    await rpc(a.url, 'anvil_setBalance', [ALICE, '0xabcdef'])
    await rpc(a.url, 'anvil_setCode', [BOB, RETURNS_42])
    await rpc(a.url, 'anvil_setStorageAt', [BOB, '0x2', `0x${'22'.repeat(32)}`])
    await rpc(a.url, 'anvil_setNonce', [BOB, '0x3'])
    const blob = (await rpc<string>(a.url, 'anvil_dumpState')).result!
    expect(blob).toMatch(/^0x1f8b/)
    // The genesis accounts are in it too, though no block wrote them.
    const dumped = JSON.parse(gunzipSync(Buffer.from(blob.slice(2), 'hex')).toString('utf8')) as { accounts: Record<string, unknown> }
    expect(Object.keys(dumped.accounts)).toEqual(expect.arrayContaining(devAccounts(10).map((d) => d.address.toLowerCase())))
    const b = await startTestNode()
    nodes.push(b)
    await rpc(b.url, 'anvil_setBalance', [dev0!.address, '0x1'])
    expect((await rpc(b.url, 'hardhat_loadState', [blob])).result).toBe(true)
    for (const [method, params] of [
      ['eth_getBalance', [ALICE, 'latest']],
      ['eth_getBalance', [dev0!.address, 'latest']],
      ['eth_getCode', [BOB, 'latest']],
      ['eth_getStorageAt', [BOB, '0x2', 'latest']],
      ['eth_getTransactionCount', [BOB, 'latest']],
    ] as const) {
      expect((await rpc(b.url, method, [...params])).result, method).toEqual((await rpc(a.url, method, [...params])).result)
    }
    expect((await rpc(b.url, 'anvil_loadState', ['0x1234'])).error?.message).toMatch(/^failed to load state: /)
  })
})

describe('dev methods on a node that is not a dev chain', () => {
  let t: TestNode | undefined
  afterAll(async () => {
    await t?.destroy()
  })

  it('answers -32601 saying they are served only by a development chain', async () => {
    t = await startTestNode({ dev: false, flags: { 'json-rpc.api': 'eth,net,web3,evm,anvil,hardhat' } })
    expect((await rpc(t.url, 'anvil_setBalance', [ALICE, '0x1'])).error).toEqual({
      code: -32601,
      message: 'anvil_setBalance is served only by a development chain (nodectl start --dev)',
    })
    expect((await rpc(t.url, 'eth_sendUnsignedTransaction', [{ from: ALICE }])).error?.code).toBe(-32601)
    expect((await rpc(t.url, 'evm_increaseTime', [1])).error?.message).toBe(
      'evm_increaseTime is served only by a development chain (nodectl start --dev)',
    )
  })
})
