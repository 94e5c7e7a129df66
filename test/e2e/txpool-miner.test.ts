/**
 * The txpool and miner namespaces against a real dev node: geth's txpool shapes over the real pool
 * (a nonce gap shows `queued`), the pending block, and the miner methods: the minimum gas price applied
 * at once and written to app.toml (not when a flag set it), the etherbase carried in this validator's
 * proposals and kept across a restart, the unsupported methods' errors.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Wallet, getAddress, type TransactionRequest } from 'ethers'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'
import type { BlockJson, ReceiptJson, TransactionJson } from '../../src/api/eth/format.js'
import type { PendingBlockJson } from '../../src/api/eth/eth-pending.js'

const CHAIN_ID = 31337n
const GWEI = 10n ** 9n
const [A, B, C, D] = devAccounts(4).map((a) => new Wallet(a.privateKey))

/** Signs an EIP-1559 transaction (10 gwei cap, 1 gwei tip unless given). */
function sign(wallet: Wallet, tx: TransactionRequest): Promise<string> {
  return wallet.signTransaction({
    chainId: CHAIN_ID,
    type: 2,
    gasLimit: 21_000n,
    maxFeePerGas: 10n * GWEI,
    maxPriorityFeePerGas: GWEI,
    ...tx,
  })
}

/** txpool_content and txpool_inspect: sender (EIP-55) → nonce (decimal) → entry. */
interface PoolJson<T> {
  pending: Record<string, Record<string, T>>
  queued: Record<string, Record<string, T>>
}

/** Sends a JSON-RPC batch and returns the replies, results of shape `R`, in request order. */
async function batch<R = unknown>(
  url: string,
  calls: [string, unknown[]][],
): Promise<{ result?: R; error?: { code: number; message: string } }[]> {
  const body = calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params }))
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const replies = (await res.json()) as { id: number }[]
  return replies.sort((x, y) => x.id - y.id) as never
}

/** The result of a call, of the shape `T` the caller expects; throws on an error reply. */
async function result<T>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const r = await rpc(url, method, params)
  if (r.error) throw new Error(`${method}: ${r.error.message}`)
  return r.result as T
}

async function nonceOf(url: string, wallet: Wallet): Promise<number> {
  return Number(await result(url, 'eth_getTransactionCount', [wallet.address, 'latest']))
}

describe('txpool namespace', () => {
  let t: TestNode
  beforeAll(async () => {
    t = await startTestNode()
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('shows pending and queued transactions in geth shapes, then empties as they are mined', async () => {
    const a = await nonceOf(t.url, A!)
    const b = await nonceOf(t.url, B!)
    const queuedTransfer = await sign(A!, { to: C!.address, nonce: a + 1, value: 5n })
    const queuedCreate = await sign(A!, { nonce: a + 2, gasLimit: 100_000n, data: '0x6001600055' })
    const pending = await sign(B!, { to: C!.address, nonce: b, value: 7n })
    // One batch: the calls after eth_sendRawTransaction run before any block can include the tx.
    const [r1, r2, r3, content, inspect, status, from, pendingBlock, pendingTxs, pendingCount] = await batch(t.url, [
      ['eth_sendRawTransaction', [queuedTransfer]],
      ['eth_sendRawTransaction', [queuedCreate]],
      ['eth_sendRawTransaction', [pending]],
      ['txpool_content', []],
      ['txpool_inspect', []],
      ['txpool_status', []],
      ['txpool_contentFrom', [A!.address.toLowerCase()]],
      ['eth_getBlockByNumber', ['pending', true]],
      ['eth_getPendingTransactions', []],
      ['eth_getBlockTransactionCountByNumber', ['pending']],
    ])
    for (const r of [r1, r2, r3]) expect(r!.error).toBeUndefined()

    // Keys: the sender in EIP-55 form, then the nonce in decimal.
    const pool = content!.result as PoolJson<TransactionJson>
    const lines = inspect!.result as PoolJson<string>
    expect(Object.keys(pool.queued)).toEqual([getAddress(A!.address)])
    expect(Object.keys(pool.queued[A!.address])).toEqual([String(a + 1), String(a + 2)])
    const queuedTx = pool.queued[A!.address][String(a + 1)]
    expect(queuedTx).toMatchObject({
      hash: r1!.result,
      from: A!.address.toLowerCase(),
      to: C!.address.toLowerCase(),
      nonce: `0x${(a + 1).toString(16)}`,
      value: '0x5',
      blockHash: null,
      blockNumber: null,
      transactionIndex: null,
      gasPrice: '0x' + (10n * GWEI).toString(16),
    })
    expect(pool.pending[B!.address][String(b)]).toMatchObject({ hash: r3!.result, value: '0x7' })

    expect(lines.pending[B!.address][String(b)]).toBe(`${C!.address}: 7 wei + 21000 gas × ${10n * GWEI} wei`)
    expect(lines.queued[A!.address][String(a + 1)]).toBe(`${C!.address}: 5 wei + 21000 gas × ${10n * GWEI} wei`)
    expect(lines.queued[A!.address][String(a + 2)]).toBe(`contract creation: 0 wei + 100000 gas × ${10n * GWEI} wei`)

    expect(status!.result).toEqual({ pending: '0x1', queued: '0x2' })
    expect(from!.result).toEqual({
      pending: {},
      queued: { [String(a + 1)]: queuedTx, [String(a + 2)]: pool.queued[A!.address][String(a + 2)] },
    })

    // The pending block: latest + 1 on top of the latest hash, the pool's proposal order, not sealed.
    const latest = await result<BlockJson>(t.url, 'eth_getBlockByNumber', ['latest', false])
    const block = pendingBlock!.result as PendingBlockJson & { transactions: TransactionJson[] }
    expect(block).toMatchObject({ hash: null, nonce: null, miner: null })
    expect(BigInt(block.number)).toBeGreaterThan(0n)
    expect(block.transactions.map((tx) => tx.hash)).toEqual([r3!.result])
    expect(block.transactions[0]).toMatchObject({ blockHash: null, from: B!.address.toLowerCase() })
    expect(BigInt(block.number)).toBeLessThanOrEqual(BigInt(latest.number) + 1n)
    expect((pendingTxs!.result as TransactionJson[]).map((tx) => tx.hash)).toEqual([r3!.result])
    expect(pendingCount!.result).toBe('0x1')

    // The pending tx is mined; the queued ones wait for the gap...
    await waitFor(
      async () => (await result<{ pending: string }>(t.url, 'txpool_status')).pending === '0x0',
      20_000,
      'the pending tx to be mined',
    )
    expect(await result(t.url, 'txpool_status')).toEqual({ pending: '0x0', queued: '0x2' })
    // ...which a transaction with the missing nonce fills: all three are promoted and mined.
    const filler = await result(t.url, 'eth_sendRawTransaction', [await sign(A!, { to: C!.address, nonce: a, value: 1n })])
    await waitFor(
      async () => (await result(t.url, 'eth_getTransactionReceipt', [r2!.result])) !== null,
      20_000,
      'the queued txs to be mined',
    )
    expect(await result(t.url, 'eth_getTransactionReceipt', [filler])).not.toBeNull()
    expect(await result(t.url, 'txpool_status')).toEqual({ pending: '0x0', queued: '0x0' })
    expect(await result(t.url, 'txpool_content')).toEqual({ pending: {}, queued: {} })
    expect(await result(t.url, 'eth_getPendingTransactions')).toEqual([])
  })

  it('builds an empty pending block on top of the head when the pool is empty', async () => {
    const replies = await batch<BlockJson | PendingBlockJson>(t.url, [
      ['eth_getBlockByNumber', ['latest', false]],
      ['eth_getBlockByNumber', ['pending', false]],
      ['eth_getHeaderByNumber', ['pending']],
    ])
    const [latest, pending, header] = replies.map((r) => r.result!)
    expect(BigInt(pending.number)).toBe(BigInt(latest.number) + 1n)
    expect(pending.parentHash).toBe(latest.hash)
    expect(pending.transactions).toEqual([])
    expect(pending.transactionsRoot).toBe('0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421')
    expect(header).not.toHaveProperty('transactions')
    expect(header.hash).toBeNull()
  })

  it('answers eth_getHeaderByNumber / ByHash with the block minus its transactions and withdrawals', async () => {
    const block = await result<BlockJson>(t.url, 'eth_getBlockByNumber', ['0x1', false])
    const byNumber = await result(t.url, 'eth_getHeaderByNumber', ['0x1'])
    const byHash = await result(t.url, 'eth_getHeaderByHash', [block.hash])
    const { transactions: _txs, withdrawals: _withdrawals, ...header } = block
    expect(byNumber).toEqual(header)
    expect(byHash).toEqual(header)
    expect(await result(t.url, 'eth_getHeaderByNumber', ['0xffffff'])).toBeNull()
    expect(await result(t.url, 'eth_getHeaderByHash', ['0x' + '00'.repeat(32)])).toBeNull()
  })
})

describe('miner namespace', () => {
  let t: TestNode
  beforeAll(async () => {
    t = await startTestNode()
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('answers the proof-of-work and unsupported methods as decided', async () => {
    expect(await rpc(t.url, 'miner_getHashrate')).toMatchObject({ result: 0 })
    expect(await rpc(t.url, 'miner_stop')).toMatchObject({ result: null })
    expect((await rpc(t.url, 'miner_setExtra', ['x'.repeat(33)])).error).toEqual({
      code: -32000,
      message: 'extra exceeds max length. 33 > 32',
    })
    expect((await rpc(t.url, 'miner_setExtra', ['nodectl'])).error).toEqual({
      code: -32000,
      message: 'unsupported rpc function: miner_setExtra',
    })
    expect((await rpc(t.url, 'miner_start', [])).error).toEqual({ code: -32000, message: 'unsupported rpc function: miner_start' })
    expect((await rpc(t.url, 'miner_start', [1])).error).toEqual({ code: -32000, message: 'unsupported rpc function: miner_start' })
    // Evmos `Start(threads *int)`: a hex string is not a JSON integer.
    expect((await rpc(t.url, 'miner_start', ['0x1'])).error).toEqual({
      code: -32602,
      message: 'invalid argument 0: json: cannot unmarshal string into Go value of type int',
    })
    expect((await rpc(t.url, 'miner_setGasLimit', ['0x1c9c380'])).error).toEqual({
      code: -32000,
      message: 'unsupported rpc function: miner_setGasLimit',
    })
    expect((await rpc(t.url, 'miner_setGasPrice', ['1'])).error?.code).toBe(-32602)
  })

  it('miner_setGasPrice applies the minimum at once and writes it to app.toml', async () => {
    expect(await rpc(t.url, 'miner_setGasPrice', ['0x' + (5n * GWEI).toString(16)])).toMatchObject({ result: true })
    expect(await readFile(join(t.home, 'config/app.toml'), 'utf8')).toMatch(/^minimum-gas-prices = "5000000000anodectl"$/m)
    const nonce = await nonceOf(t.url, A!)
    const cheap = await rpc(t.url, 'eth_sendRawTransaction', [
      await sign(A!, { to: B!.address, nonce, value: 1n, maxPriorityFeePerGas: GWEI }),
    ])
    expect(cheap.error).toMatchObject({ code: -32000, message: expect.stringContaining('transaction underpriced') })
    const enough = await rpc(t.url, 'eth_sendRawTransaction', [
      await sign(A!, { to: B!.address, nonce, value: 1n, maxPriorityFeePerGas: 5n * GWEI }),
    ])
    expect(enough.error).toBeUndefined()
    await waitFor(
      async () => (await result(t.url, 'eth_getTransactionReceipt', [enough.result])) !== null,
      20_000,
      'the priced tx to be mined',
    )
    expect(await rpc(t.url, 'miner_setGasPrice', ['0x0'])).toMatchObject({ result: true })
    expect(await readFile(join(t.home, 'config/app.toml'), 'utf8')).toMatch(/^minimum-gas-prices = "0anodectl"$/m)
  })

  it('miner_setEtherbase makes this validator name the coinbase of its next blocks, across a restart', async () => {
    const etherbase = getAddress('0x' + 'e7'.repeat(20))
    const receiptOf = (tx: string) => result<ReceiptJson | null>(t.url, 'eth_getTransactionReceipt', [tx])
    expect(await rpc(t.url, 'miner_setEtherbase', [etherbase])).toMatchObject({ result: true })
    expect(await result(t.url, 'eth_coinbase')).toBe(etherbase.toLowerCase())
    const before = BigInt(await result<string>(t.url, 'eth_getBalance', [etherbase, 'latest']))
    const hash = await result<string>(t.url, 'eth_sendRawTransaction', [
      await sign(D!, { to: C!.address, nonce: await nonceOf(t.url, D!), value: 1n, maxPriorityFeePerGas: 2n * GWEI }),
    ])
    const receipt = await waitFor(() => receiptOf(hash), 20_000, 'the tx to be mined')
    const block = await result<BlockJson>(t.url, 'eth_getBlockByNumber', [receipt.blockNumber, false])
    expect(block.miner).toBe(etherbase.toLowerCase())
    // The tip went to the etherbase: every node executing the block credits the same account.
    const after = BigInt(await result<string>(t.url, 'eth_getBalance', [etherbase, receipt.blockNumber]))
    expect(after - before).toBe(BigInt(receipt.gasUsed) * 2n * GWEI)
    expect(JSON.parse(await readFile(join(t.home, 'data/fee_recipient.json'), 'utf8'))).toEqual({ fee_recipient: etherbase.toLowerCase() })

    await t.stop()
    t = await startTestNode({ home: t.home })
    expect(await result(t.url, 'eth_coinbase')).toBe(etherbase.toLowerCase())
    // The restarted node replayed nothing differently: the block keeps its miner, new blocks carry it too.
    expect((await result<BlockJson>(t.url, 'eth_getBlockByNumber', [receipt.blockNumber, false])).miner).toBe(etherbase.toLowerCase())
    const next = await result<string>(t.url, 'eth_sendRawTransaction', [
      await sign(D!, { to: C!.address, nonce: await nonceOf(t.url, D!), value: 1n }),
    ])
    const nextReceipt = await waitFor(() => receiptOf(next), 20_000, 'the next tx to be mined')
    expect((await result<BlockJson>(t.url, 'eth_getBlockByNumber', [nextReceipt.blockNumber, false])).miner).toBe(etherbase.toLowerCase())
  })
})

describe('miner namespace with --minimum-gas-prices, and disabled', () => {
  it('applies miner_setGasPrice but leaves app.toml alone when the flag set the price', async () => {
    const t = await startTestNode({ flags: { 'minimum-gas-prices': '1gwei' } })
    try {
      const appToml = await readFile(join(t.home, 'config/app.toml'), 'utf8')
      expect(await rpc(t.url, 'miner_setGasPrice', ['0x' + (3n * GWEI).toString(16)])).toMatchObject({ result: true })
      expect(await readFile(join(t.home, 'config/app.toml'), 'utf8')).toBe(appToml)
      const nonce = await nonceOf(t.url, A!)
      const cheap = await rpc(t.url, 'eth_sendRawTransaction', [
        await sign(A!, { to: B!.address, nonce, value: 1n, maxPriorityFeePerGas: 2n * GWEI }),
      ])
      expect(cheap.error?.message).toContain('transaction underpriced')
    } finally {
      await t.destroy()
    }
  })

  it('is not served when --json-rpc.api does not list it', async () => {
    const t = await startTestNode({ flags: { 'json-rpc.api': 'eth,net,web3,txpool' } })
    try {
      expect((await rpc(t.url, 'miner_getHashrate')).error?.code).toBe(-32601)
      expect((await rpc(t.url, 'txpool_status')).result).toEqual({ pending: '0x0', queued: '0x0' })
    } finally {
      await t.destroy()
    }
  })
})
