/** Limits: eviction of the cheapest when full, per-account queue caps, global pending and queue truncation. */
import { describe, expect, it } from 'vitest'
import type { DecodedTx } from '../../../src/evm/txs/tx.js'
import { TxPoolError, TxPoolRejection } from '../../../src/txpool/tx-pool-error.js'
import { ADDRS, GWEI, KEYS, makePool, rejection, sign1559 } from './helpers.js'

const [K0, K1, K2] = KEYS as [Uint8Array, Uint8Array, Uint8Array]
const [A0, A1, A2] = ADDRS as [string, string, string]
const nonces = (txs: DecodedTx[] | undefined): bigint[] => (txs ?? []).map((t) => t.nonce)
const fee = (tip: bigint) => ({ tip: tip * GWEI, feeCap: 100n * GWEI })

/** A pool of 4 slots (3 pending + 1 queued), filled with A0 (tip 1), B0 (tip 2), C0 (tip 3), A1 (tip 4). */
async function fullPool() {
  const t = makePool({ globalSlots: 3, globalQueue: 1 })
  const cheapest = await t.pool.add(sign1559(K0, { nonce: 0n, ...fee(1n) }))
  await t.pool.add(sign1559(K1, { nonce: 0n, ...fee(2n) }))
  await t.pool.add(sign1559(K2, { nonce: 0n, ...fee(3n) }))
  await t.pool.add(sign1559(K0, { nonce: 1n, ...fee(4n) }))
  expect(t.pool.status()).toEqual({ pending: 4, queued: 0 })
  return { ...t, cheapest }
}

describe('txpool limits', () => {
  it('refuses a tx no better than the cheapest when full', async () => {
    const { pool } = await fullPool()
    expect(await rejection(pool, sign1559(K1, { nonce: 1n, ...fee(1n) }))).toBe('txpool is full')
    const err = await pool.add(sign1559(K1, { nonce: 1n, tip: GWEI / 2n, feeCap: 100n * GWEI })).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(TxPoolError)
    expect((err as TxPoolError).reason).toBe(TxPoolRejection.PoolFull)
    expect(pool.status()).toEqual({ pending: 4, queued: 0 })
  })

  it('evicts the cheapest tx for a better one, demoting that sender later nonces', async () => {
    const { pool, cheapest } = await fullPool()
    const better = await pool.add(sign1559(K2, { nonce: 1n, ...fee(5n) }))
    expect(pool.has(cheapest.hash)).toBe(false)
    expect(pool.has(better.hash)).toBe(true)
    expect(nonces(pool.queued().get(A0))).toEqual([1n])
    expect(nonces(pool.pending().get(A2))).toEqual([0n, 1n])
    expect(pool.status()).toEqual({ pending: 3, queued: 1 })
    expect(await pool.pendingNonce(A0)).toBe(0n)
  })

  it('prices evictions at the next base fee (effective tip)', async () => {
    const t = makePool({ globalSlots: 2, globalQueue: 0 })
    t.fees.baseFee = 10n * GWEI
    await t.pool.update(1, [], []) // the pool re-prices after each block
    // a0: tip 5 but cap 11 → effective 1; b0: tip 2, cap 100 → 2
    const a0 = await t.pool.add(sign1559(K0, { nonce: 0n, tip: 5n * GWEI, feeCap: 11n * GWEI }))
    const b0 = await t.pool.add(sign1559(K1, { nonce: 0n, tip: 2n * GWEI, feeCap: 100n * GWEI }))
    await t.pool.add(sign1559(K2, { nonce: 0n, tip: 3n * GWEI, feeCap: 100n * GWEI }))
    expect(t.pool.has(a0.hash)).toBe(false)
    expect(t.pool.has(b0.hash)).toBe(true)
  })

  it('never lets a gapped tx evict a pending one', async () => {
    const { pool, cheapest } = await fullPool()
    expect(await rejection(pool, sign1559(K1, { nonce: 5n, ...fee(10n) }))).toBe('future transaction tries to replace pending')
    expect(pool.has(cheapest.hash)).toBe(true)
    expect(pool.status()).toEqual({ pending: 4, queued: 0 })
    // the evicted candidates went back: the next better executable tx still evicts the cheapest
    await pool.add(sign1559(K1, { nonce: 1n, ...fee(10n) }))
    expect(pool.has(cheapest.hash)).toBe(false)
  })

  it('replaces within a full pool without eviction', async () => {
    const { pool } = await fullPool()
    await pool.add(sign1559(K1, { nonce: 0n, tip: 3n * GWEI, feeCap: 110n * GWEI }))
    expect(pool.status()).toEqual({ pending: 4, queued: 0 })
  })

  it('caps each sender queue of gapped nonces at accountQueue', async () => {
    const { pool } = makePool({ accountQueue: 2 })
    await pool.add(sign1559(K0, { nonce: 2n }))
    const three = await pool.add(sign1559(K0, { nonce: 3n }))
    expect(await rejection(pool, sign1559(K0, { nonce: 4n }))).toBe('account limit exceeded: pooled 2 txs')
    // a lower nonce is taken and the highest queued one leaves, as geth's list.Cap
    await pool.add(sign1559(K0, { nonce: 1n }))
    expect(nonces(pool.queued().get(A0))).toEqual([1n, 2n])
    expect(pool.has(three.hash)).toBe(false)
    // replacing a queued tx is not limited
    await pool.add(sign1559(K0, { nonce: 2n, tip: 2n * GWEI, feeCap: 3n * GWEI }))
    // executable txs are not limited by accountQueue
    await pool.add(sign1559(K0, { nonce: 0n }))
    await pool.add(sign1559(K0, { nonce: 3n }))
    await pool.add(sign1559(K0, { nonce: 4n }))
    expect(pool.status()).toEqual({ pending: 5, queued: 0 })
  })

  it('truncates the global queue from the sender idle longest, highest nonces first', async () => {
    const { pool } = makePool({ globalQueue: 2 })
    await pool.add(sign1559(K0, { nonce: 5n }))
    const a6 = await pool.add(sign1559(K0, { nonce: 6n }))
    await pool.add(sign1559(K1, { nonce: 5n }))
    expect(pool.has(a6.hash)).toBe(false)
    expect(nonces(pool.queued().get(A0))).toEqual([5n])
    expect(nonces(pool.queued().get(A1))).toEqual([5n])
    // a new queued tx of the idlest sender is the one that goes: refused as a full pool
    expect(await rejection(pool, sign1559(K0, { nonce: 7n }))).toBe('txpool is full')
    expect(pool.status()).toEqual({ pending: 0, queued: 2 })
  })

  it('truncates pending above globalSlots from senders above accountSlots only', async () => {
    const { pool } = makePool({ globalSlots: 4, accountSlots: 1, globalQueue: 10 })
    for (let n = 0n; n < 4n; n++) await pool.add(sign1559(K0, { nonce: n }))
    await pool.add(sign1559(K1, { nonce: 0n }))
    expect(nonces(pool.pending().get(A0))).toEqual([0n, 1n, 2n])
    expect(nonces(pool.pending().get(A1))).toEqual([0n])
    // equalises the largest senders first
    await pool.add(sign1559(K2, { nonce: 0n }))
    expect(nonces(pool.pending().get(A0))).toEqual([0n, 1n])
    expect(pool.status().pending).toBe(4)
  })

  it('refuses a new executable tx that only fits by going over globalSlots from a single sender', async () => {
    const { pool } = makePool({ globalSlots: 3, accountSlots: 1, globalQueue: 10 })
    for (let n = 0n; n < 3n; n++) await pool.add(sign1559(K0, { nonce: n }))
    expect(await rejection(pool, sign1559(K0, { nonce: 3n }))).toBe('txpool is full')
    expect(pool.status()).toEqual({ pending: 3, queued: 0 })
  })
})
