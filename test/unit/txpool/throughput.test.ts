/** Volume: one sender far above accountSlots, and 5,000 txs from 10 senders admitted quickly. */
import { describe, expect, it } from 'vitest'
import type { DecodedTx } from '../../../src/chain/evm/tx.js'
import { keccak256, privateKeyToAddress } from '../../../src/crypto/index.js'
import { bytesToHex, utf8ToBytes } from '../../../src/primitives/hex.js'
import { ADDRS, ETHER, KEYS, decode, makePool, sign1559Fast } from './helpers.js'

/** CPU milliseconds this process has used: unlike wall time, not inflated by other processes on a busy machine. */
const cpuMs = (): number => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

let tenSenders: { keys: Uint8Array[]; raws: Uint8Array[]; decoded: Map<Uint8Array, DecodedTx> } | undefined

/**
 * 5,000 signed transfers, nonces 0..499 of 10 senders, interleaved. Decoding (sender recovery) belongs
 * to chain/evm/tx.ts and happens once per tx; it is done here ahead of time so the timings are the pool's.
 */
function getTenSenders(): NonNullable<typeof tenSenders> {
  if (tenSenders) return tenSenders
  const keys = Array.from({ length: 10 }, (_, i) => keccak256(utf8ToBytes(`txpool sender ${i}`)))
  const raws: Uint8Array[] = []
  for (let n = 0n; n < 500n; n++) for (const key of keys) raws.push(sign1559Fast(key, n))
  tenSenders = { keys, raws, decoded: new Map(raws.map((raw) => [raw, decode(raw)])) }
  return tenSenders
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

  it('admits 5,000 txs from 10 senders in well under a second, reading each sender state once', async () => {
    const { keys, raws, decoded } = getTenSenders()
    const { pool, state } = makePool({}, (raw) => decoded.get(raw)!)
    for (const key of keys) state.set(bytesToHex(privateKeyToAddress(key)), 0n, 1000n * ETHER)
    // measured about 60 ms on 2 cores; the bounds leave room for a slow machine
    const start = cpuMs()
    for (const raw of raws) await pool.add(raw)
    expect(cpuMs() - start).toBeLessThan(600)
    expect(pool.status()).toEqual({ pending: 5000, queued: 0 })
    expect(state.reads).toBe(10)
    const reapStart = cpuMs()
    expect(pool.reapMaxBytesMaxGas(-1, -1n)).toHaveLength(5000)
    expect(cpuMs() - reapStart).toBeLessThan(300)
    const updateStart = cpuMs()
    for (const key of keys) state.set(bytesToHex(privateKeyToAddress(key)), 250n, 1000n * ETHER)
    await pool.update(1, raws.slice(0, 2500), [])
    expect(cpuMs() - updateStart).toBeLessThan(300)
    expect(pool.status()).toEqual({ pending: 2500, queued: 0 })
  })

  it('admits 5,000 concurrently submitted txs', async () => {
    const { keys, raws, decoded } = getTenSenders()
    const { pool, state } = makePool({}, (raw) => decoded.get(raw)!)
    for (const key of keys) state.set(bytesToHex(privateKeyToAddress(key)), 0n, 1000n * ETHER)
    // reversed: the highest nonces arrive first and wait in the queue until the gaps fill
    const results = await Promise.allSettled([...raws].reverse().slice(0, 600).map((raw) => pool.add(raw)))
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true)
    expect(pool.status()).toEqual({ pending: 0, queued: 600 })
    await Promise.all(raws.slice(0, 4400).map((raw) => pool.add(raw)))
    expect(pool.status()).toEqual({ pending: 5000, queued: 0 })
  })
})
