/**
 * The bad-input corpus (test/corpus/wire-cases.ts, tx-cases.ts) against one dev node: every case gets the
 * answer geth or CometBFT gives to the same bytes, and the node still commits afterwards.
 */
import { Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { devAccounts } from '../../src/keystore/dev-accounts.js'
import { TX_CASES, type TxCase } from '../corpus/tx-cases.js'
import { GENERATED_INT_CASES, WIRE_CASES, type WireCase } from '../corpus/wire-cases.js'
import { rpc, startTestNode, waitForBlock, type TestNode } from '../helpers/dev-node.js'
import { request } from '../helpers/raw-http.js'
import { RawWsClient } from '../helpers/ws-client.js'

describe('bad-input corpus', () => {
  let t: TestNode
  let comet: string

  beforeAll(async () => {
    t = await startTestNode()
    comet = t.addresses.cometRpc!.replace('tcp://', 'http://')
  })
  afterAll(async () => {
    await t?.destroy()
  })

  /** The answer to one case: HTTP status (undefined over WebSocket) and text. */
  async function answer(c: WireCase): Promise<{ status?: number; body: string }> {
    const json = { 'content-type': 'application/json' }
    switch (c.surface) {
      case 'evm-http':
        return request(t.url, { headers: json, body: c.send })
      case 'comet-post':
        return request(comet + '/', { headers: json, body: c.send })
      case 'comet-uri':
        return request(comet + c.send, { method: 'GET' })
      case 'evm-ws':
      case 'comet-ws': {
        const url = c.surface === 'evm-ws' ? t.addresses.jsonRpcWs! : comet.replace('http://', 'ws://') + '/websocket'
        const ws = await RawWsClient.connect(url)
        try {
          ws.sendText(c.send)
          const [frame] = await ws.waitForFrames(1)
          return { body: frame! }
        } finally {
          await ws.close()
        }
      }
    }
  }

  it.each([...WIRE_CASES, ...GENERATED_INT_CASES].map((c) => [`${c.surface}: ${c.name}`, c] as const))('%s', async (_name, c) => {
    const got = await answer(c)
    if (c.status !== undefined) expect(got.status, c.source).toBe(c.status)
    if (typeof c.body === 'string') expect(got.body, c.source).toBe(c.body)
    else expect(got.body, c.source).toMatch(c.body)
  })

  it.each(TX_CASES.map((c) => [c.name, c] as const))('transaction: %s', async (_name, c: TxCase) => {
    const signer = c.unfunded ? new Wallet('0x' + '42'.repeat(32)) : new Wallet(devAccounts(1)[0]!.privateKey)
    const raw = c.raw ?? (await signer.signTransaction(c.tx!))
    const { error } = await rpc(t.url, 'eth_sendRawTransaction', [raw])
    expect(error?.code, c.source).toBe(-32000)
    if (typeof c.message === 'string') expect(error?.message, c.source).toBe(c.message)
    else expect(error?.message, c.source).toMatch(c.message)
  })

  it('generates a case for each integer parameter of the route table', () => {
    expect(GENERATED_INT_CASES.length).toBeGreaterThan(10)
  })

  it('still commits after the whole corpus', async () => {
    const start = t.node.components.engine.height
    await waitForBlock(t, () => t.node.components.engine.height > start, 20_000, 'a block after the corpus')
  })
})
