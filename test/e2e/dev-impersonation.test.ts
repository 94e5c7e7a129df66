/**
 * Impersonation on a real dev node, with viem's test and wallet clients and ethers' JSON-RPC signer:
 * eth_sendTransaction from an address whose key the node does not hold, eth_sendUnsignedTransaction;
 * the transaction has a hash, fields and receipt like any other, its block hashes as an Ethereum
 * header, and a replay of the stored blocks into a fresh application gives the same receipts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { JsonRpcProvider, JsonRpcSigner, getAddress } from 'ethers'
import { createPublicClient, createTestClient, createWalletClient, http, type Chain, type Hex, type TestClient } from 'viem'
import { foundry } from 'viem/chains'
import type { BlockJson, ReceiptJson, TransactionJson } from '../../src/api/eth/format.js'
import { hashHeaderJson } from '../helpers/eth-header.js'
import { cometRpc, rpc, startTestNode, type TestNode } from '../helpers/dev-node.js'
import { restartWithWipedApp } from '../helpers/wipe-app-state.js'
import { decodeDevOp } from '../../src/evm/dev/ops.js'

const WHALE = '0x00000000000000000000000000000000000dead1' as Hex
const OTHER = '0x00000000000000000000000000000000000dead2' as Hex
const TO = '0x0000000000000000000000000000000000000c0c' as Hex
const ETHER = 10n ** 18n

describe('impersonation', () => {
  let t: TestNode
  let anvil: TestClient
  let hardhat: TestClient
  let client: ReturnType<typeof createPublicClient>
  let chain: Chain
  const hashes: Hex[] = []

  beforeAll(async () => {
    t = await startTestNode()
    chain = { ...foundry, rpcUrls: { default: { http: [t.url] } } }
    anvil = createTestClient({ mode: 'anvil', chain, transport: http(t.url) })
    hardhat = createTestClient({ mode: 'hardhat', chain, transport: http(t.url) })
    client = createPublicClient({ chain, transport: http(t.url), pollingInterval: 20 })
    await anvil.setBalance({ address: WHALE, value: 100n * ETHER })
    await anvil.setBalance({ address: OTHER, value: 100n * ETHER })
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('refuses eth_sendTransaction from an address that is neither unlocked nor impersonated', async () => {
    const res = await rpc(t.url, 'eth_sendTransaction', [{ from: WHALE, to: TO, value: '0x1' }])
    expect(res.error).toBeDefined()
  })

  it('sends from an impersonated address (viem, anvil mode): a real receipt, fields and place in the block', async () => {
    await anvil.impersonateAccount({ address: WHALE })
    const wallet = createWalletClient({ account: WHALE, chain, transport: http(t.url) })
    const hash = await wallet.sendTransaction({ to: TO, value: ETHER, account: WHALE, chain })
    hashes.push(hash)
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 })
    expect(receipt.status).toBe('success')
    expect(receipt.from).toBe(WHALE)
    expect(await client.getBalance({ address: TO })).toBe(ETHER)
    const tx = await client.getTransaction({ hash })
    expect(tx.from).toBe(WHALE)
    expect(tx.hash).toBe(hash)
    const block = (await rpc<BlockJson>(t.url, 'eth_getBlockByNumber', [`0x${receipt.blockNumber.toString(16)}`, false])).result!
    expect(block.transactions).toEqual([hash])
    expect(hashHeaderJson(block)).toBe(block.hash)
    // The consensus block carries it as a dev operation naming the sender.
    const res = await cometRpc<{ block: { data: { txs: string[] } } }>(t, 'block', { height: String(receipt.blockNumber) })
    const ops = res.block.data.txs.map((b64) => decodeDevOp(new Uint8Array(Buffer.from(b64, 'base64'))))
    expect(ops.map((op) => op.kind)).toContain('tx')
    // Tracing re-executes it with its sender, not the one its placeholder signature would recover.
    const trace = (await rpc<{ from: string; value: string }>(t.url, 'debug_traceTransaction', [hash, { tracer: 'callTracer' }])).result!
    expect(trace.from).toBe(WHALE)
    expect(BigInt(trace.value)).toBe(ETHER)
  })

  it('serialises the nonces of transactions sent at once', async () => {
    const wallet = createWalletClient({ account: WHALE, chain, transport: http(t.url) })
    const sent = await Promise.all([1n, 2n, 3n].map((value) => wallet.sendTransaction({ to: TO, value, account: WHALE, chain })))
    hashes.push(...sent)
    const receipts = await Promise.all(sent.map((hash) => client.waitForTransactionReceipt({ hash, pollingInterval: 20 })))
    expect(receipts.map((r) => r.status)).toEqual(['success', 'success', 'success'])
    const nonces = await Promise.all(sent.map(async (hash) => (await client.getTransaction({ hash })).nonce))
    expect([...nonces].sort()).toEqual([1, 2, 3])
  })

  it('stops impersonating (hardhat mode), then refuses again', async () => {
    await hardhat.stopImpersonatingAccount({ address: WHALE })
    expect((await rpc(t.url, 'eth_sendTransaction', [{ from: WHALE, to: TO, value: '0x1' }])).error).toBeDefined()
  })

  it('sends through an ethers JSON-RPC signer after hardhat_impersonateAccount', async () => {
    const provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 20, cacheTimeout: -1 })
    expect(await provider.send('hardhat_impersonateAccount', [OTHER])).toBe(true)
    // As hardhat-ethers' impersonated signer: a JSON-RPC signer made for the address.
    const signer = new JsonRpcSigner(provider, OTHER)
    const tx = await signer.sendTransaction({ to: TO, value: 5n })
    const receipt = await tx.wait()
    expect(receipt!.status).toBe(1)
    expect(receipt!.from.toLowerCase()).toBe(OTHER)
    hashes.push(tx.hash as Hex)
    provider.destroy()
  })

  it("eth_accounts lists impersonated addresses after the node's own while impersonated, as Anvil (ethers' getSigner finds them)", async () => {
    const THIRD = '0x00000000000000000000000000000000000dead3' as Hex
    const accounts = async () => (await rpc<string[]>(t.url, 'eth_accounts')).result!
    const own = (await accounts()).filter((a) => a !== OTHER)
    expect(own).toHaveLength(10)
    await anvil.impersonateAccount({ address: THIRD })
    // OTHER (impersonated by the test before) first, then THIRD; a dev account impersonated is not listed twice.
    await anvil.impersonateAccount({ address: own[0] as Hex })
    expect(await accounts()).toEqual([...own, OTHER, THIRD])
    const provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, cacheTimeout: -1 })
    expect(await (await provider.getSigner(THIRD)).getAddress()).toBe(getAddress(THIRD))
    provider.destroy()
    await anvil.stopImpersonatingAccount({ address: THIRD })
    await anvil.stopImpersonatingAccount({ address: OTHER })
    await anvil.stopImpersonatingAccount({ address: own[0] as Hex })
    expect(await accounts()).toEqual(own)
  })

  it('anvil_autoImpersonateAccount lets every address send', async () => {
    const anyone = '0x00000000000000000000000000000000000a0a0a' as Hex
    await anvil.setBalance({ address: anyone, value: ETHER })
    expect((await rpc(t.url, 'anvil_autoImpersonateAccount', [true])).result).toBeNull()
    const hash = (await rpc<Hex>(t.url, 'eth_sendTransaction', [{ from: anyone, to: TO, value: '0x2' }])).result!
    expect((await client.waitForTransactionReceipt({ hash, pollingInterval: 20 })).status).toBe('success')
    hashes.push(hash)
    await rpc(t.url, 'anvil_autoImpersonateAccount', [false])
    expect((await rpc(t.url, 'eth_sendTransaction', [{ from: anyone, to: TO, value: '0x2' }])).error).toBeDefined()
  })

  it('eth_sendUnsignedTransaction sends from any address', async () => {
    const hash = (await rpc<Hex>(t.url, 'eth_sendUnsignedTransaction', [{ from: OTHER, to: TO, value: '0x3' }])).result!
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 })
    expect(receipt.from).toBe(OTHER)
    hashes.push(hash)
  })

  it('refuses a transaction its sender cannot pay for, with geth words', async () => {
    const poor = '0x00000000000000000000000000000000000b0b0b'
    // With a gas limit given: no estimate, which would refuse first ("insufficient funds for transfer").
    const res = await rpc(t.url, 'eth_sendUnsignedTransaction', [{ from: poor, to: TO, value: '0x1', gas: '0x5208' }])
    expect(res.error?.message).toMatch(/^insufficient funds for gas \* price \+ value: address 0x0+b0b0b have 0 want \d+$/)
  })

  it('gives the same transactions and receipts after a replay into a fresh application', async () => {
    const read = async (url: string) => ({
      txs: await Promise.all(hashes.map(async (h) => (await rpc<TransactionJson>(url, 'eth_getTransactionByHash', [h])).result)),
      receipts: await Promise.all(hashes.map(async (h) => (await rpc<ReceiptJson>(url, 'eth_getTransactionReceipt', [h])).result)),
    })
    const live = await read(t.url)
    expect(live.receipts.every((r) => r?.status === '0x1')).toBe(true)
    t = await restartWithWipedApp(t)
    expect(await read(t.url)).toEqual(live)
  })
})
