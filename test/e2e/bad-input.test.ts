/**
 * Bad input against a real node: every case gets the right JSON-RPC error or HTTP status with a
 * message that says what was wrong, and the node keeps serving afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Wallet } from 'ethers'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { rpc, startTestNode, waitFor, type TestNode } from '../helpers/dev-node.js'

describe('bad input against a dev node', () => {
  let t: TestNode
  const post = (body: string, contentType = 'application/json') =>
    fetch(t.url, { method: 'POST', headers: { 'content-type': contentType }, body })

  beforeAll(async () => {
    t = await startTestNode()
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it('answers malformed JSON with -32700 and an unknown method with -32601', async () => {
    const parse = await post('{"jsonrpc":"2.0","id":1,"method":')
    expect(parse.status).toBe(200)
    expect(((await parse.json()) as { error: { code: number } }).error.code).toBe(-32700)
    expect((await rpc(t.url, 'eth_noSuchMethod')).error).toEqual({
      code: -32601,
      message: 'the method eth_noSuchMethod does not exist/is not available',
    })
    expect((await rpc(t.url, 'admin_peers')).error?.code).toBe(-32601)
  })

  it('names the argument of a wrong type', async () => {
    const r = await rpc(t.url, 'eth_getBalance', ['0x1234', 'latest'])
    expect(r.error?.code).toBe(-32602)
    expect(r.error?.message).toMatch(/^invalid argument 0: /)
    const q = await rpc(t.url, 'eth_getBlockByNumber', ['0x01', false])
    expect(q.error?.code).toBe(-32602)
    expect(q.error?.message).toMatch(/^invalid argument 0: .*leading zero/)
  })

  it('refuses a huge body with 413 and a form-encoded body with 415', async () => {
    const huge = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: ['x'.repeat(6 * 1024 * 1024)] }))
    expect(huge.status).toBe(413)
    const form = await post('a=b', 'application/x-www-form-urlencoded')
    expect(form.status).toBe(415)
  })

  it('rejects garbage, a bad signature and an unprotected transaction with geth messages', async () => {
    const garbage = await rpc(t.url, 'eth_sendRawTransaction', ['0xdeadbeef'])
    expect(garbage.error?.code).toBe(-32000)
    expect(garbage.error?.message).toMatch(/rlp|typed transaction|transaction type/)
    const wallet = new Wallet(devAccounts(1)[0]!.privateKey)
    const signed = await wallet.signTransaction({
      type: 2,
      chainId: 31337n,
      nonce: 0,
      gasLimit: 21000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
      to: wallet.address,
      value: 1n,
    })
    // Flip a byte of s: the signature no longer recovers to a valid sender (or recovers to a stranger).
    const bad = signed.slice(0, -4) + (signed.slice(-4) === 'ffff' ? '0000' : 'ffff')
    const badSig = await rpc(t.url, 'eth_sendRawTransaction', [bad])
    expect(badSig.error?.code).toBe(-32000)
    const wrongChain = await wallet.signTransaction({
      type: 2,
      chainId: 1n,
      nonce: 0,
      gasLimit: 21000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
      to: wallet.address,
    })
    expect((await rpc(t.url, 'eth_sendRawTransaction', [wrongChain])).error?.message).toMatch(/chain id/)
    const unprotected = await wallet.signTransaction({ type: 0, nonce: 0, gasLimit: 21000n, gasPrice: 10n ** 10n, to: wallet.address })
    expect((await rpc(t.url, 'eth_sendRawTransaction', [unprotected])).error).toEqual({
      code: -32000,
      message: 'only replay-protected (EIP-155) transactions allowed over RPC',
    })
  })

  it('keeps serving after all of that', async () => {
    expect((await rpc(t.url, 'eth_chainId')).result).toBe('0x7a69')
    // And the chain still makes blocks (the first may still be on its way on a busy machine).
    await waitFor(async () => Number((await rpc(t.url, 'eth_blockNumber')).result) >= 1, 20_000, 'block 1')
  })
})
