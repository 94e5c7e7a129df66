/**
 * One size limit for every way a transaction comes in (issue 27, severe 4): `[mempool] max_tx_bytes`,
 * geth's txMaxSize (128 KiB = 131072 bytes) by default. eth_sendRawTransaction refuses a larger one
 * with geth's `oversized data` (-32000); broadcast_tx_sync with CometBFT's mempool error (`Tx too
 * large`, before CheckTx); the application's CheckTx (`check_tx`) with geth's text as its log. A
 * transaction of exactly the limit is accepted on both submission paths.
 */
import { Wallet, getBytes, hexlify } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { cometRpc, rpc, startTestNode, type TestNode } from '../helpers/dev-node.js'

const CHAIN_ID = 31337n
const GWEI = 10n ** 9n
const [A, B, C] = devAccounts(3).map((a) => new Wallet(a.privateKey))

/**
 * A signed transaction of exactly `size` encoded bytes: zero calldata sized to fit (a signature's r and
 * s may be a byte shorter, so the length is corrected until it matches).
 */
async function signOfSize(wallet: Wallet, size: number): Promise<Uint8Array> {
  let dataLength = size - 200
  for (let attempt = 0; attempt < 20; attempt++) {
    const raw = getBytes(
      await wallet.signTransaction({
        type: 2,
        chainId: CHAIN_ID,
        nonce: 0,
        gasLimit: 1_000_000n,
        maxFeePerGas: 10n * GWEI,
        maxPriorityFeePerGas: GWEI,
        to: wallet.address,
        data: hexlify(new Uint8Array(dataLength)),
      }),
    )
    if (raw.length === size) return raw
    dataLength += size - raw.length
  }
  throw new Error(`could not sign a transaction of ${size} bytes`)
}

const base64 = (raw: Uint8Array) => Buffer.from(raw).toString('base64')

/** A consensus-RPC JSON-RPC call's whole reply. */
async function cometCall(t: TestNode, method: string, params: Record<string, unknown>): Promise<{ result?: unknown; error?: unknown }> {
  const res = await fetch(t.addresses.cometRpc!.replace(/^tcp:/, 'http:'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return (await res.json()) as { result?: unknown; error?: unknown }
}

const LIMITS: [string, number, Record<string, unknown>][] = [
  ['the default limit (131072 bytes)', 131_072, {}],
  ['a configured max_tx_bytes', 65_536, { 'mempool.max_tx_bytes': '65536' }],
]

describe.each(LIMITS)('transaction size, at %s', (_name, limit, flags) => {
  let t: TestNode
  beforeAll(async () => {
    t = await startTestNode({ flags })
  })
  afterAll(() => t.destroy())

  it('eth_sendRawTransaction: the limit is accepted, one byte more is geth\'s "oversized data"', async () => {
    const atLimit = await signOfSize(A!, limit)
    expect((await rpc(t.url, 'eth_sendRawTransaction', [hexlify(atLimit)])).error).toBeUndefined()
    const over = await signOfSize(C!, limit + 1)
    expect((await rpc(t.url, 'eth_sendRawTransaction', [hexlify(over)])).error).toEqual({
      code: -32000,
      message: `oversized data: transaction size ${limit + 1}, limit ${limit}`,
    })
  })

  it("broadcast_tx_sync: the limit is accepted, one byte more is the mempool's Tx too large", async () => {
    const atLimit = await signOfSize(B!, limit)
    expect((await cometCall(t, 'broadcast_tx_sync', { tx: base64(atLimit) })).result).toMatchObject({ code: 0 })
    const over = await signOfSize(C!, limit + 1)
    expect((await cometCall(t, 'broadcast_tx_sync', { tx: base64(over) })).error).toEqual({
      code: -32603,
      message: 'Internal error',
      data: `Tx too large. Max size is ${limit}, but got ${limit + 1}`,
    })
  })

  it("check_tx: the application's CheckTx refuses one byte more with geth's text", async () => {
    const over = await signOfSize(C!, limit + 1)
    expect(await cometRpc(t, 'check_tx', { tx: base64(over) })).toMatchObject({
      code: 21,
      log: `oversized data: transaction size ${limit + 1}, limit ${limit}`,
      codespace: 'evm',
    })
    // No path took an oversized transaction of C's.
    expect((await rpc(t.url, 'eth_getTransactionCount', [C!.address, 'pending'])).result).toBe('0x0')
  })
})
