/**
 * The WebSocket JSON-RPC of a real dev node: every method through the shared dispatcher, eth_subscribe
 * notification shapes byte for byte (raw `ws`), the newHeads hash equal to eth_getBlockByNumber's,
 * subscriptions through ethers' WebSocketProvider and viem's webSocket transport, clean-up on close,
 * and the transport limits (origins, subscriptions per connection, message size, slow readers).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { Contract, ContractFactory, JsonRpcProvider, Wallet, WebSocketProvider } from 'ethers'
import type { ClientOptions } from 'ws'
import { createPublicClient, createWalletClient, http, webSocket, type Abi, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { foundry } from 'viem/chains'
import { compileContracts } from '../helpers/solidity.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { captureLog } from '../helpers/log-capture.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'
import { RawWsClient, type RpcReply } from '../helpers/ws-client.js'
import type { BlockJson, LogJson, TransactionJson } from '../../src/api/eth/format.js'
import type { HeaderJson } from '../../src/api/eth/eth-pending.js'

const [A0, A1, A2] = devAccounts(3)
const SUBSCRIPTION_ID = /^0x[0-9a-f]{1,32}$/
const NOTIFICATION_PREFIX = /^\{"jsonrpc":"2\.0","method":"eth_subscription","params":\{"subscription":"(0x[0-9a-f]+)","result":/
/** Small enough that a client that stops reading overflows it within a few replies. */
const TEST_MAX_BUFFERED = 64 * 1024
const TEST_MAX_SUBSCRIPTIONS = 8
/** The node's warnings: the slow-reader test awaits the line of the drop. */
const warnings = captureLog('warn')

/** A block with its full transaction objects (`includeTransactions`, or eth_getBlockByNumber with `true`). */
type FullBlockJson = Omit<BlockJson, 'transactions'> & { transactions: TransactionJson[] }

describe('WebSocket JSON-RPC and eth_subscribe on a dev node', () => {
  let t: TestNode
  let wsUrl: string
  let provider: JsonRpcProvider
  let alice: Wallet
  let store: Contract
  let storeAddress: string
  const clients: RawWsClient[] = []
  const { Store } = compileContracts('Store.sol')
  const { Token } = compileContracts('Token.sol')

  const connect = async (options?: ClientOptions): Promise<RawWsClient> => {
    const client = await RawWsClient.connect(wsUrl, options)
    clients.push(client)
    return client
  }

  /** Sends a value transfer from account 2 over HTTP; resolves with its hash once pooled. */
  const sendTransfer = async (): Promise<string> => {
    const wallet = new Wallet(A2!.privateKey, provider)
    const tx = await wallet.sendTransaction({ to: A1!.address, value: 1n })
    return tx.hash
  }

  beforeAll(async () => {
    t = await startTestNode({
      log: warnings.logger,
      nodeOptions: {
        jsonRpc: { ws: { maxBufferedBytes: TEST_MAX_BUFFERED }, subscriptions: { maxPerConnection: TEST_MAX_SUBSCRIPTIONS } },
      },
    })
    wsUrl = t.addresses.jsonRpcWs!
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    alice = new Wallet(A0!.privateKey, provider)
    const deployed = await new ContractFactory(Store!.abi as never, Store!.bytecode, alice).deploy(1n)
    await deployed.waitForDeployment()
    store = deployed as unknown as Contract
    storeAddress = (await store.getAddress()).toLowerCase()
  })
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()))
  })
  afterAll(async () => {
    provider?.destroy()
    await t?.destroy()
  })

  it('listens on the ws address the node reports', () => {
    expect(wsUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/)
  })

  it('serves every enabled method, with number or string ids, without `jsonrpc`, and batches', async () => {
    const c = await connect()
    c.sendText('{"id":"abc","method":"eth_chainId","params":[]}')
    expect(await c.waitForFrame((f: RpcReply) => f.id === 'abc')).toEqual({ jsonrpc: '2.0', id: 'abc', result: '0x7a69' })
    c.sendText('{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber"}')
    expect((await c.waitForFrame((f: RpcReply) => f.id === 7)).result).toMatch(/^0x[0-9a-f]+$/)
    c.sendText(
      '[{"jsonrpc":"2.0","id":8,"method":"net_version"},{"jsonrpc":"2.0","id":"x9","method":"nope_nothing"},{"jsonrpc":"2.0","method":"eth_chainId"}]',
    )
    const batch = await c.waitForFrame((f) => Array.isArray(f))
    expect(batch).toEqual([
      { jsonrpc: '2.0', id: 8, result: '31337' },
      { jsonrpc: '2.0', id: 'x9', error: { code: -32601, message: 'the method nope_nothing does not exist/is not available' } },
    ])
    c.sendText('[]')
    expect(await c.waitForFrame((f: RpcReply) => f.error?.message === 'empty batch')).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'empty batch' },
    })
    c.sendText('{not json')
    expect(await c.waitForFrame((f: RpcReply) => f.error?.code === -32700)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'parse error' },
    })
  })

  it('answers eth_subscribe over HTTP with -32000 notifications not supported', async () => {
    expect((await rpc(t.url, 'eth_subscribe', ['newHeads'])).error).toEqual({ code: -32000, message: 'notifications not supported' })
    expect((await rpc(t.url, 'eth_unsubscribe', ['0x1'])).error).toEqual({ code: -32000, message: 'notifications not supported' })
  })

  it('newHeads: exact notification shape; the header is the block object without transactions and withdrawals, same hash', async () => {
    const c = await connect()
    const id = await c.call<string>('eth_subscribe', ['newHeads'])
    expect(id).toMatch(SUBSCRIPTION_ID)
    const n = await c.waitForNotification<HeaderJson>(id)
    expect(n.text).toMatch(NOTIFICATION_PREFIX)
    expect(NOTIFICATION_PREFIX.exec(n.text)![1]).toBe(id)
    expect(Object.keys(JSON.parse(n.text))).toEqual(['jsonrpc', 'method', 'params'])
    expect(Object.keys(JSON.parse(n.text).params)).toEqual(['subscription', 'result'])
    const header = n.result
    expect(header).not.toHaveProperty('transactions')
    const block = (await rpc<BlockJson>(t.url, 'eth_getBlockByNumber', [header.number, false])).result!
    expect(header.hash).toBe(block.hash)
    const { transactions: _t, withdrawals: _w, ...blockWithoutTxs } = block
    expect(header).toEqual(blockWithoutTxs)
    expect((await rpc<BlockJson>(t.url, 'eth_getBlockByHash', [header.hash, false])).result?.number).toBe(header.number)
    // Consecutive headers chain by hash.
    const next = await c.waitForNotification<HeaderJson>(id, (m) => BigInt(m.result.number) === BigInt(header.number) + 1n)
    expect(next.result.parentHash).toBe(header.hash)
  })

  it('newHeads with includeTransactions carries the full transaction objects', async () => {
    const c = await connect()
    const id = await c.call<string>('eth_subscribe', ['newHeads', { includeTransactions: true }])
    const hash = await sendTransfer()
    const n = await c.waitForNotification<FullBlockJson>(id, (m) => m.result.transactions.some((tx) => tx.hash === hash))
    const reply = await rpc<FullBlockJson>(t.url, 'eth_getBlockByNumber', [n.result.number, true])
    expect(reply.error).toBeUndefined()
    expect(n.result).toEqual(reply.result)
    expect(n.result.transactions.find((tx) => tx.hash === hash)).toEqual((await rpc(t.url, 'eth_getTransactionByHash', [hash])).result)
    await expect(c.request('eth_subscribe', ['newHeads', { includeTransactions: 'yes' }])).resolves.toMatchObject({
      error: { code: -32602 },
    })
  })

  it('logs: one notification per matching log, the eth_getLogs object with removed false', async () => {
    const c = await connect()
    const all = await c.call<string>('eth_subscribe', ['logs', { address: storeAddress }])
    const byTopic = await c.call<string>('eth_subscribe', [
      'logs',
      { address: [storeAddress], topics: [null, null, '0x' + (77).toString(16).padStart(64, '0')] },
    ])
    const other = await c.call<string>('eth_subscribe', ['logs', { address: '0x' + '99'.repeat(20) }])
    const tx1 = await store.getFunction('set')(77n, 'seventy-seven')
    const tx2 = await store.getFunction('set')(78n, 'seventy-eight')
    await tx1.wait()
    await tx2.wait()
    const first = await c.waitForNotification<LogJson>(all, (m) => m.result.transactionHash === tx1.hash)
    await c.waitForNotification<LogJson>(all, (m) => m.result.transactionHash === tx2.hash)
    expect(first.text).toMatch(NOTIFICATION_PREFIX)
    const logs = (await rpc<LogJson[]>(t.url, 'eth_getLogs', [{ blockHash: first.result.blockHash, address: storeAddress }])).result
    expect(first.result).toEqual(logs?.find((l) => l.transactionHash === tx1.hash))
    expect(first.result.removed).toBe(false)
    expect(c.notifications<LogJson>(all).filter((m) => m.result.transactionHash === tx1.hash)).toHaveLength(1)
    await c.waitForNotification(byTopic)
    expect(c.notifications<LogJson>(byTopic).map((m) => m.result.transactionHash)).toEqual([tx1.hash])
    expect(c.notifications(other)).toEqual([])
    await expect(c.request('eth_subscribe', ['logs', { address: 'nope' }])).resolves.toMatchObject({ error: { code: -32602 } })
  })

  it('newPendingTransactions: hashes, or full objects with `true`, as transactions enter the pool', async () => {
    const c = await connect()
    const hashes = await c.call<string>('eth_subscribe', ['newPendingTransactions'])
    const full = await c.call<string>('eth_subscribe', ['newPendingTransactions', true])
    const hash = await sendTransfer()
    const h = await c.waitForNotification<string>(hashes, (m) => m.result === hash)
    expect(h.text).toBe(`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${hashes}","result":"${hash}"}}`)
    const f = await c.waitForNotification<TransactionJson>(full, (m) => m.result.hash === hash)
    expect(f.result).toMatchObject({
      hash,
      blockHash: null,
      blockNumber: null,
      transactionIndex: null,
      from: A2!.address.toLowerCase(),
      to: A1!.address.toLowerCase(),
      value: '0x1',
    })
  })

  it('syncing: the current status once (false on a synced node)', async () => {
    const c = await connect()
    const id = await c.call<string>('eth_subscribe', ['syncing'])
    const n = await c.waitForNotification(id)
    expect(n.text).toBe(`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":false}}`)
  })

  it('subscribing inside a batch: the id reply comes before the first notification', async () => {
    const c = await connect()
    c.sendText(
      '[{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["syncing"]},{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"}]',
    )
    const [reply, notification] = (await c.waitForFrames(2)).map((f) => JSON.parse(f))
    expect(Array.isArray(reply)).toBe(true)
    expect(notification.params.subscription).toBe(reply[0].result)
  })

  it('eth_unsubscribe: true once, then false; false for unknown ids and for ids of other connections', async () => {
    const c = await connect()
    const d = await connect()
    const id = await c.call<string>('eth_subscribe', ['newHeads'])
    expect(await d.call('eth_unsubscribe', [id])).toBe(false)
    expect(await c.call('eth_unsubscribe', ['0x1234'])).toBe(false)
    expect(await c.call('eth_unsubscribe', [id])).toBe(true)
    expect(await c.call('eth_unsubscribe', [id])).toBe(false)
    // Nothing more arrives for it. Fence: a second newHeads subscription on the same connection sees two
    // more blocks; the first block's heads have then been sent for every live subscription.
    const count = c.notifications(id).length
    const fence = await c.call<string>('eth_subscribe', ['newHeads'])
    const head = await c.waitForNotification<HeaderJson>(fence)
    await c.waitForNotification<HeaderJson>(fence, (n) => BigInt(n.result.number) > BigInt(head.result.number))
    expect(c.notifications(id).length).toBe(count)
  })

  it('rejects unknown subscription names and bad arguments', async () => {
    const c = await connect()
    expect((await c.request('eth_subscribe', ['newBlocks'])).error).toEqual({
      code: -32601,
      message: 'no "newBlocks" subscription in eth namespace',
    })
    expect((await c.request('eth_subscribe', [42])).error).toEqual({
      code: -32602,
      message: 'expected subscription name as first argument',
    })
    expect((await c.request('eth_subscribe', ['logs'])).error).toEqual({ code: -32602, message: 'missing value for required argument 1' })
    expect((await c.request('eth_subscribe', ['newPendingTransactions', 'yes'])).error?.code).toBe(-32602)
    expect((await c.request('eth_unsubscribe', [1])).error?.code).toBe(-32602)
  })

  it('limits subscriptions per connection', async () => {
    const c = await connect()
    for (let i = 0; i < TEST_MAX_SUBSCRIPTIONS; i++) await c.call('eth_subscribe', ['syncing'])
    expect((await c.request('eth_subscribe', ['newHeads'])).error).toEqual({
      code: -32000,
      message: `too many subscriptions on this connection (max ${TEST_MAX_SUBSCRIPTIONS})`,
    })
    // Another connection has its own allowance.
    const d = await connect()
    expect(await d.call('eth_subscribe', ['newHeads'])).toMatch(SUBSCRIPTION_ID)
  })

  it('ends subscriptions when the socket closes and detaches from the chain events', async () => {
    const { pool } = t.node.components
    const { events } = t.node
    const blockListeners = events.listenerCount('EvmBlock')
    const poolListeners = pool.events.listenerCount('newPendingTx')
    const c = await connect()
    await c.call('eth_subscribe', ['newHeads'])
    await c.call('eth_subscribe', ['logs', {}])
    await c.call('eth_subscribe', ['newPendingTransactions'])
    expect(events.listenerCount('EvmBlock')).toBe(blockListeners + 1)
    expect(pool.events.listenerCount('newPendingTx')).toBe(poolListeners + 1)
    await c.close()
    await waitFor(
      () => events.listenerCount('EvmBlock') === blockListeners && pool.events.listenerCount('newPendingTx') === poolListeners,
      5_000,
      'listeners removed',
    )
    // The node keeps serving others.
    const d = await connect()
    expect(await d.call('eth_chainId')).toBe('0x7a69')
  })

  it('checks the browser Origin against ws-origins; clients without Origin are allowed', async () => {
    await expect(RawWsClient.connect(wsUrl, { headers: { Origin: 'https://evil.example' } })).rejects.toThrow('unexpected response 403')
    const local = await connect({ headers: { Origin: 'http://localhost:3000' } })
    expect(await local.call('eth_chainId')).toBe('0x7a69')
    const loopback = await connect({ headers: { Origin: 'https://127.0.0.1' } })
    expect(await loopback.call('net_version')).toBe('31337')
  })

  it('closes a connection whose message exceeds http-body-limit (1009)', async () => {
    const c = await connect()
    c.sendText(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'web3_sha3', params: ['0x' + '00'.repeat(5 * 1024 * 1024)] }))
    expect((await c.waitForClose()).code).toBe(1009)
  })

  it('disconnects a client that stops reading instead of buffering for it', async () => {
    const slow = await connect()
    const head = await slow.call<string>('eth_blockNumber')
    slow.ws.pause()
    // Each batch reply is ~1 MB; the kernel buffers absorb a few MB, then the node's bound applies.
    const batch = JSON.stringify(
      Array.from({ length: 800 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_getBlockByNumber', params: [head, false] })),
    )
    for (let i = 0; i < 40; i++) slow.sendText(batch)
    // The node stays responsive meanwhile.
    const other = await connect()
    expect(await other.call('eth_chainId')).toBe('0x7a69')
    await warnings.logged(/websocket client too slow, disconnecting/)
    slow.ws.resume()
    const closed = await slow.waitForClose(20_000)
    expect(closed.code).toBe(1006)
    expect(slow.frames.length).toBeLessThan(40)
  })

  describe('through ethers v6 WebSocketProvider', () => {
    let wsProvider: WebSocketProvider
    beforeAll(() => {
      wsProvider = new WebSocketProvider(wsUrl, undefined, { staticNetwork: true })
    })
    afterAll(async () => {
      // Let ethers finish the eth_unsubscribe calls of removeAllListeners (sent without being awaited)
      // before it is torn down: a later request on the same socket is answered after them.
      await wsProvider?.send('eth_blockNumber', [])
      await wsProvider?.destroy()
    })

    it("emits blocks with provider.on('block')", async () => {
      const seen: number[] = []
      await wsProvider.on('block', (n: number) => seen.push(n))
      await waitFor(() => seen.length >= 2, 10_000, 'two blocks')
      expect(seen[1]).toBe(seen[0]! + 1)
      const block = await wsProvider.getBlock(seen[0]!)
      expect(block?.number).toBe(seen[0])
      await wsProvider.removeAllListeners('block')
    })

    it('delivers contract events with contract.on', async () => {
      const watched = new Contract(storeAddress, Store!.abi as never, wsProvider)
      const events: { value: bigint; note: string; hash: string }[] = []
      await watched.on('ValueChanged', (_by: string, value: bigint, note: string, event: { log: { transactionHash: string } }) => {
        events.push({ value, note, hash: event.log.transactionHash })
      })
      const tx = await store.getFunction('set')(1234n, 'via ethers ws')
      await tx.wait()
      await waitFor(() => events.length >= 1, 10_000, 'ValueChanged event')
      expect(events[0]).toEqual({ value: 1234n, note: 'via ethers ws', hash: tx.hash })
      await watched.removeAllListeners()
    })
  })

  describe('through viem', () => {
    const account = privateKeyToAccount(A0!.privateKey as Hex)
    const abi = Token!.abi as Abi
    let token: Hex
    const chain = { ...foundry }

    beforeAll(async () => {
      const wallet = createWalletClient({ account, chain, transport: http(t.url) })
      const reader = createPublicClient({ chain, transport: http(t.url), pollingInterval: 50 })
      const hash = await wallet.deployContract({ abi, bytecode: Token!.bytecode as Hex, args: [1_000_000n], account, chain })
      token = (await reader.waitForTransactionReceipt({ hash })).contractAddress!
    })

    it('watchBlocks over webSocket(): headers whose hashes eth_getBlockByNumber confirms', async () => {
      const client = createPublicClient({ chain, transport: webSocket(wsUrl) })
      const blocks: { number: bigint; hash: Hex }[] = []
      const unwatch = client.watchBlocks({ onBlock: (b) => blocks.push({ number: b.number!, hash: b.hash! }) })
      try {
        await waitFor(() => blocks.length >= 2, 10_000, 'two blocks')
        const byNumber = await client.getBlock({ blockNumber: blocks[0]!.number })
        expect(byNumber.hash).toBe(blocks[0]!.hash)
      } finally {
        unwatch()
        await (await client.transport.getRpcClient()).close()
      }
    })

    it('watchContractEvent over webSocket(): Transfer logs as they are committed', async () => {
      const client = createPublicClient({ chain, transport: webSocket(wsUrl) })
      const wallet = createWalletClient({ account, chain, transport: http(t.url) })
      const logs: { to: string; value: bigint; hash: Hex }[] = []
      const unwatch = client.watchContractEvent({
        address: token,
        abi,
        eventName: 'Transfer',
        onLogs: (batch) => {
          for (const log of batch) {
            const args = (log as unknown as { args: { to: string; value: bigint } }).args
            logs.push({ to: args.to, value: args.value, hash: log.transactionHash! })
          }
        },
      })
      try {
        // The eth_subscribe answer has arrived (viem records the subscription id): the node is watching.
        const rpcClient = await client.transport.getRpcClient()
        await waitFor(() => rpcClient.subscriptions.size > 0, 10_000, 'logs subscription')
        const hash = await wallet.writeContract({ address: token, abi, functionName: 'transfer', args: [A1!.address, 55n], account, chain })
        await waitFor(() => logs.length >= 1, 10_000, 'Transfer log')
        expect(logs[0]).toEqual({ to: A1!.address, value: 55n, hash })
      } finally {
        unwatch()
        await (await client.transport.getRpcClient()).close()
      }
    })
  })
})
