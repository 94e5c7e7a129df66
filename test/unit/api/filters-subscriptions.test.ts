/**
 * FilterSystem and SubscriptionManager over the FakeBackend with hand-fired chain events: the filter
 * state table with an injected clock (expiry exactly at the timeout), the per-filter entry bound, the
 * cap, listeners attached only while needed, and the notification payloads of each subscription kind.
 */
import { beforeEach, describe, expect, it } from 'vitest'
import { FilterSystem } from '../../../src/api/eth/filters.js'
import { SubscriptionManager } from '../../../src/api/eth/subscriptions.js'
import type { EthBlockEvent, EthEvents, EthPendingTxEvent } from '../../../src/api/eth/events.js'
import { formatBlock, formatTransaction, type BlockJson, type LogJson, type TransactionJson } from '../../../src/api/eth/format.js'
import { defaultEthApiOptions } from '../../../src/api/eth/options.js'
import type { NotificationSink } from '../../../src/rpc/method-table.js'
import { RpcError } from '../../../src/rpc/rpc-errors.js'
import { NodeError } from '../../../src/utils/errors.js'
import { silentLogger } from '../../../src/utils/logger.js'
import { FakeBackend, TOKEN, TRANSFER_TOPIC } from './fake-backend.js'

const hex = (b: Uint8Array): string => '0x' + Buffer.from(b).toString('hex')

class FakeEvents implements EthEvents {
  blocks = new Set<(e: EthBlockEvent) => void>()
  pending = new Set<(e: EthPendingTxEvent) => void>()
  onBlock(listener: (e: EthBlockEvent) => void): () => void {
    this.blocks.add(listener)
    return () => this.blocks.delete(listener)
  }
  onPendingTransaction(listener: (e: EthPendingTxEvent) => void): () => void {
    this.pending.add(listener)
    return () => this.pending.delete(listener)
  }
  async fireBlock(backend: FakeBackend, height: number): Promise<void> {
    const block = backend.blocks[height]!
    const receipts = await backend.getBlockReceipts(block)
    const event = { block, transactions: await backend.getBlockTransactions(block), logs: receipts.flatMap((r) => r.logs) }
    for (const l of this.blocks) l(event)
  }
  firePending(backend: FakeBackend): string {
    const tx = [...backend.pending.values()][0]!
    for (const l of this.pending) l({ hash: tx.hash, transaction: () => tx })
    return hex(tx.hash)
  }
}

/** An `eth_subscription` notification as sent; `R` is the result's shape. */
interface Notification<R> {
  jsonrpc: string
  method: string
  params: { subscription: string; result: R }
}

class FakeSink implements NotificationSink {
  messages: string[] = []
  private closers: (() => void)[] = []
  send(message: string): void {
    this.messages.push(message)
  }
  onClose(callback: () => void): void {
    this.closers.push(callback)
  }
  close(): void {
    for (const c of this.closers.splice(0)) c()
  }
  /** The notifications sent, parsed; `R` is the shape of the results the test reads. */
  parsed<R = unknown>(): Notification<R>[] {
    return this.messages.map((m) => JSON.parse(m) as Notification<R>)
  }
}

describe('FilterSystem', () => {
  let backend: FakeBackend
  let events: FakeEvents
  let now: number
  let filters: FilterSystem

  beforeEach(async () => {
    backend = await FakeBackend.create()
    events = new FakeEvents()
    now = 0
    filters = new FilterSystem(backend, events, defaultEthApiOptions, { cap: 5, timeout: 1_000, maxEntries: 3 }, () => now)
  })

  it('collects block hashes, pool hashes and matching logs, each handed out once', async () => {
    const blocks = filters.newBlockFilter()
    const pending = filters.newPendingTransactionFilter()
    const transfers = filters.newLogFilter({
      blockHash: undefined,
      fromBlock: undefined,
      toBlock: undefined,
      addresses: [TOKEN],
      topics: [[TRANSFER_TOPIC]],
    })
    expect([blocks, pending, transfers].every((id) => /^0x[0-9a-f]{1,32}$/.test(id))).toBe(true)
    await events.fireBlock(backend, 1)
    await events.fireBlock(backend, 2)
    const pooled = events.firePending(backend)
    expect(filters.getFilterChanges(blocks)).toEqual({
      kind: 'hashes',
      hashes: [hex(backend.blocks[1]!.hash), hex(backend.blocks[2]!.hash)],
    })
    expect(filters.getFilterChanges(blocks)).toEqual({ kind: 'hashes', hashes: [] })
    expect(filters.getFilterChanges(pending)).toEqual({ kind: 'hashes', hashes: [pooled] })
    const changes = filters.getFilterChanges(transfers)
    expect(changes.kind === 'logs' && changes.logs.map((l) => [l.blockNumber, hex(l.address)])).toEqual([[1, hex(TOKEN)]])
  })

  it('keeps numeric bounds of a log filter for new logs', async () => {
    const upTo1 = filters.newLogFilter({ blockHash: undefined, fromBlock: 0, toBlock: 1, addresses: [], topics: [] })
    const from2 = filters.newLogFilter({ blockHash: undefined, fromBlock: 2, toBlock: 'latest', addresses: [], topics: [] })
    await events.fireBlock(backend, 1)
    await events.fireBlock(backend, 2)
    const a = filters.getFilterChanges(upTo1)
    const b = filters.getFilterChanges(from2)
    expect(a.kind === 'logs' && a.logs.map((l) => l.blockNumber)).toEqual([1])
    expect(b.kind === 'logs' && b.logs.map((l) => l.blockNumber)).toEqual([2])
    expect(() => filters.newLogFilter({ blockHash: undefined, fromBlock: 3, toBlock: 2, addresses: [], topics: [] })).toThrow(
      'invalid from and to block combination',
    )
  })

  it('eth_getFilterLogs answers the range through getLogs; wrong type and unknown ids fail', async () => {
    const all = filters.newLogFilter({ blockHash: undefined, fromBlock: 'earliest', toBlock: undefined, addresses: [], topics: [] })
    expect((await filters.getFilterLogs(all)).map((l) => l.blockNumber)).toEqual(['0x1', '0x2'])
    const blocks = filters.newBlockFilter()
    expect(() => filters.getFilterLogs(blocks)).toThrow(`filter ${blocks} doesn't have a LogsSubscription type`)
    expect(() => filters.getFilterChanges('0x1')).toThrow(new NodeError('filter not found'))
    expect(() => filters.getFilterLogs('0x1')).toThrow('filter not found')
    expect(filters.uninstall('0x1')).toBe(false)
    expect(filters.uninstall(blocks)).toBe(true)
    expect(filters.uninstall(blocks)).toBe(false)
  })

  it('expires a filter `timeout` after its last eth_getFilterChanges (eth_getFilterLogs does not count)', () => {
    const polled = filters.newBlockFilter()
    const logs = filters.newLogFilter({ blockHash: undefined, fromBlock: undefined, toBlock: undefined, addresses: [], topics: [] })
    now = 900
    filters.getFilterChanges(polled)
    void filters.getFilterLogs(logs)
    now = 1_000
    expect(() => filters.getFilterChanges(logs)).toThrow('filter not found')
    now = 1_899
    expect(filters.getFilterChanges(polled).kind).toBe('hashes')
    now = 2_899
    expect(() => filters.getFilterChanges(polled)).toThrow('filter not found')
    expect(filters.size).toBe(0)
  })

  it('keeps at most maxEntries per filter, dropping the oldest', async () => {
    const blocks = filters.newBlockFilter()
    for (const h of [0, 1, 2, 3]) await events.fireBlock(backend, h)
    expect(filters.getFilterChanges(blocks)).toEqual({ kind: 'hashes', hashes: [1, 2, 3].map((h) => hex(backend.blocks[h]!.hash)) })
  })

  it('enforces the cap over all kinds, counting expired filters out', () => {
    for (let i = 0; i < 5; i++) filters.newBlockFilter()
    expect(() => filters.newPendingTransactionFilter()).toThrow('error creating filter: max limit reached')
    now = 5_000
    expect(filters.newPendingTransactionFilter()).toMatch(/^0x/)
    expect(filters.size).toBe(1)
  })

  it('listens to the chain only while filters need it', () => {
    expect([events.blocks.size, events.pending.size]).toEqual([0, 0])
    const a = filters.newBlockFilter()
    const b = filters.newLogFilter({ blockHash: undefined, fromBlock: undefined, toBlock: undefined, addresses: [], topics: [] })
    const p = filters.newPendingTransactionFilter()
    expect([events.blocks.size, events.pending.size]).toEqual([1, 1])
    filters.uninstall(a)
    filters.uninstall(p)
    expect([events.blocks.size, events.pending.size]).toEqual([1, 0])
    filters.uninstall(b)
    expect(events.blocks.size).toBe(0)
  })
})

describe('SubscriptionManager', () => {
  let backend: FakeBackend
  let events: FakeEvents
  let subs: SubscriptionManager

  beforeEach(async () => {
    backend = await FakeBackend.create()
    events = new FakeEvents()
    subs = new SubscriptionManager(backend, events, silentLogger, { maxPerConnection: 4 })
  })

  it('newHeads: the block object without transactions and withdrawals, or with full transactions', async () => {
    const sink = new FakeSink()
    const plain = subs.subscribe(sink, 'newHeads', undefined)
    const full = subs.subscribe(sink, 'newHeads', { includeTransactions: true })
    await events.fireBlock(backend, 1)
    const block = backend.blocks[1]!
    const txs = await backend.getBlockTransactions(block)
    const { transactions: _omit, withdrawals: _none, ...header } = formatBlock(block)
    expect(sink.messages[0]).toBe(
      `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${plain}","result":${JSON.stringify(header)}}}`,
    )
    expect(sink.parsed()[1]!.params).toEqual({ subscription: full, result: JSON.parse(JSON.stringify(formatBlock(block, txs))) })
    expect(sink.parsed<BlockJson>()[1]!.params.result.transactions[0]).toEqual(
      JSON.parse(JSON.stringify(formatTransaction(txs[0]!, block.timestamp))),
    )
  })

  it('logs: one notification per matching log', async () => {
    const sink = new FakeSink()
    const any = subs.subscribe(sink, 'logs', {})
    const token = subs.subscribe(sink, 'logs', { address: hex(TOKEN), topics: [hex(TRANSFER_TOPIC)] })
    await events.fireBlock(backend, 1)
    await events.fireBlock(backend, 2)
    const notes = sink.parsed<LogJson>().map((n) => [n.params.subscription, n.params.result.blockNumber, n.params.result.removed])
    expect(notes).toEqual([
      [any, '0x1', false],
      [token, '0x1', false],
      [any, '0x2', false],
    ])
  })

  it('newPendingTransactions: hashes, or full objects with true', () => {
    const sink = new FakeSink()
    const hashes = subs.subscribe(sink, 'newPendingTransactions', undefined)
    const full = subs.subscribe(sink, 'newPendingTransactions', true)
    const hash = events.firePending(backend)
    expect(
      sink
        .parsed<string | TransactionJson>()
        .map((n) => [n.params.subscription, typeof n.params.result === 'string' ? n.params.result : n.params.result.hash]),
    ).toEqual([
      [hashes, hash],
      [full, hash],
    ])
    expect(sink.parsed<TransactionJson>()[1]!.params.result.blockHash).toBeNull()
  })

  it('syncing: the current status once, then on each change', async () => {
    const sink = new FakeSink()
    const id = subs.subscribe(sink, 'syncing', undefined)
    await new Promise((r) => setImmediate(r))
    expect(sink.messages).toEqual([`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":false}}`])
    await events.fireBlock(backend, 1)
    expect(sink.messages).toHaveLength(1)
    backend.syncing = { startingBlock: 0, currentBlock: 2, highestBlock: 9 }
    await events.fireBlock(backend, 2)
    expect(sink.parsed()[1]!.params.result).toEqual({
      syncing: true,
      status: { startingBlock: '0x0', currentBlock: '0x2', highestBlock: '0x9' },
    })
    backend.syncing = undefined
    await events.fireBlock(backend, 3)
    expect(sink.parsed()[2]!.params.result).toBe(false)
  })

  it('unsubscribe is per connection; closing a connection ends its subscriptions and detaches', async () => {
    const a = new FakeSink()
    const b = new FakeSink()
    const id = subs.subscribe(a, 'newHeads', undefined)
    subs.subscribe(b, 'newPendingTransactions', undefined)
    expect(subs.unsubscribe(b, id)).toBe(false)
    expect(subs.unsubscribe(a, '0xdead')).toBe(false)
    expect(subs.unsubscribe(a, id)).toBe(true)
    expect(subs.unsubscribe(a, id)).toBe(false)
    expect(events.blocks.size).toBe(0)
    subs.subscribe(a, 'logs', {})
    expect(events.blocks.size).toBe(1)
    a.close()
    b.close()
    expect([subs.size, events.blocks.size, events.pending.size]).toEqual([0, 0, 0])
  })

  it('validates names and arguments with geth codes, and limits subscriptions per connection', () => {
    const sink = new FakeSink()
    expect(() => subs.subscribe(sink, 'nope', undefined)).toThrow(new RpcError(-32601, 'no "nope" subscription in eth namespace'))
    expect(() => subs.subscribe(sink, undefined, undefined)).toThrow(new RpcError(-32602, 'expected subscription name as first argument'))
    expect(() => subs.subscribe(sink, 'newHeads', 'x')).toThrow(expect.objectContaining({ code: -32602 }))
    expect(() => subs.subscribe(sink, 'logs', { topics: 'x' })).toThrow(expect.objectContaining({ code: -32602 }))
    expect(() => subs.subscribe(sink, 'syncing', {})).toThrow(expect.objectContaining({ code: -32602 }))
    for (let i = 0; i < 4; i++) subs.subscribe(sink, 'newHeads', undefined)
    expect(() => subs.subscribe(sink, 'newHeads', undefined)).toThrow('too many subscriptions on this connection (max 4)')
  })

  it('a failing sink never throws into the chain emitter', async () => {
    const sink = new FakeSink()
    sink.send = () => {
      throw new Error('boom')
    }
    subs.subscribe(sink, 'newHeads', undefined)
    subs.subscribe(sink, 'newPendingTransactions', undefined)
    await expect(events.fireBlock(backend, 1)).resolves.toBeUndefined()
    expect(() => events.firePending(backend)).not.toThrow()
  })
})
