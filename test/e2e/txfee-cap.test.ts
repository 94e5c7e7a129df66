/**
 * `[json-rpc] txfee-cap` (geth `checkTxFee`): eth_sendRawTransaction refuses a transaction whose gas
 * limit × fee cap exceeds the cap, with geth's message; the consensus RPC's broadcast_tx_* are not the
 * JSON-RPC and take it, as in Evmos.
 */
import { Wallet, getBytes } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { rpc, startTestNode, type TestNode } from '../helpers/dev-node.js'

const GWEI = 10n ** 9n

describe('txfee-cap', () => {
  let t: TestNode
  let wallet: Wallet
  let chainId: bigint
  beforeAll(async () => {
    t = await startTestNode({ flags: { 'json-rpc.txfee-cap': '0.5' } })
    wallet = new Wallet(devAccounts(2)[1]!.privateKey)
    chainId = BigInt((await rpc<string>(t.url, 'eth_chainId')).result!)
  })
  afterAll(() => t.destroy())

  const sign = (nonce: number, gasLimit: bigint, maxFeePerGas: bigint) =>
    wallet.signTransaction({ type: 2, chainId, nonce, gasLimit, maxFeePerGas, maxPriorityFeePerGas: GWEI, to: wallet.address, value: 1n })

  it('refuses over eth_sendRawTransaction a tx whose fee could exceed the cap', async () => {
    // 1,000,000 gas × 1,000 gwei = 1 ether > 0.5.
    const reply = await rpc(t.url, 'eth_sendRawTransaction', [await sign(0, 1_000_000n, 1000n * GWEI)])
    expect(reply.error).toEqual({ code: -32000, message: 'tx fee (1.00 ether) exceeds the configured cap (0.50 ether)' })
    expect((await rpc(t.url, 'txpool_status')).result).toEqual({ pending: '0x0', queued: '0x0' })
  })

  it('accepts one under the cap', async () => {
    const reply = await rpc(t.url, 'eth_sendRawTransaction', [await sign(0, 21_000n, 100n * GWEI)])
    expect(reply.error).toBeUndefined()
    expect(reply.result).toMatch(/^0x[0-9a-f]{64}$/)
  })

  it('leaves the consensus RPC broadcast_tx_sync without the JSON-RPC cap', async () => {
    const raw = await sign(1, 1_000_000n, 1000n * GWEI)
    const res = await fetch(t.addresses.cometRpc!.replace(/^tcp:/, 'http:'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'broadcast_tx_sync',
        params: { tx: Buffer.from(getBytes(raw)).toString('base64') },
      }),
    })
    expect(((await res.json()) as { result: { code: number } }).result.code).toBe(0)
  })
})
