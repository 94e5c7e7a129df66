/**
 * The event query language, the kv indexer and consensus-RPC subscriptions against a real dev node:
 * tx_search by EVM hash (any hex case, JSON-RPC and the URI form), by height with pagination and
 * order; block_search; raw WebSocket subscriptions to NewBlock and to a recipient's Tx; cosmjs
 * Comet38Client's subscribeNewBlock and txSearch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Comet38Client } from '@cosmjs/tendermint-rpc'
import { JsonRpcProvider, Wallet, getBytes, parseEther, type TransactionReceipt } from 'ethers'
import { hashTx } from '../../src/comet/hash.js'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { bytesToUpperHex } from '../../src/primitives/hex.js'
import type { CometBlockSearch, CometTxSearch } from '../../src/cli/comet-types.js'
import { startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'
import { RawWsClient } from '../helpers/ws-client.js'

const [KEY0] = devAccounts(3).map((a) => a.privateKey)
const CAROL = devAccounts(3)[2]!.address

/** A consensus JSON-RPC reply whose result has the shape `R`. */
interface CometReply<R> {
  result?: R
  error?: { code: number; message: string; data?: string }
}

/** A consensus JSON-RPC call over HTTP POST with params by name. */
async function cometCall<R>(url: string, method: string, params: Record<string, unknown>): Promise<CometReply<R>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return (await res.json()) as CometReply<R>
}

describe('consensus events, indexer and subscriptions against a dev node', () => {
  let t: TestNode
  let url: string
  let wsUrl: string
  let provider: JsonRpcProvider
  let ws: RawWsClient
  const sent: { raw: string; receipt: TransactionReceipt }[] = []

  beforeAll(async () => {
    t = await startTestNode()
    url = t.addresses.cometRpc!.replace(/^tcp:\/\//, 'http://')
    wsUrl = `${url.replace(/^http/, 'ws')}/websocket`
    await waitFor(() => t.node.components.blockStore.height() >= 2, 20_000, 'height 2')
    provider = new JsonRpcProvider(t.url, undefined, { staticNetwork: true, pollingInterval: 50, cacheTimeout: -1 })
    ws = await RawWsClient.connect(wsUrl)
    expect(await ws.call('subscribe', ["tm.event='NewBlock'"])).toEqual({})
    // The recipient in upper case: addresses match regardless of hex letter case.
    expect((await ws.request('subscribe', [`tm.event='Tx' AND ethereum.recipient='0x${CAROL.slice(2).toUpperCase()}'`])).result).toEqual({})
    const alice = new Wallet(KEY0!, provider)
    for (let i = 0; i < 2; i++) {
      const raw = await alice.signTransaction(await alice.populateTransaction({ to: CAROL, value: parseEther('1') }))
      const receipt = (await (await provider.broadcastTransaction(raw)).wait())!
      expect(receipt.status).toBe(1)
      sent.push({ raw, receipt })
    }
    await waitFor(() => t.node.components.blockStore.height() >= sent[1]!.receipt.blockNumber, 5000, 'block in store')
  })
  afterAll(async () => {
    await ws?.close()
    provider?.destroy()
    await t?.destroy()
  })

  it('tx_search finds an EVM tx by its EVM hash in upper- and lower-case hex', async () => {
    const { raw, receipt } = sent[0]!
    const consensusHash = bytesToUpperHex(hashTx(getBytes(raw)))
    for (const evmHash of [receipt.hash.toLowerCase(), `0x${receipt.hash.slice(2).toUpperCase()}`]) {
      const r = await cometCall<CometTxSearch>(url, 'tx_search', { query: `ethereum_tx.ethereumTxHash='${evmHash}'` })
      expect(r.error).toBeUndefined()
      expect(r.result!.total_count).toBe('1')
      const [tx] = r.result!.txs
      expect(tx!.hash).toBe(consensusHash)
      expect(tx!.height).toBe(String(receipt.blockNumber))
      const attrs = tx!.tx_result.events!.find((e) => e.type === 'ethereum_tx')!.attributes!
      expect(attrs.find((a) => a.key === 'txHash')!.value).toBe(consensusHash)
    }
  })

  it('tx_search in the URI form, URL-encoded, with accept: application/json', async () => {
    const { receipt } = sent[1]!
    const res = await fetch(`${url}/tx_search?query=${encodeURIComponent(`"ethereum_tx.ethereumTxHash='${receipt.hash}'"`)}`, {
      headers: { accept: 'application/json' },
    })
    const body = (await res.json()) as { id: number; result: { total_count: string; txs: { height: string }[] } }
    expect(body.id).toBe(-1)
    expect(body.result.total_count).toBe('1')
    expect(body.result.txs[0]!.height).toBe(String(receipt.blockNumber))
  })

  it('tx_search by tx.height, and paginated and ordered over a height range', async () => {
    const h = sent[0]!.receipt.blockNumber
    const byHeight = (await cometCall<CometTxSearch>(url, 'tx_search', { query: `tx.height=${h}` })).result!
    expect(byHeight.txs.every((x) => x.height === String(h))).toBe(true)
    expect(byHeight.txs.length).toBeGreaterThanOrEqual(1)
    const query = `tm.event='Tx' AND ethereum.recipient='${CAROL}' AND tx.height>=1`
    const asc1 = (await cometCall<CometTxSearch>(url, 'tx_search', { query, per_page: '1', page: '1', order_by: 'asc' })).result!
    const asc2 = (await cometCall<CometTxSearch>(url, 'tx_search', { query, per_page: '1', page: '2', order_by: 'asc' })).result!
    const desc1 = (await cometCall<CometTxSearch>(url, 'tx_search', { query, per_page: '1', page: '1', order_by: 'desc' })).result!
    expect(asc1.total_count).toBe('2')
    expect(asc1.txs).toHaveLength(1)
    const first = bytesToUpperHex(hashTx(getBytes(sent[0]!.raw)))
    const second = bytesToUpperHex(hashTx(getBytes(sent[1]!.raw)))
    expect(asc1.txs[0]!.hash).toBe(first)
    expect(asc2.txs[0]!.hash).toBe(second)
    expect(desc1.txs[0]!.hash).toBe(second)
    const beyond = await cometCall(url, 'tx_search', { query, per_page: '1', page: '3' })
    expect(beyond.error?.data).toBe('page should be within [1, 2] range, given 3')
  })

  it('a malformed query is the handler error -32603 (as CometBFT), with the position of the fault', async () => {
    const r = await cometCall(url, 'tx_search', { query: "tm.event='Tx' OR tx.height=1" })
    expect(r.error?.code).toBe(-32603)
    expect(r.error?.message).toBe('Internal error')
    expect(r.error?.data).toBe('offset 14: expected "AND" or end of query, found "OR"')
  })

  it('block_search by block.height range', async () => {
    const latest = t.node.components.blockStore.height()
    const range = { query: 'block.height>1', order_by: 'asc', per_page: '100' }
    const r = (await cometCall<CometBlockSearch>(url, 'block_search', range)).result!
    expect(Number(r.total_count)).toBeGreaterThanOrEqual(latest - 1)
    expect(r.blocks[0]!.block.header.height).toBe('2')
    const feeQuery = `fee_market.base_fee EXISTS AND block.height=${latest}`
    const fee = (await cometCall<CometBlockSearch>(url, 'block_search', { query: feeQuery })).result!
    expect(fee.blocks.map((b) => b.block.header.height)).toEqual([String(latest)])
  })

  it('a raw WebSocket subscription receives NewBlock at consecutive heights', async () => {
    const subId = 1
    await waitFor(
      () => ws.frames.map((f) => JSON.parse(f)).filter((f) => f.id === subId && f.result?.data).length >= 3,
      15_000,
      'three NewBlock events',
    )
    const pushes = ws.frames.map((f) => JSON.parse(f)).filter((f) => f.id === subId && f.result?.data)
    expect(pushes[0].result.query).toBe("tm.event='NewBlock'")
    expect(pushes[0].result.data.type).toBe('tendermint/event/NewBlock')
    expect(pushes[0].result.events['tm.event']).toEqual(['NewBlock'])
    expect(pushes[0].result.data.value.result_finalize_block.app_hash).toEqual(expect.any(String))
    const heights = pushes.map((p) => Number(p.result.data.value.block.header.height))
    for (let i = 1; i < heights.length; i++) expect(heights[i]).toBe(heights[i - 1]! + 1)
  })

  it("tm.event='Tx' AND ethereum.recipient='<hex>' receives the txs", async () => {
    const subId = 2
    const pushes = ws.frames.map((f) => JSON.parse(f)).filter((f) => f.id === subId && f.result?.data)
    expect(pushes).toHaveLength(2)
    expect(pushes[0].result.data.type).toBe('tendermint/event/Tx')
    expect(pushes[0].result.data.value.TxResult.tx).toBe(Buffer.from(getBytes(sent[0]!.raw)).toString('base64'))
    expect(pushes[0].result.events['tx.hash']).toEqual([bytesToUpperHex(hashTx(getBytes(sent[0]!.raw)))])
    expect(pushes[0].result.events['tx.height']).toEqual([String(sent[0]!.receipt.blockNumber)])
    expect(pushes[0].result.events['ethereum_tx.ethereumTxHash']).toEqual([sent[0]!.receipt.hash])
  })

  it('unsubscribe, errors with CometBFT texts, and cleanup on close', async () => {
    const c = await RawWsClient.connect(wsUrl)
    await c.call('subscribe', ["tm.event='NewRoundStep'"])
    expect((await c.request('subscribe', ["tm.event = 'NewRoundStep'"])).error).toMatchObject({ code: -32603 })
    expect(JSON.parse(c.frames.at(-1)!).error.data).toBe('already subscribed')
    const bad = await c.request('subscribe', ["tm.event=='x'"])
    expect(bad.error?.code).toBe(-32603)
    expect(JSON.parse(c.frames.at(-1)!).error.data).toMatch(/^failed to parse query: /)
    expect(await c.call('unsubscribe', ["tm.event='NewRoundStep'"])).toEqual({})
    const missing = await c.request('unsubscribe', ["tm.event='NewRoundStep'"])
    expect(JSON.parse(c.frames.at(-1)!).error.data).toBe('subscription not found')
    expect(missing.error?.code).toBe(-32603)
    await c.call('subscribe', ["tm.event='Vote'"])
    expect(await c.call('unsubscribe_all', [])).toEqual({})
    await c.call('subscribe', ["tm.event='Vote'"])
    const stats = () =>
      (t.node as unknown as { cometSubscriptions: { stats(): { clients: number; subscriptions: number } } }).cometSubscriptions.stats()
    expect(stats()).toEqual({ clients: 2, subscriptions: 3 })
    await c.close()
    // Only the main connection's two subscriptions remain once the socket is gone.
    await waitFor(() => stats().clients === 1, 5000, 'cleanup on close')
    expect(stats()).toEqual({ clients: 1, subscriptions: 2 })
  })

  it('cosmjs Comet38Client: subscribeNewBlock and txSearch', async () => {
    // cosmjs appends /websocket itself.
    const client = await Comet38Client.connect(url.replace(/^http/, 'ws'))
    try {
      const heights: number[] = []
      await new Promise<void>((resolve, reject) => {
        const sub = client.subscribeNewBlock().subscribe({
          next: (ev) => {
            heights.push(ev.header.height)
            if (heights.length === 3) {
              sub.unsubscribe()
              resolve()
            }
          },
          error: reject,
        })
      })
      expect(heights[1]).toBe(heights[0]! + 1)
      expect(heights[2]).toBe(heights[1]! + 1)
      const found = await client.txSearch({ query: `ethereum_tx.ethereumTxHash='${sent[0]!.receipt.hash}'` })
      expect(found.totalCount).toBe(1)
      expect(found.txs[0]!.height).toBe(sent[0]!.receipt.blockNumber)
      expect(bytesToUpperHex(found.txs[0]!.hash)).toBe(bytesToUpperHex(hashTx(getBytes(sent[0]!.raw))))
    } finally {
      client.disconnect()
    }
  })
})

describe('[tx_index] indexer = "null"', () => {
  it('tx, tx_search and block_search answer that indexing is disabled; nothing is indexed', async () => {
    const { mkdtemp, readFile, writeFile } = await import('node:fs/promises')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const { initDevHome } = await import('../../src/config/init-home.js')
    const { testNodeSettings } = await import('../../src/node/test-settings.js')
    const home = await mkdtemp(join(tmpdir(), 'nodectl-test-'))
    await initDevHome(home, { settings: testNodeSettings() })
    const configPath = join(home, 'config', 'config.toml')
    const text = await readFile(configPath, 'utf8')
    expect(text).toMatch(/^\[tx_index\][\s\S]*?^indexer = "kv"/m)
    await writeFile(configPath, text.replace(/^(\[tx_index\][\s\S]*?^indexer = )"kv"/m, '$1"null"'))
    const t = await startTestNode({ home })
    try {
      expect(t.node.components.indexer).toBeUndefined()
      const url = t.addresses.cometRpc!.replace(/^tcp:\/\//, 'http://')
      await waitFor(() => t.node.components.blockStore.height() >= 1, 20_000, 'height 1')
      expect((await cometCall(url, 'tx_search', { query: 'tx.height=1' })).error?.data).toBe('transaction indexing is disabled')
      expect((await cometCall(url, 'block_search', { query: 'block.height=1' })).error?.data).toBe('block indexing is disabled')
      expect((await cometCall(url, 'tx', { hash: Buffer.alloc(32).toString('base64') })).error?.data).toBe(
        'transaction indexing is disabled',
      )
    } finally {
      await t.destroy()
    }
  })
})
