/**
 * Polling filters on a real dev node, case by case along the spec's Filter state table: creation with
 * random hex ids, changes since the last poll (block hashes, hashes of transactions entering the pool,
 * logs), eth_getFilterLogs with the stored range, errors for wrong type and unknown ids, uninstall,
 * expiry without a poll (short injected timeout), `filter-cap`; the same filters over WebSocket; and
 * the clients that poll with filters (ethers JsonRpcProvider contract.on, viem over http()).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Contract, ContractFactory, JsonRpcProvider, Wallet } from 'ethers'
import { createPublicClient, createWalletClient, http, type Abi, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { foundry } from 'viem/chains'
import { compileContracts } from '../helpers/solidity.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'
import { RawWsClient } from '../helpers/ws-client.js'
import type { BlockJson, LogJson } from '../../src/api/eth/format.js'

const [A0, A1, A2, A3] = devAccounts(4)
const FILTER_ID = /^0x[0-9a-f]{1,32}$/
/** Injected filter expiry: long enough for the tests' polls, short enough to watch a filter expire. */
const FILTER_TIMEOUT = 1_500
/** The node's filter-expiry clock (ms): only the expiry test moves it. */
let filterClock = 0
const FILTER_CAP = 12

describe('polling filters on a dev node', () => {
  let t: TestNode
  let provider: JsonRpcProvider
  let store: Contract
  let storeAddress: string
  const { Store } = compileContracts('Store.sol')
  const { Token } = compileContracts('Token.sol')

  /** The result of a call, of the shape `T` the caller expects; throws on an error reply. */
  const result = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const reply = await rpc(t.url, method, params)
    if (reply.error) throw new Error(`${method}: ${reply.error.code} ${reply.error.message}`)
    return reply.result as T
  }
  /** Polls eth_getFilterChanges, accumulating, until `done` holds for the entries so far. */
  const collectChanges = async <T>(id: string, done: (all: T[]) => boolean, timeoutMs = 10_000): Promise<T[]> => {
    const all: T[] = []
    await waitFor(
      async () => {
        all.push(...(await result<T[]>('eth_getFilterChanges', [id])))
        return done(all)
      },
      timeoutMs,
      `changes of filter ${id}`,
    )
    return all
  }
  const setValue = async (value: bigint, note: string): Promise<string> => {
    const tx = await store.getFunction('set')(value, note)
    await tx.wait()
    return tx.hash
  }

  beforeAll(async () => {
    t = await startTestNode({
      flags: { 'json-rpc.filter-cap': String(FILTER_CAP) },
      nodeOptions: { jsonRpc: { filters: { timeout: FILTER_TIMEOUT }, filterClock: () => filterClock } },
    })
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    const deployed = await new ContractFactory(Store!.abi as never, Store!.bytecode, new Wallet(A0!.privateKey, provider)).deploy(1n)
    await deployed.waitForDeployment()
    store = deployed as unknown as Contract
    storeAddress = (await store.getAddress()).toLowerCase()
  })
  afterAll(async () => {
    provider?.destroy()
    await t?.destroy()
  })

  it('block filter: the hashes of the blocks committed since the last poll, as eth_getBlockByNumber shows them', async () => {
    const id = await result<string>('eth_newBlockFilter')
    expect(id).toMatch(FILTER_ID)
    const hashes = await collectChanges<string>(id, (all) => all.length >= 2)
    const blocks = await Promise.all(hashes.map((h) => result<BlockJson>('eth_getBlockByHash', [h, false])))
    for (let i = 1; i < blocks.length; i++) {
      expect(BigInt(blocks[i].number)).toBe(BigInt(blocks[i - 1].number) + 1n)
      expect(blocks[i].parentHash).toBe(hashes[i - 1])
    }
    expect((await result<BlockJson>('eth_getBlockByNumber', [blocks[0].number, false])).hash).toBe(hashes[0])
    // Entries are handed out once.
    const again = await result<string[]>('eth_getFilterChanges', [id])
    expect(again.filter((h) => hashes.includes(h))).toEqual([])
    expect(await result('eth_uninstallFilter', [id])).toBe(true)
  })

  it('pending-transaction filter: hashes of transactions that entered the pool, before they are mined', async () => {
    const id = await result<string>('eth_newPendingTransactionFilter')
    expect(id).toMatch(FILTER_ID)
    const wallet = new Wallet(A2!.privateKey, provider)
    const tx = await wallet.sendTransaction({ to: A1!.address, value: 1n })
    const hashes = await collectChanges<string>(id, (all) => all.includes(tx.hash))
    expect(hashes).toContain(tx.hash)
    await tx.wait()
    expect(await result('eth_uninstallFilter', [id])).toBe(true)
  })

  it('log filter: matching logs since the last poll, equal to eth_getLogs; eth_getFilterLogs re-runs the range', async () => {
    const head = parseInt(await result<string>('eth_blockNumber'), 16)
    const id = await result<string>('eth_newFilter', [{ address: storeAddress }])
    const other = await result('eth_newFilter', [
      { address: storeAddress, topics: [null, null, '0x' + (9_999).toString(16).padStart(64, '0')] },
    ])
    const hash = await setValue(500n, 'five hundred')
    const logs = await collectChanges<LogJson>(id, (all) => all.some((l) => l.transactionHash === hash))
    const log = logs.find((l) => l.transactionHash === hash)!
    const [expected] = (await result<LogJson[]>('eth_getLogs', [{ blockHash: log.blockHash, address: storeAddress }])).filter(
      (l) => l.transactionHash === hash,
    )
    expect(log).toEqual(expected)
    expect(log.removed).toBe(false)
    expect(await result('eth_getFilterChanges', [other])).toEqual([])

    // A filter with a past range keeps it: no new logs, eth_getFilterLogs answers the range.
    const past = await result('eth_newFilter', [{ address: storeAddress, fromBlock: '0x0', toBlock: '0x' + head.toString(16) }])
    const fromStart = await result('eth_newFilter', [{ address: storeAddress, fromBlock: 'earliest' }])
    const hash2 = await setValue(501n, 'five hundred one')
    await collectChanges<LogJson>(id, (all) => all.some((l) => l.transactionHash === hash2))
    expect(await result('eth_getFilterChanges', [past])).toEqual([])
    const pastLogs = await result<LogJson[]>('eth_getFilterLogs', [past])
    expect(pastLogs).toEqual(await result('eth_getLogs', [{ address: storeAddress, fromBlock: '0x0', toBlock: '0x' + head.toString(16) }]))
    expect(pastLogs.some((l) => l.transactionHash === hash)).toBe(false)
    // `latest` is resolved at each call: the newest log is included.
    const all = await result<LogJson[]>('eth_getFilterLogs', [fromStart])
    expect(all.map((l) => l.transactionHash)).toEqual(expect.arrayContaining([hash, hash2]))
    for (const f of [id, other, past, fromStart]) expect(await result('eth_uninstallFilter', [f])).toBe(true)
  })

  it('eth_getLogs answers the bytes of the formatted logs (eth_getFilterLogs), alone, in a batch and over WebSocket', async () => {
    const head = await result<string>('eth_blockNumber')
    const filter = { address: storeAddress, fromBlock: '0x0', toBlock: head }
    const id = await result<string>('eth_newFilter', [filter])
    const post = async (body: unknown): Promise<string> =>
      (await fetch(t.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).text()
    const call = (method: string, params: unknown[], n = 1) => ({ jsonrpc: '2.0', id: n, method, params })
    const formatted = await post(call('eth_getFilterLogs', [id]))
    expect((JSON.parse(formatted) as { result: LogJson[] }).result.length).toBeGreaterThan(1)
    expect(await post(call('eth_getLogs', [filter]))).toBe(formatted)
    const batch = await post([call('eth_getLogs', [filter], 1), call('eth_chainId', [], 2), call('eth_getFilterLogs', [id], 3)])
    expect(batch).toBe(`[${formatted},${await post(call('eth_chainId', [], 2))},${formatted.replace('"id":1', '"id":3')}]`)
    const ws = await RawWsClient.connect(t.addresses.jsonRpcWs!)
    try {
      await ws.request('eth_getLogs', [filter])
      expect(ws.frames.at(-1)).toBe(formatted)
    } finally {
      await ws.close()
    }
    expect(await result('eth_uninstallFilter', [id])).toBe(true)
  })

  it('eth_getFilterLogs on a block or pending filter → -32000 naming the filter', async () => {
    const blocks = await result('eth_newBlockFilter')
    const pending = await result('eth_newPendingTransactionFilter')
    expect((await rpc(t.url, 'eth_getFilterLogs', [blocks])).error).toEqual({
      code: -32000,
      message: `filter ${blocks} doesn't have a LogsSubscription type`,
    })
    expect((await rpc(t.url, 'eth_getFilterLogs', [pending])).error).toEqual({
      code: -32000,
      message: `filter ${pending} doesn't have a LogsSubscription type`,
    })
    await result('eth_uninstallFilter', [blocks])
    await result('eth_uninstallFilter', [pending])
  })

  it('unknown ids: changes and logs → -32000 filter not found; uninstall → false; uninstall twice → true then false', async () => {
    const unknown = '0x' + 'ab'.repeat(16)
    expect((await rpc(t.url, 'eth_getFilterChanges', [unknown])).error).toEqual({ code: -32000, message: 'filter not found' })
    expect((await rpc(t.url, 'eth_getFilterLogs', [unknown])).error).toEqual({ code: -32000, message: 'filter not found' })
    expect(await result('eth_uninstallFilter', [unknown])).toBe(false)
    const id = await result('eth_newBlockFilter')
    expect(await result('eth_uninstallFilter', [id])).toBe(true)
    expect(await result('eth_uninstallFilter', [id])).toBe(false)
    expect((await rpc(t.url, 'eth_getFilterChanges', [id])).error).toEqual({ code: -32000, message: 'filter not found' })
  })

  it('rejects bad filter arguments', async () => {
    expect((await rpc(t.url, 'eth_newFilter', [{ fromBlock: '0x10', toBlock: '0x5' }])).error).toEqual({
      code: -32000,
      message: 'invalid from and to block combination',
    })
    expect((await rpc(t.url, 'eth_newFilter', [{ blockHash: '0x' + '11'.repeat(32), fromBlock: '0x1' }])).error?.code).toBe(-32602)
    expect((await rpc(t.url, 'eth_getFilterChanges', [7])).error).toEqual({
      code: -32602,
      message: 'invalid argument 0: json: cannot unmarshal number into Go value of type rpc.ID',
    })
    expect((await rpc(t.url, 'eth_newBlockFilter', [true])).error?.code).toBe(-32602)
  })

  it('expires a filter not polled within the timeout; polling keeps it alive', async () => {
    const idle = await result('eth_newBlockFilter')
    const polled = await result('eth_newBlockFilter')
    // Two timeouts pass on the injected clock; `polled` is polled every fifth of one.
    for (let i = 0; i < 10; i++) {
      await result('eth_getFilterChanges', [polled])
      filterClock += FILTER_TIMEOUT / 5
    }
    expect((await rpc(t.url, 'eth_getFilterChanges', [idle])).error).toEqual({ code: -32000, message: 'filter not found' })
    expect(await result('eth_uninstallFilter', [idle])).toBe(false)
    expect(Array.isArray(await result('eth_getFilterChanges', [polled]))).toBe(true)
    expect(await result('eth_uninstallFilter', [polled])).toBe(true)
  })

  it(`filter-cap: all kinds together, then -32000 error creating filter: max limit reached`, async () => {
    const created: string[] = []
    let error: { code: number; message: string } | undefined
    for (let i = 0; i <= FILTER_CAP && error === undefined; i++) {
      const method = ['eth_newBlockFilter', 'eth_newPendingTransactionFilter', 'eth_newFilter'][i % 3]!
      const reply = await rpc<string>(t.url, method, method === 'eth_newFilter' ? [{}] : [])
      if (reply.error) error = reply.error
      else created.push(reply.result!)
    }
    expect(error).toEqual({ code: -32000, message: 'error creating filter: max limit reached' })
    expect(created.length).toBeLessThanOrEqual(FILTER_CAP)
    // Uninstalling frees a place.
    expect(await result('eth_uninstallFilter', [created.pop()])).toBe(true)
    created.push(await result<string>('eth_newBlockFilter'))
    for (const id of created) await result('eth_uninstallFilter', [id])
  })

  it('serves the same filters over WebSocket as over HTTP', async () => {
    const ws = await RawWsClient.connect(t.addresses.jsonRpcWs!)
    try {
      const id = await ws.call<string>('eth_newBlockFilter')
      expect(id).toMatch(FILTER_ID)
      await waitFor(async () => (await ws.call<string[]>('eth_getFilterChanges', [id])).length > 0 || undefined, 10_000, 'a block over ws')
      expect(Array.isArray(await result('eth_getFilterChanges', [id]))).toBe(true)
      expect(await ws.call('eth_uninstallFilter', [id])).toBe(true)
      expect((await ws.request('eth_getFilterChanges', [id])).error).toEqual({ code: -32000, message: 'filter not found' })
    } finally {
      await ws.close()
    }
  })

  it('ethers JsonRpcProvider: contract.on polls a log filter', async () => {
    const watcher = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 100, cacheTimeout: -1 })
    const methods: string[] = []
    let inFlight = 0
    await watcher.on('debug', (info: { action: string; payload?: { method: string } | { method: string }[] }) => {
      if (info.action === 'receiveRpcResult' || info.action === 'receiveRpcError') inFlight--
      if (info.action !== 'sendRpcPayload' || info.payload === undefined) return
      inFlight++
      for (const p of Array.isArray(info.payload) ? info.payload : [info.payload]) methods.push(p.method)
    })
    try {
      const watched = new Contract(storeAddress, Store!.abi as never, watcher)
      const events: { value: bigint; note: string }[] = []
      await watched.on('ValueChanged', (_by: string, value: bigint, note: string) => {
        events.push({ value, note })
      })
      await waitFor(() => methods.includes('eth_newFilter'), 10_000, 'ethers to install its filter')
      await setValue(321n, 'polled by ethers')
      await waitFor(() => events.length >= 1, 10_000, 'ValueChanged via filter')
      expect(events[0]).toEqual({ value: 321n, note: 'polled by ethers' })
      expect(methods).toContain('eth_getFilterChanges')
      await watched.removeAllListeners()
      // ethers uninstalls the filter without awaiting it: let that request (and any poll) be answered.
      await waitFor(() => methods.includes('eth_uninstallFilter') && inFlight === 0, 10_000, 'ethers to uninstall its filter')
    } finally {
      watcher.destroy()
    }
  })

  describe('viem over polling http()', () => {
    const account = privateKeyToAccount(A3!.privateKey as Hex)
    const abi = Token!.abi as Abi
    const chain = { ...foundry }
    let token: Hex
    const methods: string[] = []
    let client: ReturnType<typeof createPublicClient>
    let wallet: ReturnType<typeof createWalletClient>

    beforeAll(async () => {
      const transport = http(t.url, {
        onFetchRequest: async (request) => {
          const body = JSON.parse(await request.clone().text())
          for (const call of Array.isArray(body) ? body : [body]) methods.push(call.method)
        },
      })
      client = createPublicClient({ chain, transport, pollingInterval: 100 })
      wallet = createWalletClient({ account, chain, transport: http(t.url) })
      const hash = await wallet.deployContract({ abi, bytecode: Token!.bytecode as Hex, args: [1_000_000n], account, chain })
      token = (await client.waitForTransactionReceipt({ hash })).contractAddress!
    })

    it('watchContractEvent uses eth_newFilter / eth_getFilterChanges', async () => {
      const logs: { to: string; value: bigint }[] = []
      const unwatch = client.watchContractEvent({
        address: token,
        abi,
        eventName: 'Transfer',
        onLogs: (batch) => {
          for (const log of batch) logs.push((log as unknown as { args: { to: string; value: bigint } }).args)
        },
      })
      try {
        await waitFor(() => methods.includes('eth_newFilter'), 10_000, 'viem to install its filter')
        await wallet.writeContract({ address: token, abi, functionName: 'transfer', args: [A1!.address, 66n], account, chain })
        await waitFor(() => logs.length >= 1, 10_000, 'Transfer via filter')
        expect(logs[0]).toEqual({ from: account.address, to: A1!.address, value: 66n })
        expect(methods).toContain('eth_getFilterChanges')
      } finally {
        unwatch()
      }
    })

    it('watchPendingTransactions uses a pending-transaction filter', async () => {
      const seen: Hex[] = []
      const unwatch = client.watchPendingTransactions({ onTransactions: (hashes) => seen.push(...hashes) })
      try {
        await waitFor(() => methods.includes('eth_newPendingTransactionFilter'), 10_000, 'viem to install its filter')
        const hash = await wallet.sendTransaction({ to: A1!.address as Hex, value: 2n, account, chain })
        await waitFor(() => seen.includes(hash), 10_000, 'pending hash via filter')
      } finally {
        unwatch()
      }
    })

    it('watchBlocks polls blocks whose hashes chain (emitMissed: every block once)', async () => {
      const blocks: { number: bigint; hash: Hex; parentHash: Hex }[] = []
      const unwatch = client.watchBlocks({
        emitMissed: true,
        onBlock: (b) => blocks.push({ number: b.number!, hash: b.hash!, parentHash: b.parentHash }),
      })
      try {
        await waitFor(() => blocks.length >= 3, 10_000, 'three blocks')
        for (let i = 1; i < blocks.length; i++) {
          expect(blocks[i]!.number).toBe(blocks[i - 1]!.number + 1n)
          expect(blocks[i]!.parentHash).toBe(blocks[i - 1]!.hash)
        }
      } finally {
        unwatch()
      }
    })
  })
})
