/**
 * The bad-input corpus (test/corpus/wire-cases.ts) against one dev node: every case gets the answer
 * geth or CometBFT gives to the same bytes, and the node still commits afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GENERATED_INT_CASES, WIRE_CASES, type WireCase } from '../corpus/wire-cases.js'
import { startTestNode, waitForBlock, type TestNode } from '../helpers/dev-node.js'
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

  it('generates a case for each integer parameter of the route table', () => {
    expect(GENERATED_INT_CASES.length).toBeGreaterThan(10)
  })

  it('still commits after the whole corpus', async () => {
    const start = t.node.components.engine.height
    await waitForBlock(t, () => t.node.components.engine.height > start, 20_000, 'a block after the corpus')
  })
})
