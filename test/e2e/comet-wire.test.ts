/**
 * Wire details of the consensus RPC that clients notice (issue 27 item 11), against a dev node over
 * real HTTP and WebSocket, each compared with CometBFT v0.38's bytes:
 * - numeric ids are Go ints (types.go `idFromInterface`: float64, then `int(id)`): 2^53+1 comes back as
 *   9007199254740992, an id beyond int64 as -9223372036854775808 (amd64), never as a rounded float;
 * - a body nested deeper than 10,000 levels is a parse error with Go's text, `exceeded max depth`;
 * - an empty batch `[]` decodes as zero requests, so CometBFT writes nothing: 200 with an empty body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestNode, waitForBlock, type TestNode } from '../helpers/dev-node.js'
import { request } from '../helpers/raw-http.js'
import { RawWsClient } from '../helpers/ws-client.js'

describe('consensus RPC wire details', () => {
  let t: TestNode
  let base: string
  const post = (body: string) => request(base + '/', { headers: { 'content-type': 'application/json' }, body })

  beforeAll(async () => {
    t = await startTestNode()
    base = t.addresses.cometRpc!.replace('tcp://', 'http://')
    // `/block?height=1` below must find block 1 (on a busy machine the first block may still be on its way).
    await waitForBlock(t, () => t.node.components.engine.height > 1, 20_000, 'block 1')
  })
  afterAll(async () => {
    await t?.destroy()
  })

  it.each([
    ['9007199254740993', '9007199254740992'],
    ['123456789012345678901234567890', '-9223372036854775808'],
    ['1234567890123456789', '1234567890123456768'],
    ['1.9', '1'],
    ['1e3', '1000'],
    ['"abc"', '"abc"'],
  ])('id %s comes back as %s over POST and WebSocket', async (sent, echoed) => {
    const body = `{"jsonrpc":"2.0","id":${sent},"method":"health","params":{}}`
    const reply = await post(body)
    expect(reply.body).toBe(`{"jsonrpc":"2.0","id":${echoed},"result":{}}`)
    const ws = await RawWsClient.connect(base.replace('http://', 'ws://') + '/websocket')
    try {
      ws.sendText(body)
      expect(await ws.waitForFrame((f: { result?: unknown }) => f.result !== undefined)).toBeDefined()
      expect(ws.frames.at(-1)).toBe(`{"jsonrpc":"2.0","id":${echoed},"result":{}}`)
    } finally {
      await ws.close()
    }
  })

  it('a body nested past 10,000 levels is -32700 with `exceeded max depth` (HTTP 500)', async () => {
    const deep = '[' + '['.repeat(100_000) + ']'.repeat(100_000) + ']'
    const reply = await post(deep)
    expect(reply.status).toBe(500)
    expect(reply.body).toBe(
      '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error. Invalid JSON","data":"error unmarshaling request: exceeded max depth"}}',
    )
    // The same depth with a syntax error after it: Go stops at the depth first.
    const broken = await post('[' + '['.repeat(20_000) + 'x')
    expect(JSON.parse(broken.body).error.data).toBe('error unmarshaling request: exceeded max depth')
  })

  it('an empty batch gets 200 and an empty body, as CometBFT writes nothing for zero requests', async () => {
    const reply = await post('[]')
    expect(reply.status).toBe(200)
    expect(reply.body).toBe('')
  })

  it("height as a JSON number or 1e3 is refused with cmtjson's text; the URI takes a bare integer only", async () => {
    const byNumber = await post('{"jsonrpc":"2.0","id":1,"method":"block","params":{"height":1}}')
    expect(byNumber.body).toBe(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":"error converting json params to arguments: invalid 64-bit integer encoding \\"1\\", expected string"}}',
    )
    const uri = await request(base + '/block?height=1e3', { method: 'GET' })
    expect(uri.status).toBe(500)
    expect(uri.body).toBe(
      '{"jsonrpc":"2.0","id":-1,"error":{"code":-32602,"message":"Invalid params","data":"error converting http params to arguments: invalid 64-bit integer encoding \\"1e3\\", expected string"}}',
    )
    expect((await request(base + '/block?height=1', { method: 'GET' })).status).toBe(200)
  })

  it('still commits afterwards', async () => {
    const start = t.node.components.engine.height
    await waitForBlock(t, () => t.node.components.engine.height > start, 20_000, 'a block after the bad input')
  })
})
