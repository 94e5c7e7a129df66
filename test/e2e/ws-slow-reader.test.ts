/**
 * A WebSocket client of a real node that pipelines thousands of eth_getBlockByNumber(…, true) and never
 * reads is dropped (issue 27, item 7): its answers wait to be written like notifications do, and once none
 * of them has reached the kernel for the write deadline (`writeWait`, 10 s by default, shortened here)
 * the node disconnects it; other clients are served on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RawWsClient } from '../helpers/ws-client.js'
import { rpc, startTestNode, type TestNode } from '../helpers/dev-node.js'
import { captureLog, type LogCapture } from '../helpers/log-capture.js'

/** Requests sent: their answers (1.4 KB each, 14 MB) outgrow the kernel's socket buffers on both ends. */
const REQUESTS = 10_000

describe('a WebSocket client that never reads', () => {
  let t: TestNode
  let log: LogCapture
  beforeAll(async () => {
    log = captureLog('warn')
    t = await startTestNode({ log: log.logger, nodeOptions: { jsonRpc: { ws: { writeWait: 200 } } } })
  })
  afterAll(() => t?.destroy())

  it('is dropped once its pipelined answers stop draining, and the node serves others', async () => {
    const client = await RawWsClient.connect(t.addresses.jsonRpcWs!)
    expect(await client.call('eth_blockNumber')).toMatch(/^0x/)
    client.ws.pause()
    for (let id = 0; id < REQUESTS; id++) {
      client.sendText(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_getBlockByNumber', params: ['latest', true] }))
    }
    expect(await log.logged(/websocket write deadline passed, disconnecting/)).toMatch(/waiting=\d+/)
    client.ws.resume()
    expect((await client.waitForClose(60_000)).code).toBe(1006)
    const other = await RawWsClient.connect(t.addresses.jsonRpcWs!)
    expect(await other.call('eth_chainId')).toBe('0x7a69')
    await other.close()
    expect((await rpc(t.url, 'eth_chainId')).result).toBe('0x7a69')
  }, 60_000)
})
