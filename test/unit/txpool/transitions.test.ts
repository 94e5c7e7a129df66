/** Pool transitions: queued → pending promotion, replacement, events and RPC queries. */
import { describe, expect, it } from 'vitest'
import type { Mempool } from '../../../src/consensus/mempool.js'
import type { DecodedTx } from '../../../src/evm/txs/tx.js'
import { ADDRS, ETHER, GWEI, KEYS, decode, makePool, rejection, sign1559, signLegacy } from './helpers.js'

const [K0, K1] = KEYS as [Uint8Array, Uint8Array]
const [A0, A1] = ADDRS as [string, string]
const nonces = (txs: DecodedTx[] | undefined): bigint[] => (txs ?? []).map((t) => t.nonce)

describe('txpool transitions', () => {
  it('is a Mempool', () => {
    const mempool: Mempool = makePool().pool
    expect(mempool.size()).toBe(0)
  })

  it('queues a tx behind a nonce gap and promotes it when the gap fills', async () => {
    const { pool } = makePool()
    await pool.add(sign1559(K0, { nonce: 2n }))
    await pool.add(sign1559(K0, { nonce: 3n }))
    expect(pool.status()).toEqual({ pending: 0, queued: 2 })
    expect(await pool.pendingNonce(A0)).toBe(0n)
    await pool.add(sign1559(K0, { nonce: 0n }))
    expect(pool.status()).toEqual({ pending: 1, queued: 2 })
    expect(await pool.pendingNonce(A0)).toBe(1n)
    await pool.add(sign1559(K0, { nonce: 1n }))
    expect(pool.status()).toEqual({ pending: 4, queued: 0 })
    expect(nonces(pool.pending().get(A0))).toEqual([0n, 1n, 2n, 3n])
    expect(pool.queued().size).toBe(0)
    expect(await pool.pendingNonce(A0)).toBe(4n)
    expect(await pool.pendingNonce(A0.toUpperCase().replace('0X', '0x'))).toBe(4n)
  })

  it('pendingNonce of a sender without pooled txs is its state nonce', async () => {
    const { pool, state } = makePool()
    state.set(A1, 7n, ETHER)
    expect(await pool.pendingNonce(A1)).toBe(7n)
    await pool.add(sign1559(K1, { nonce: 7n }))
    await pool.add(sign1559(K1, { nonce: 9n }))
    expect(await pool.pendingNonce(A1)).toBe(8n)
  })

  it('lists queued txs sorted by nonce, per sender', async () => {
    const { pool } = makePool()
    for (const n of [9n, 4n, 6n]) await pool.add(sign1559(K0, { nonce: n }))
    await pool.add(sign1559(K1, { nonce: 0n }))
    await pool.add(sign1559(K1, { nonce: 2n }))
    expect(nonces(pool.queued().get(A0))).toEqual([4n, 6n, 9n])
    expect(nonces(pool.queued().get(A1))).toEqual([2n])
    expect(nonces(pool.pending().get(A1))).toEqual([0n])
    expect(pool.pending().has(A0)).toBe(false)
    const from = pool.contentFrom(A1)
    expect([nonces(from.pending), nonces(from.queued)]).toEqual([[0n], [2n]])
  })

  it('replaces a pending tx only with at least a 10% higher fee cap and tip', async () => {
    const { pool } = makePool()
    const original = await pool.add(sign1559(K0, { tip: 10n * GWEI, feeCap: 100n * GWEI }))
    // 9% more on both
    expect(await rejection(pool, sign1559(K0, { tip: 10n * GWEI + 9n * (GWEI / 10n), feeCap: 109n * GWEI }))).toBe(
      'replacement transaction underpriced',
    )
    // 10% more on the fee cap but not on the tip
    expect(await rejection(pool, sign1559(K0, { tip: 10n * GWEI + 1n, feeCap: 200n * GWEI }))).toBe('replacement transaction underpriced')
    // the same prices (a different tx: another value)
    expect(await rejection(pool, sign1559(K0, { tip: 10n * GWEI, feeCap: 100n * GWEI, value: 1n }))).toBe(
      'replacement transaction underpriced',
    )
    const replacement = await pool.add(sign1559(K0, { tip: 11n * GWEI, feeCap: 110n * GWEI }))
    expect(pool.has(original.hash)).toBe(false)
    expect(pool.get(replacement.hashHex)).toBe(replacement)
    expect(pool.pending().get(A0)).toEqual([replacement])
    expect(pool.status()).toEqual({ pending: 1, queued: 0 })
  })

  it('replaces a legacy tx by gas price, and a queued tx by the same rule', async () => {
    const { pool } = makePool()
    await pool.add(signLegacy(K0, { gasPrice: 10n * GWEI }))
    expect(await rejection(pool, signLegacy(K0, { gasPrice: 10n * GWEI + GWEI - 1n }))).toBe('replacement transaction underpriced')
    await pool.add(signLegacy(K0, { gasPrice: 11n * GWEI }))
    await pool.add(sign1559(K0, { nonce: 5n, tip: GWEI, feeCap: 2n * GWEI }))
    expect(await rejection(pool, sign1559(K0, { nonce: 5n, tip: GWEI + 1n, feeCap: 2n * GWEI + 1n }))).toBe(
      'replacement transaction underpriced',
    )
    const queued = await pool.add(sign1559(K0, { nonce: 5n, tip: (11n * GWEI) / 10n, feeCap: (22n * GWEI) / 10n }))
    expect(pool.queued().get(A0)).toEqual([queued])
    expect(pool.status()).toEqual({ pending: 1, queued: 1 })
  })

  it('honours a custom priceBump', async () => {
    const { pool } = makePool({ priceBump: 50 })
    await pool.add(sign1559(K0, { tip: 10n * GWEI, feeCap: 100n * GWEI }))
    expect(await rejection(pool, sign1559(K0, { tip: 14n * GWEI, feeCap: 140n * GWEI }))).toBe('replacement transaction underpriced')
    await pool.add(sign1559(K0, { tip: 15n * GWEI, feeCap: 150n * GWEI }))
  })

  it('emits newPendingTx for pending and queued arrivals, and txs-available once per height for executable ones', async () => {
    const { pool } = makePool()
    const seen: string[] = []
    let available = 0
    pool.on('newPendingTx', (tx) => seen.push(tx.hashHex))
    const off = pool.onTxsAvailable(() => available++)
    const queued = await pool.add(sign1559(K0, { nonce: 1n }))
    expect(available).toBe(0)
    const first = await pool.add(sign1559(K0, { nonce: 0n }))
    expect(available).toBe(1)
    await pool.add(sign1559(K1, { nonce: 0n }))
    expect(available).toBe(1)
    expect(seen.slice(0, 2)).toEqual([queued.hashHex, first.hashHex])
    expect(seen).toHaveLength(3)
    await pool.update(1, [], [])
    expect(available).toBe(2)
    off()
    await pool.update(2, [], [])
    expect(available).toBe(2)
  })

  it('keeps pending a tx whose fee cap is below the base fee, but neither counts nor announces it until it can pay', async () => {
    const { pool, fees } = makePool()
    fees.baseFee = 10n * GWEI
    let available = 0
    pool.onTxsAvailable(() => available++)
    // A0: cannot pay, so neither can its next nonce; A1: its first pays, its second does not.
    await pool.add(sign1559(K0, { nonce: 0n, tip: 1n, feeCap: 9n * GWEI }))
    await pool.add(sign1559(K0, { nonce: 1n, tip: 1n, feeCap: 20n * GWEI }))
    expect(pool.status()).toEqual({ pending: 2, queued: 0 })
    expect(pool.size()).toBe(0)
    expect(pool.reapMaxTxs(-1)).toEqual([])
    expect(available).toBe(0)
    await pool.add(sign1559(K1, { nonce: 0n, tip: 1n, feeCap: 10n * GWEI }))
    await pool.add(sign1559(K1, { nonce: 1n, tip: 1n, feeCap: 5n * GWEI }))
    expect([pool.size(), available]).toEqual([1, 1])
    // The base fee falls to A0's fee cap: at the next block, everything but A1's second is includable.
    fees.baseFee = 9n * GWEI
    await pool.update(1, [], [])
    expect([pool.size(), available]).toEqual([3, 2])
    expect(pool.reapMaxTxs(-1)).toHaveLength(3)
  })

  it('announces a bumped replacement that pays the base fee', async () => {
    const { pool, fees } = makePool()
    fees.baseFee = 10n * GWEI
    let available = 0
    pool.onTxsAvailable(() => available++)
    await pool.add(sign1559(K0, { tip: 1n, feeCap: 1n }))
    expect([pool.size(), available]).toEqual([0, 0])
    await pool.add(sign1559(K0, { tip: 2n, feeCap: 20n * GWEI }))
    expect([pool.size(), available, pool.status().pending]).toEqual([1, 1, 1])
  })

  it('looks txs up by hash as bytes or hex, any case', async () => {
    const { pool } = makePool()
    const tx = await pool.add(sign1559(K0))
    expect(pool.get(tx.hash)).toBe(tx)
    expect(pool.get(tx.hashHex.toUpperCase().replace('0X', '0x'))).toBe(tx)
    expect(pool.has(tx.hashHex)).toBe(true)
    expect(pool.get('0x' + '00'.repeat(32))).toBeUndefined()
    expect(pool.sizeBytes()).toBe(tx.size)
  })

  it('serialises concurrent adds for a new sender: one state read, all admitted', async () => {
    const { pool, state } = makePool()
    const raws = [0n, 1n, 2n, 3n].map((nonce) => sign1559(K0, { nonce }))
    const results = await Promise.allSettled(raws.map((r) => pool.add(r)))
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true)
    expect(state.reads).toBe(1)
    expect(pool.status()).toEqual({ pending: 4, queued: 0 })
  })

  it('concurrent duplicates: exactly one is admitted', async () => {
    const { pool } = makePool()
    const raw = sign1559(K0)
    const results = await Promise.allSettled([pool.add(raw), pool.add(raw)])
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected'])
    expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason.message).toBe('already known')
  })

  it('flush empties the pool', async () => {
    const { pool } = makePool()
    const tx = await pool.add(sign1559(K0))
    await pool.add(sign1559(K0, { nonce: 3n }))
    pool.flush()
    expect(pool.status()).toEqual({ pending: 0, queued: 0 })
    expect(pool.has(tx.hash)).toBe(false)
    await pool.add(sign1559(K0))
    expect(decode(sign1559(K0)).hashHex).toBe(tx.hashHex)
  })
})
