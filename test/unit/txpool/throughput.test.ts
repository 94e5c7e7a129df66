/**
 * Volume: one sender far above accountSlots, 5,000 txs from 10 senders, and work per transaction that
 * stays flat as the pool grows. Counted, never timed (a test does not assert timing): the pool's
 * speed is measured by `npm run bench`.
 */
import { describe, expect, it } from 'vitest'
import type { DecodedTx } from '../../../src/evm/txs/tx.js'
import { keccak256, privateKeyToAddress } from '../../../src/crypto/index.js'
import { bytesToHex, utf8ToBytes } from '../../../src/primitives/hex.js'
import { ADDRS, ETHER, KEYS, decode, makePool, sign1559Fast } from './helpers.js'

let tenSenders: { keys: Uint8Array[]; raws: Uint8Array[]; decoded: Map<Uint8Array, DecodedTx> } | undefined

/**
 * 5,000 signed transfers, nonces 0..499 of 10 senders, interleaved. Decoding (sender recovery) belongs
 * to evm/txs/tx.ts and happens once per tx; it is done here ahead of time, once for every test.
 */
function getTenSenders(): NonNullable<typeof tenSenders> {
  if (tenSenders) return tenSenders
  const keys = Array.from({ length: 10 }, (_, i) => keccak256(utf8ToBytes(`txpool sender ${i}`)))
  const raws: Uint8Array[] = []
  for (let n = 0n; n < 500n; n++) for (const key of keys) raws.push(sign1559Fast(key, n))
  tenSenders = { keys, raws, decoded: new Map(raws.map((raw) => [raw, decode(raw)])) }
  return tenSenders
}

/** `tx` with every read of its fields counted in `counter.reads`. */
function counting(tx: DecodedTx, counter: { reads: number }): DecodedTx {
  return new Proxy(tx, {
    get(target, key) {
      counter.reads++
      return Reflect.get(target, key)
    },
  })
}

describe('txpool throughput', () => {
  it('accepts 500 pending txs from one sender (accountSlots is a minimum, not a cap)', async () => {
    const { pool } = makePool()
    const raws = Array.from({ length: 500 }, (_, i) => sign1559Fast(KEYS[0]!, BigInt(i)))
    for (const raw of raws) await pool.add(raw)
    expect(pool.status()).toEqual({ pending: 500, queued: 0 })
    expect(await pool.pendingNonce(ADDRS[0]!)).toBe(500n)
    expect(pool.reapMaxBytesMaxGas(-1, -1n)).toEqual(raws)
  })

  it('admits 5,000 txs from 10 senders, reading each sender state once, then reaps and re-checks them', async () => {
    const { keys, raws, decoded } = getTenSenders()
    const { pool, state } = makePool({}, (raw) => decoded.get(raw)!)
    for (const key of keys) state.set(bytesToHex(privateKeyToAddress(key)), 0n, 1000n * ETHER)
    for (const raw of raws) await pool.add(raw)
    expect(pool.status()).toEqual({ pending: 5000, queued: 0 })
    expect(state.reads).toBe(10)
    expect(pool.reapMaxBytesMaxGas(-1, -1n)).toHaveLength(5000)
    for (const key of keys) state.set(bytesToHex(privateKeyToAddress(key)), 250n, 1000n * ETHER)
    await pool.update(1, raws.slice(0, 2500), [])
    expect(pool.status()).toEqual({ pending: 2500, queued: 0 })
    expect(state.reads).toBe(20)
  })

  it('does the same work per tx in a pool twice as large: no pass over the pool per tx', async () => {
    const { keys, raws, decoded } = getTenSenders()
    /** Reads of decoded-tx fields per tx while admitting, reaping and re-checking the first `n` txs. */
    const workPerTx = async (n: number): Promise<{ add: number; reap: number; update: number }> => {
      const counter = { reads: 0 }
      const counted = new Map(raws.slice(0, n).map((raw) => [raw, counting(decoded.get(raw)!, counter)]))
      const { pool, state } = makePool({}, (raw) => counted.get(raw)!)
      for (const key of keys) state.set(bytesToHex(privateKeyToAddress(key)), 0n, 1000n * ETHER)
      for (const raw of counted.keys()) await pool.add(raw)
      const add = counter.reads / n
      counter.reads = 0
      expect(pool.reapMaxBytesMaxGas(-1, -1n)).toHaveLength(n)
      const reap = counter.reads / n
      counter.reads = 0
      for (const key of keys) state.set(bytesToHex(privateKeyToAddress(key)), BigInt(n / 20), 1000n * ETHER)
      await pool.update(1, raws.slice(0, n / 2), [])
      expect(pool.status()).toEqual({ pending: n / 2, queued: 0 })
      return { add, reap, update: counter.reads / (n / 2) }
    }
    const small = await workPerTx(1000)
    const large = await workPerTx(2000)
    // A pass over the pool per tx would double the reads per tx; a heap adds one comparison level.
    expect(large.add).toBeLessThan(small.add * 1.3)
    expect(large.reap).toBeLessThan(small.reap * 1.3)
    expect(large.update).toBeLessThan(small.update * 1.3)
  })

  it('admits 5,000 concurrently submitted txs', async () => {
    const { keys, raws, decoded } = getTenSenders()
    const { pool, state } = makePool({}, (raw) => decoded.get(raw)!)
    for (const key of keys) state.set(bytesToHex(privateKeyToAddress(key)), 0n, 1000n * ETHER)
    // reversed: the highest nonces arrive first and wait in the queue until the gaps fill
    const results = await Promise.allSettled(
      [...raws]
        .reverse()
        .slice(0, 600)
        .map((raw) => pool.add(raw)),
    )
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true)
    expect(pool.status()).toEqual({ pending: 0, queued: 600 })
    await Promise.all(raws.slice(0, 4400).map((raw) => pool.add(raw)))
    expect(pool.status()).toEqual({ pending: 5000, queued: 0 })
  })
})
