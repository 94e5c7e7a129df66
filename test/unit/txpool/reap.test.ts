/** Proposal order: effective tip across senders, nonce order within one; byte and gas cut-offs. */
import { describe, expect, it } from 'vitest'
import { protoSizeOfTx } from '../../../src/txpool/reap.js'
import { GWEI, KEYS, makePool, sign1559, signLegacy } from './helpers.js'

const [K0, K1, K2] = KEYS as [Uint8Array, Uint8Array, Uint8Array]

describe('txpool reap', () => {
  it('orders by effective tip across senders and by nonce within a sender, returning raw bytes', async () => {
    const { pool } = makePool()
    const a0 = sign1559(K0, { nonce: 0n, tip: 1n * GWEI, feeCap: 10n * GWEI })
    const a1 = sign1559(K0, { nonce: 1n, tip: 5n * GWEI, feeCap: 10n * GWEI })
    const b0 = sign1559(K1, { nonce: 0n, tip: 3n * GWEI, feeCap: 10n * GWEI })
    const c0 = signLegacy(K2, { nonce: 0n, gasPrice: 2n * GWEI })
    for (const raw of [a1, a0, b0, c0]) await pool.add(raw)
    expect(pool.reapMaxBytesMaxGas(-1, -1n)).toEqual([b0, c0, a0, a1])
  })

  it('prices at the next base fee: the tip is capped by fee cap − base fee', async () => {
    const { pool, fees } = makePool()
    // a0: tip 5 but cap 7 → effective 2 at base fee 5; b0: tip 3, cap 100 → 3
    const a0 = sign1559(K0, { nonce: 0n, tip: 5n * GWEI, feeCap: 7n * GWEI })
    const b0 = sign1559(K1, { nonce: 0n, tip: 3n * GWEI, feeCap: 100n * GWEI })
    await pool.add(a0)
    await pool.add(b0)
    expect(pool.reapMaxBytesMaxGas(-1, -1n)).toEqual([a0, b0])
    fees.baseFee = 5n * GWEI
    expect(pool.reapMaxBytesMaxGas(-1, -1n)).toEqual([b0, a0])
  })

  it('skips a sender from its first tx whose fee cap is below the base fee', async () => {
    const { pool, fees } = makePool()
    const a0 = sign1559(K0, { nonce: 0n, tip: GWEI, feeCap: 20n * GWEI })
    const a1 = sign1559(K0, { nonce: 1n, tip: GWEI, feeCap: 5n * GWEI })
    const a2 = sign1559(K0, { nonce: 2n, tip: 9n * GWEI, feeCap: 50n * GWEI })
    const b0 = sign1559(K1, { nonce: 0n, tip: GWEI, feeCap: 5n * GWEI })
    const c0 = sign1559(K2, { nonce: 0n, tip: GWEI / 2n, feeCap: 20n * GWEI })
    for (const raw of [a0, a1, a2, b0, c0]) await pool.add(raw)
    fees.baseFee = 10n * GWEI
    expect(pool.reapMaxBytesMaxGas(-1, -1n)).toEqual([a0, c0])
  })

  it('lists every unconfirmed tx: the proposal order, then pending ones below the base fee and queued ones by sender and nonce', async () => {
    const { pool, fees } = makePool()
    const a0 = sign1559(K0, { nonce: 0n, tip: GWEI, feeCap: 20n * GWEI })
    const a1 = sign1559(K0, { nonce: 1n, tip: GWEI, feeCap: 5n * GWEI })
    const a3 = sign1559(K0, { nonce: 3n, tip: GWEI, feeCap: 20n * GWEI })
    const b0 = sign1559(K1, { nonce: 0n, tip: 2n * GWEI, feeCap: 20n * GWEI })
    for (const raw of [a0, a1, a3, b0]) await pool.add(raw)
    fees.baseFee = 10n * GWEI
    expect(pool.reapMaxTxs(10)).toEqual([b0, a0])
    expect(pool.unconfirmedTxs(10)).toEqual([b0, a0, a1, a3])
    expect(pool.unconfirmedTxs(3)).toEqual([b0, a0, a1])
    expect(pool.unconfirmedTxs(1)).toEqual([b0])
    expect(pool.count()).toBe(4)
    expect(pool.sizeBytes()).toBe([a0, a1, a3, b0].reduce((n, raw) => n + raw.length, 0))
  })

  it('breaks equal tips by arrival', async () => {
    const { pool } = makePool()
    const b0 = sign1559(K1, { nonce: 0n })
    const a0 = sign1559(K0, { nonce: 0n })
    const c0 = sign1559(K2, { nonce: 0n })
    for (const raw of [b0, a0, c0]) await pool.add(raw)
    expect(pool.reapMaxBytesMaxGas(-1, -1n)).toEqual([b0, a0, c0])
  })

  it('stops at the gas limit and at the byte limit (protobuf size, as CometBFT counts)', async () => {
    const { pool } = makePool()
    const raws = [0n, 1n, 2n, 3n].map((nonce) => sign1559(K0, { nonce }))
    for (const raw of raws) await pool.add(raw)
    expect(pool.reapMaxBytesMaxGas(-1, 42_000n)).toEqual(raws.slice(0, 2))
    expect(pool.reapMaxBytesMaxGas(-1, 62_999n)).toEqual(raws.slice(0, 2))
    expect(pool.reapMaxBytesMaxGas(-1, 0n)).toEqual([])
    const twoTxs = protoSizeOfTx(raws[0]!.length) + protoSizeOfTx(raws[1]!.length)
    expect(protoSizeOfTx(raws[0]!.length)).toBe(raws[0]!.length + 2)
    expect(pool.reapMaxBytesMaxGas(twoTxs, -1n)).toEqual(raws.slice(0, 2))
    expect(pool.reapMaxBytesMaxGas(twoTxs + protoSizeOfTx(raws[2]!.length) - 1, -1n)).toEqual(raws.slice(0, 2))
    expect(pool.reapMaxTxs(3)).toEqual(raws.slice(0, 3))
    expect(pool.reapMaxTxs(-1)).toEqual(raws)
  })

  it('does not reap queued txs', async () => {
    const { pool } = makePool()
    const a0 = sign1559(K0, { nonce: 0n })
    await pool.add(a0)
    await pool.add(sign1559(K0, { nonce: 2n }))
    expect(pool.reapMaxBytesMaxGas(-1, -1n)).toEqual([a0])
  })

  it('protoSizeOfTx counts a multi-byte length varint', () => {
    expect(protoSizeOfTx(127)).toBe(129)
    expect(protoSizeOfTx(128)).toBe(131)
    expect(protoSizeOfTx(16384)).toBe(16388)
  })
})
