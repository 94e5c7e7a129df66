/** What the pool reports to its metrics recorder: admissions with their size, refusals by reason, evictions, re-checks. */
import { describe, expect, it } from 'vitest'
import type { TxPoolMetrics } from '../../../src/txpool/pool-metrics.js'
import { TxPoolRejection } from '../../../src/txpool/tx-pool-error.js'
import { GWEI, KEYS, makePool, sign1559 } from './helpers.js'

const [K0, K1, K2] = KEYS as [Uint8Array, Uint8Array, Uint8Array]
const fee = (tip: bigint) => ({ tip: tip * GWEI, feeCap: 100n * GWEI })

/** A recorder that writes down every call. */
function recorder() {
  const calls = { added: [] as number[], refused: [] as string[], evicted: [] as number[], rechecked: [] as number[] }
  const metrics: TxPoolMetrics = {
    added: (size) => calls.added.push(size),
    refused: (reason) => calls.refused.push(reason),
    evicted: (count) => calls.evicted.push(count),
    rechecked: (count) => calls.rechecked.push(count),
  }
  return { calls, metrics }
}

describe('txpool metrics', () => {
  it('reports each admission with its size, each refusal with its reason, and evictions from a full pool', async () => {
    const { calls, metrics } = recorder()
    const { pool } = makePool({ globalSlots: 3, globalQueue: 1 }, undefined, {}, metrics)
    const raws = [sign1559(K0, { nonce: 0n, ...fee(1n) }), sign1559(K1, { nonce: 0n, ...fee(2n) }), sign1559(K2, { nonce: 0n, ...fee(3n) })]
    raws.push(sign1559(K0, { nonce: 1n, ...fee(4n) }))
    for (const raw of raws) await pool.add(raw)
    expect(calls.added).toEqual(raws.map((raw) => raw.length))
    expect(calls.evicted).toEqual([])

    // Full: a better transaction takes the cheapest one's place; a worse one is refused.
    const better = sign1559(K2, { nonce: 1n, ...fee(5n) })
    await pool.add(better)
    expect(calls.evicted).toEqual([1])
    expect(calls.added.at(-1)).toBe(better.length)
    await expect(pool.add(sign1559(K1, { nonce: 1n, ...fee(1n) }))).rejects.toThrow('txpool is full')
    // A replacement takes its predecessor's place without evicting anything.
    await pool.add(sign1559(K1, { nonce: 0n, tip: 3n * GWEI, feeCap: 200n * GWEI }))
    expect(calls.evicted).toEqual([1])
    await expect(pool.add(sign1559(K1, { nonce: 0n, tip: 3n * GWEI, feeCap: 201n * GWEI }))).rejects.toThrow(
      'replacement transaction underpriced',
    )
    await expect(pool.add(better)).rejects.toThrow('already known')
    await expect(pool.add(new Uint8Array([1, 2, 3]))).rejects.toThrow()
    expect(calls.refused).toEqual([
      TxPoolRejection.PoolFull,
      TxPoolRejection.ReplaceUnderpriced,
      TxPoolRejection.AlreadyKnown,
      TxPoolRejection.CheckTx,
    ])
  })

  it('reports how many transactions a block leaves to re-check', async () => {
    const { calls, metrics } = recorder()
    const { pool } = makePool({}, undefined, {}, metrics)
    const included = sign1559(K0, { nonce: 0n })
    await pool.add(included)
    await pool.add(sign1559(K1, { nonce: 0n }))
    await pool.add(sign1559(K2, { nonce: 0n }))
    await pool.update(1, [included])
    expect(calls.rechecked).toEqual([2])
  })
})
