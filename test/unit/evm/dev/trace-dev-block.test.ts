/**
 * Tracing a dev block re-executes it as it ran: the sets it opens with are applied before its
 * transactions, so a trace sees the state the transaction saw.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { encodeDevOp } from '../../../../src/evm/dev/ops.js'
import { NodeDebugBackend } from '../../../../src/node/debug-backend.js'
import { bytesToHex } from '../../../../src/primitives/hex.js'
import { createHarness, DEV_KEY, ETHER, sign1559, type Harness } from '../helpers.js'

const X = new Uint8Array(20).fill(0x5a)

describe('traces of dev blocks', () => {
  let h: Harness | undefined
  afterEach(async () => {
    await h?.close()
  })

  it('applies the block’s sets before its transactions', async () => {
    h = await createHarness({ app: { dev: true } })
    const set = encodeDevOp({ kind: 'setBalance', address: X, balance: 5n * ETHER })
    const tx = sign1559(h.app.common, DEV_KEY, { nonce: 0n, to: bytesToHex(X) as `0x${string}`, value: 1n })
    await h.finalize([set, tx])
    const [hash] = (await h.app.getBlock(1))!.transactions
    const debug = new NodeDebugBackend({ app: h.app, pool: { get: () => undefined } })
    const prestate = (await debug.traceTransaction(hash!, {
      tracer: 'prestateTracer',
      tracerConfig: undefined,
      structLogger: { enableMemory: false, disableStack: false, disableStorage: false, enableReturnData: false, limit: 0 },
      timeoutMs: 5000,
    })) as Record<string, { balance: string }>
    expect(BigInt(prestate[bytesToHex(X)]!.balance)).toBe(5n * ETHER)
  })
})
