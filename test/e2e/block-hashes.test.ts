/**
 * Ethereum-verifiable blocks on a real dev node: every block's header, rebuilt from eth_getBlockByNumber's
 * fields with ethers and with ethereumjs' `createBlockHeaderFromRPC`, hashes to `hash`;
 * debug_getRawHeader returns exactly those bytes; parent hashes link; BLOCKHASH (in a call and in a transaction) answers the same hashes; every method
 * that takes a block hash finds the block by it; `cometHash` is the consensus RPC's block hash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createBlockHeaderFromRPC } from '@ethereumjs/block'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { ContractFactory, Interface, JsonRpcProvider, Wallet, keccak256, type Contract, type TransactionReceipt } from 'ethers'
import type { BlockJson, LogJson, ReceiptJson, TransactionJson } from '../../src/api/eth/format.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { bytesToHex } from '../../src/primitives/hex.js'
import { cometRpc, rpc, startTestNode, type TestNode } from '../helpers/dev-node.js'
import { encodeHeaderJson, hashHeaderJson } from '../helpers/eth-header.js'
import { compileContracts } from '../helpers/solidity.js'
import { RawWsClient } from '../helpers/ws-client.js'

const [KEY0, KEY1] = devAccounts(2).map((a) => a.privateKey)

async function call<T>(t: TestNode, method: string, params: unknown[]): Promise<T> {
  const reply = await rpc<T>(t.url, method, params)
  if (reply.error) throw new Error(`${method}: ${reply.error.message}`)
  return reply.result as T
}

describe('Ethereum-verifiable block hashes', () => {
  let t: TestNode
  let provider: JsonRpcProvider
  let hashes: Contract
  let ws: RawWsClient
  let heads: string
  /** Receipts of the three transaction types and of a transaction that records BLOCKHASH. */
  let mixed: ReceiptJson[]

  beforeAll(async () => {
    t = await startTestNode()
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    ws = await RawWsClient.connect(t.addresses.jsonRpcWs!)
    heads = await ws.call<string>('eth_subscribe', ['newHeads'])
    const alice = new Wallet(KEY0!, provider)
    const bob = new Wallet(KEY1!, provider)
    const { BlockHashes } = compileContracts('BlockHashes.sol')
    const deployed = await new ContractFactory(BlockHashes!.abi as never, BlockHashes!.bytecode, alice).deploy()
    await deployed.waitForDeployment()
    hashes = deployed as unknown as Contract
    const nonce = await alice.getNonce()
    const sent = await Promise.all([
      alice.sendTransaction({ to: bob.address, value: 1n, type: 0, nonce }),
      alice.sendTransaction({ to: bob.address, value: 2n, type: 1, nonce: nonce + 1 }),
      alice.sendTransaction({ to: bob.address, value: 3n, type: 2, nonce: nonce + 2 }),
      hashes.connect(bob).getFunction('recordParent')(),
    ])
    const receipts = (await Promise.all(sent.map((tx) => tx.wait()))) as TransactionReceipt[]
    mixed = await Promise.all(receipts.map((r) => call<ReceiptJson>(t, 'eth_getTransactionReceipt', [r.hash])))
  }, 60_000)
  afterAll(async () => {
    await ws?.close()
    provider?.destroy()
    await t?.destroy()
  })

  /** Blocks 0..latest as eth_getBlockByNumber returns them. */
  async function chain(): Promise<BlockJson[]> {
    const latest = Number(await call<string>(t, 'eth_blockNumber', []))
    const out: BlockJson[] = []
    for (let n = 0; n <= latest; n++) out.push(await call<BlockJson>(t, 'eth_getBlockByNumber', ['0x' + n.toString(16), false]))
    return out
  }

  it('hashes every block as keccak256 of its header rebuilt from its fields, as debug_getRawHeader gives it', async () => {
    const cancun = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun })
    const blocks = await chain()
    expect(blocks.length).toBeGreaterThan(2)
    expect(new Set(mixed.map((r) => r.type))).toEqual(new Set(['0x0', '0x1', '0x2']))
    for (const b of blocks) {
      expect(hashHeaderJson(b), `block ${b.number}`).toBe(b.hash)
      expect(bytesToHex(createBlockHeaderFromRPC(b as never, { common: cancun }).hash())).toBe(b.hash)
      const raw = await call<string>(t, 'debug_getRawHeader', [b.number])
      expect(raw).toBe(encodeHeaderJson(b))
      expect(keccak256(raw)).toBe(b.hash)
      expect([b.withdrawalsRoot, b.blobGasUsed, b.excessBlobGas]).toEqual([
        '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
        '0x0',
        '0x0',
      ])
    }
    expect(blocks[0]!.parentHash).toBe('0x' + '00'.repeat(32))
    for (let n = 1; n < blocks.length; n++) expect(blocks[n]!.parentHash).toBe(blocks[n - 1]!.hash)
  })

  it('gives cometHash (and extraData) the consensus block hash of the height, which is not an EVM block hash', async () => {
    const blocks = await chain()
    expect(blocks[0]!.cometHash).toBeNull()
    for (const b of blocks.slice(1)) {
      const consensus = await cometRpc<{ block_id: { hash: string } }>(t, 'block', { height: String(Number(b.number)) })
      expect(b.cometHash).toBe('0x' + consensus.block_id.hash.toLowerCase())
      expect(b.extraData).toBe(b.cometHash)
      expect(b.hash).not.toBe(b.cometHash)
      expect(await call(t, 'eth_getBlockByHash', [b.cometHash, false])).toBeNull()
    }
  })

  it('answers BLOCKHASH with the same hashes, in calls and in transactions', async () => {
    const blocks = await chain()
    for (const b of blocks.slice(0, -1)) expect(await hashes.getFunction('hashOf')(BigInt(b.number))).toBe(b.hash)
    const record = mixed[3]!
    const parentNumber = Number(record.blockNumber) - 1
    const parsed = new Interface(compileContracts('BlockHashes.sol').BlockHashes!.abi as never).parseLog(record.logs[0]!)!
    expect(parsed.args[0]).toBe(BigInt(parentNumber))
    expect(parsed.args[1]).toBe(blocks[parentNumber]!.hash)
  })

  it('finds each block by its hash wherever a block hash is taken', async () => {
    const address = devAccounts(1)[0]!.address
    for (const number of new Set(mixed.map((r) => r.blockNumber))) {
      const block = await call<BlockJson>(t, 'eth_getBlockByNumber', [number, false])
      const hash = block.hash
      const receipts = mixed.filter((r) => r.blockNumber === number)
      expect(block.transactions).toEqual(receipts.map((r) => r.transactionHash))
      expect(await call(t, 'eth_getBlockByHash', [hash, false])).toEqual(block)
      expect(await call(t, 'eth_getBlockTransactionCountByHash', [hash])).toBe('0x' + receipts.length.toString(16))
      const tx = await call<TransactionJson>(t, 'eth_getTransactionByBlockHashAndIndex', [hash, '0x0'])
      expect(tx.hash).toBe(receipts[0]!.transactionHash)
      expect(tx.blockHash).toBe(hash)
      expect(await call(t, 'eth_getUncleCountByBlockHash', [hash])).toBe('0x0')
      expect(await call(t, 'eth_getUncleByBlockHashAndIndex', [hash, '0x0'])).toBeNull()
      expect((await call<{ hash: string }>(t, 'eth_getHeaderByHash', [hash])).hash).toBe(hash)
      expect(await call(t, 'eth_getBalance', [address, { blockHash: hash }])).toBe(await call(t, 'eth_getBalance', [address, number]))
      expect(await call(t, 'eth_getBlockReceipts', [{ blockHash: hash }])).toEqual(receipts)
      for (const r of receipts) expect(r.blockHash).toBe(hash)
      const logs = await call<LogJson[]>(t, 'eth_getLogs', [{ blockHash: hash }])
      expect(logs).toEqual(receipts.flatMap((r) => r.logs))
      for (const log of logs) expect(log.blockHash).toBe(hash)
      expect(await call<unknown[]>(t, 'debug_traceBlockByHash', [hash, { tracer: 'callTracer' }])).toHaveLength(receipts.length)
      const head = await ws.waitForNotification<BlockJson>(heads, (n) => n.result.number === number)
      expect(head.result.hash).toBe(hash)
      expect(hashHeaderJson(head.result)).toBe(hash)
    }
    expect(mixed[3]!.logs[0]!.blockHash).toBe(mixed[3]!.blockHash)
  })
})
