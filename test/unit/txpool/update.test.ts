/** update(): after a committed block the pool drops included, stale and unaffordable txs and re-forms runs. */
import { describe, expect, it } from 'vitest'
import type { DecodedTx } from '../../../src/evm/txs/tx.js'
import { ADDRS, ETHER, GWEI, KEYS, makePool, rejection, sign1559 } from './helpers.js'

const [K0, K1, K2] = KEYS as [Uint8Array, Uint8Array, Uint8Array]
const [A0, A1, A2] = ADDRS as [string, string, string]
const nonces = (txs: DecodedTx[] | undefined): bigint[] => (txs ?? []).map((t) => t.nonce)

describe('txpool update', () => {
  it('drops included txs, keeps the rest pending and announces them', async () => {
    const { pool, state } = makePool()
    const raws = [0n, 1n, 2n].map((nonce) => sign1559(K0, { nonce }))
    for (const r of raws) await pool.add(r)
    let available = 0
    pool.onTxsAvailable(() => available++)
    state.set(A0, 2n, 999n * ETHER)
    await pool.update(1, raws.slice(0, 2), [])
    expect(nonces(pool.pending().get(A0))).toEqual([2n])
    expect(pool.status()).toEqual({ pending: 1, queued: 0 })
    expect(await pool.pendingNonce(A0)).toBe(3n)
    expect(available).toBe(1)
  })

  it('holds admissions while locked: a committed tx sent again is refused for its nonce once the pool is updated', async () => {
    const { pool, state } = makePool()
    const raw = sign1559(K0)
    await pool.add(raw)
    const unlock = await pool.lock()
    // The block is committed: the state moved on, the pool not yet.
    state.set(A0, 1n, 999n * ETHER)
    const resent = rejection(pool, raw)
    const next = pool.add(sign1559(K0, { nonce: 1n }))
    await pool.update(1, [raw], [])
    unlock()
    expect(await resent).toMatch(/^nonce too low/)
    expect((await next).nonce).toBe(1n)
    expect(nonces(pool.pending().get(A0))).toEqual([1n])
  })

  it('does not announce an empty pool', async () => {
    const { pool, state } = makePool()
    const raw = sign1559(K0)
    await pool.add(raw)
    let available = 0
    pool.onTxsAvailable(() => available++)
    state.set(A0, 1n, ETHER)
    await pool.update(1, [raw], [])
    expect(pool.status()).toEqual({ pending: 0, queued: 0 })
    expect(available).toBe(0)
  })

  it('drops txs made stale by a nonce that advanced outside the pool, and promotes a queue whose gap filled', async () => {
    const { pool, state } = makePool()
    // A1 had nonces 0, 1 pooled; a block included other txs of A1 up to nonce 1.
    await pool.add(sign1559(K1, { nonce: 0n }))
    const kept = await pool.add(sign1559(K1, { nonce: 2n }))
    await pool.add(sign1559(K1, { nonce: 3n }))
    expect(pool.status()).toEqual({ pending: 1, queued: 2 })
    state.set(A1, 2n, ETHER)
    await pool.update(1, [], [])
    expect(nonces(pool.pending().get(A1))).toEqual([2n, 3n])
    expect(pool.pending().get(A1)![0]).toBe(kept)
    expect(pool.status()).toEqual({ pending: 2, queued: 0 })
  })

  it('drops txs the new balance cannot pay and demotes the later nonces', async () => {
    const { pool, state } = makePool()
    await pool.add(sign1559(K2, { nonce: 0n }))
    const costly = await pool.add(sign1559(K2, { nonce: 1n, value: ETHER }))
    await pool.add(sign1559(K2, { nonce: 2n }))
    state.set(A2, 0n, ETHER / 2n)
    await pool.update(1, [], [])
    expect(pool.has(costly.hash)).toBe(false)
    expect(nonces(pool.pending().get(A2))).toEqual([0n])
    expect(nonces(pool.queued().get(A2))).toEqual([2n])
  })

  it('removes an included tx even when the state nonce did not move (tx failed before execution)', async () => {
    const { pool } = makePool()
    const raw0 = sign1559(K0, { nonce: 0n })
    await pool.add(raw0)
    await pool.add(sign1559(K0, { nonce: 1n }))
    await pool.update(1, [raw0], [])
    expect(pool.status()).toEqual({ pending: 0, queued: 1 })
    expect(await pool.pendingNonce(A0)).toBe(0n)
  })

  it('drops txs above a lowered block gas limit', async () => {
    const { pool } = makePool()
    await pool.add(sign1559(K0, { nonce: 0n, gasLimit: 25_000n }))
    pool.setBlockGasLimit(21_000n)
    await pool.update(1, [], [])
    expect(pool.status()).toEqual({ pending: 0, queued: 0 })
  })

  it('re-reads the state of every pooled sender, and forgets senders without txs', async () => {
    const { pool, state } = makePool()
    await pool.add(sign1559(K0))
    await pool.add(sign1559(K1))
    const before = state.reads
    await pool.update(1, [], [])
    expect(state.reads - before).toBe(2)
    // A balance change seen after the block is used for the next admission.
    state.set(A0, 0n, 0n)
    await pool.update(2, [], [])
    expect(pool.pending().has(A0)).toBe(false)
    expect(pool.pending().has(A1)).toBe(true)
  })

  it('ignores included txs it never held', async () => {
    const { pool } = makePool()
    await pool.add(sign1559(K0))
    await pool.update(1, [sign1559(K1, { nonce: 0n })], [])
    expect(pool.status()).toEqual({ pending: 1, queued: 0 })
  })

  it('admits nonces after the block against the refreshed state', async () => {
    const { pool, state } = makePool()
    const raw = sign1559(K0, { nonce: 0n, tip: 2n * GWEI, feeCap: 3n * GWEI })
    await pool.add(raw)
    state.set(A0, 1n, ETHER)
    await pool.update(1, [raw], [])
    await expect(pool.add(sign1559(K0, { nonce: 0n }))).rejects.toThrow(/^nonce too low/)
    await pool.add(sign1559(K0, { nonce: 1n }))
    expect(pool.status()).toEqual({ pending: 1, queued: 0 })
  })
})
