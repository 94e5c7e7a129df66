import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ContractConsole } from '../../../src/evm/tracing/contract-console.js'
import { TxCode } from '../../../src/evm/txs/tx-codes.js'
import { ADDRESS2, DEV_KEY, createHarness, sign1559, type Harness } from './helpers.js'

describe('a full block', () => {
  let h: Harness
  /** Turns of the event loop (setImmediate rounds) counted so far, read as each transaction begins. */
  let turns = 0
  const turnsAtTx: number[] = []
  // The application tells its contract console of each transaction about to run: the probe reads the count there.
  const probe = { attach() {}, beginTx: () => turnsAtTx.push(turns) } as unknown as ContractConsole
  beforeAll(async () => {
    h = await createHarness({ app: { contractConsole: probe } })
  })
  afterAll(() => h.close())

  it('hands the event loop over between transactions while it executes', async () => {
    const c = h.app.common
    // The sender's and recipient's accounts are read (and cached) by a first block: the big one waits on no disk read.
    await h.finalize([sign1559(c, DEV_KEY, { nonce: 0n, to: ADDRESS2, value: 1n })])
    const txs = Array.from({ length: 1000 }, (_, i) => sign1559(c, DEV_KEY, { nonce: BigInt(i + 1), to: ADDRESS2, value: 1n }))
    turnsAtTx.length = 0
    let done = false
    const tick = (): void => {
      if (done) return
      turns++
      setImmediate(tick)
    }
    setImmediate(tick)
    const response = await h.finalize(txs)
    done = true
    expect(response.txResults.map((t) => t.code)).toEqual(txs.map(() => TxCode.OK))
    // A thousand transfers take well over a hundred ms of execution; the loop turns at least every 8 ms of it.
    expect(turnsAtTx.at(-1)! - turnsAtTx[0]!).toBeGreaterThanOrEqual(8)
  })
})
