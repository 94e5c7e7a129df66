import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAddress } from '../../../src/evm/store/evm-records.js'
import { LogLimitError } from '../../../src/evm/errors.js'
import type { LogQuery } from '../../../src/evm/store/evm-store.js'
import type { EvmLog } from '../../../src/evm/store/views.js'
import { Prefix, heightKey } from '../../../src/db/prefixes.js'
import { bytesToHex, hexToBytes } from '../../../src/primitives/hex.js'
import {
  ADDRESS2,
  DEV_ADDRESS,
  DEV_KEY,
  KEY2,
  STORE_RUNTIME,
  STORE_TOPIC,
  createHarness,
  deployCode,
  sign1559,
  word,
  type Harness,
} from './helpers.js'

const hex = bytesToHex
const pad32 = (a: string) => hexToBytes('0x' + a.slice(2).padStart(64, '0'))

describe('getLogs', () => {
  let h: Harness
  let a: Uint8Array
  let b: Uint8Array
  const heightsRead: number[] = []
  const q = (over: Partial<LogQuery>): LogQuery => ({ fromBlock: 0, toBlock: 1_000, addresses: [], topics: [], ...over })
  /** The matching logs in chain order. */
  const getLogs = async (query: LogQuery, limit: number) => (await h.app.getLogs(query, limit)).toArray()
  const where = (logs: { blockNumber: number; address: Uint8Array }[]) =>
    logs.map((l) => `${l.blockNumber}:${hex(l.address) === hex(a) ? 'A' : 'B'}`)

  beforeAll(async () => {
    h = await createHarness()
    const c = h.app.common
    let devNonce = 0n
    let key2Nonce = 0n
    await h.finalize([
      sign1559(c, DEV_KEY, { nonce: devNonce++, data: deployCode(STORE_RUNTIME), gasLimit: 200_000n }),
      sign1559(c, KEY2, { nonce: key2Nonce++, data: deployCode(STORE_RUNTIME), gasLimit: 200_000n }),
    ])
    a = createAddress(hexToBytes(DEV_ADDRESS), 0n)
    b = createAddress(hexToBytes(ADDRESS2), 0n)
    const set = (key: Uint8Array, nonce: bigint, to: Uint8Array, v: bigint) =>
      sign1559(c, key, { nonce, to: hex(to) as `0x${string}`, data: word(v), gasLimit: 100_000n })
    for (let height = 2; height <= 30; height++) {
      const txs: Uint8Array[] = []
      if (height === 5) txs.push(set(DEV_KEY, devNonce++, a, 5n))
      if (height === 10) txs.push(set(KEY2, key2Nonce++, b, 10n))
      if (height === 20) txs.push(set(DEV_KEY, devNonce++, a, 20n), set(KEY2, key2Nonce++, b, 21n))
      if (height === 30) txs.push(set(KEY2, key2Nonce++, b, 30n))
      if (txs.length === 0 && height % 3 === 0) txs.push(sign1559(c, DEV_KEY, { nonce: devNonce++, to: ADDRESS2, value: 1n }))
      const resp = await h.finalize(txs)
      expect(resp.txResults.every((r) => r.code === 0)).toBe(true)
    }
    const store = (h.app as unknown as { store: { loadBlockLogs(heights: number[]): Promise<unknown> } }).store
    const original = store.loadBlockLogs.bind(store)
    store.loadBlockLogs = (heights: number[]) => {
      heightsRead.push(...heights)
      return original(heights)
    }
  })
  afterAll(() => h.close())

  it('finds logs by address through the index, reading only matching blocks', async () => {
    heightsRead.length = 0
    const logs = await getLogs(q({ addresses: [a] }), 100)
    expect(where(logs)).toEqual(['5:A', '20:A'])
    expect(logs.map((l) => hex(l.data))).toEqual([hex(word(5n)), hex(word(20n))])
    expect(logs[1]!.logIndex).toBe(0)
    expect(logs[1]!.transactionIndex).toBe(0)
    // only the matching heights (the head is checked through its bloom) have their logs read
    expect(heightsRead.filter((x) => x !== 5 && x !== 20)).toEqual([])
    expect(heightsRead).toContain(5)
  })

  it('matches topics per position, with OR sets and wildcards', async () => {
    expect(where(await getLogs(q({ topics: [null, [pad32(ADDRESS2)]] }), 100))).toEqual(['10:B', '20:B', '30:B'])
    expect(where(await getLogs(q({ topics: [[STORE_TOPIC]] }), 100))).toEqual(['5:A', '10:B', '20:A', '20:B', '30:B'])
    expect(where(await getLogs(q({ topics: [[], [pad32(DEV_ADDRESS), pad32(ADDRESS2)]] }), 100))).toHaveLength(5)
    expect(where(await getLogs(q({ addresses: [a, b], topics: [[STORE_TOPIC], [pad32(DEV_ADDRESS)]] }), 100))).toEqual(['5:A', '20:A'])
    expect(await getLogs(q({ topics: [[pad32(DEV_ADDRESS)]] }), 100)).toEqual([])
    expect(await getLogs(q({ topics: [null, null, null] }), 100)).toEqual([])
    const second = await getLogs(q({ fromBlock: 20, toBlock: 20 }), 100)
    expect(second.map((l) => l.logIndex)).toEqual([0, 1])
  })

  it('scans by bloom without criteria and respects the range', async () => {
    expect(where(await getLogs(q({}), 100))).toEqual(['5:A', '10:B', '20:A', '20:B', '30:B'])
    expect(where(await getLogs(q({ fromBlock: 6, toBlock: 19, addresses: [a, b] }), 100))).toEqual(['10:B'])
    expect(where(await getLogs(q({ fromBlock: 6, toBlock: 19 }), 100))).toEqual(['10:B'])
    expect(await getLogs(q({ fromBlock: 21, toBlock: 29 }), 100)).toEqual([])
    expect(where(await getLogs(q({ fromBlock: 30, toBlock: 30, addresses: [b] }), 100))).toEqual(['30:B'])
  })

  it('throws a typed error beyond the limit', async () => {
    const err = await getLogs(q({}), 4).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(LogLimitError)
    expect((err as Error).message).toBe('query returned more than 4 results')
    expect(await getLogs(q({}), 5)).toHaveLength(5)
  })

  it('gives the committed block with its logs for subscribers', async () => {
    await h.finalize([sign1559(h.app.common, KEY2, { nonce: 4n, to: hex(b) as `0x${string}`, data: word(1n), gasLimit: 100_000n })])
    const e = h.app.committedBlock()!
    expect(`${e.block.number}:${e.logs.length}:${e.receipts.length}:${e.transactions.length}`).toBe('31:1:1:1')
    expect(where(await getLogs(q({ fromBlock: 31, addresses: [b] }), 10))).toEqual(['31:B'])
  })

  it('answers the same from disk after a restart, also for heights stored without a logs record', async () => {
    const queries = [
      q({ addresses: [a] }),
      q({ topics: [[STORE_TOPIC]] }),
      q({}),
      q({ fromBlock: 6, toBlock: 19, addresses: [a, b] }),
      q({ topics: [null, [pad32(ADDRESS2)]] }),
    ]
    // bytes read back from disk may be Buffers: compare as hex
    const view = (logs: EvmLog[]) =>
      logs.map((l) => ({
        ...l,
        address: hex(l.address),
        topics: l.topics.map(hex),
        data: hex(l.data),
        blockHash: hex(l.blockHash),
        transactionHash: hex(l.transactionHash),
      }))
    const run = async (x: LogQuery) => view(await getLogs(x, 100))
    const before = await Promise.all(queries.map(run))
    expect(before.map((logs) => logs.length)).toEqual([2, 6, 6, 1, 4])
    await h.reopen()
    // heights written before logs records existed are read back from their transaction records
    await h.db.del(heightKey(Prefix.evmLogs, 20))
    for (let i = 0; i < queries.length; i++) expect(await run(queries[i]!)).toEqual(before[i])
    // and committing a new height keeps older heights on the disk index
    await h.finalize([])
    for (let i = 0; i < queries.length; i++) expect(await run(queries[i]!)).toEqual(before[i])
  })
})
