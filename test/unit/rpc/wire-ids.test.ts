/**
 * Wire details clients notice (issue 27 item 11), EVM side: ids come back as the bytes received (geth
 * keeps them as `json.RawMessage`, rpc/json.go `appendMessage`), and a body nested deeper than Go's
 * 10,000 levels is -32700 (`parse error` over HTTP, rpc/server.go; `exceeded max depth` over
 * WebSocket, rpc/client.go `read`).
 */
import { describe, expect, it } from 'vitest'
import { Dispatcher, defaultDispatcherOptions } from '../../../src/rpc/dispatcher.js'
import { any } from '../../../src/rpc/codecs.js'
import { defineMethod, optional, type CallContext } from '../../../src/rpc/method-table.js'
import { silentLogger } from '../../../src/utils/logger.js'

const d = new Dispatcher(
  [[defineMethod('test_one', [optional(any, null)], () => 1)]],
  { ...defaultDispatcherOptions, namespaces: ['test'] },
  silentLogger,
)
const http = { transport: 'http' as const, authorized: true, loopback: true }
const ws = { transport: 'ws' as const, authorized: true, loopback: true }
const text = async (body: string, ctx: CallContext = http) => String(await d.handle(body, ctx))

describe('ids echoed as received', () => {
  it.each(['123456789012345678901234567890', '9007199254740993', '1.0', '1e3', '-0', '"\\u0041"', '"a\\/b"', '17', '"x"'])(
    'id %s',
    async (id) => {
      expect(await text(`{"jsonrpc":"2.0","id":${id},"method":"test_one"}`)).toBe(`{"jsonrpc":"2.0","id":${id},"result":1}`)
      expect(await text(`{"method":"test_one","params":[{"id":5}],"id" : ${id},"jsonrpc":"2.0"}`)).toBe(
        `{"jsonrpc":"2.0","id":${id},"result":1}`,
      )
      expect(await text(`[{"jsonrpc":"2.0","id":${id},"method":"test_one"}]`)).toBe(`[{"jsonrpc":"2.0","id":${id},"result":1}]`)
    },
  )

  it('a duplicate id: the last one counts, as in Go', async () => {
    expect(await text('{"id":1,"method":"test_one","id":2.50}')).toBe('{"jsonrpc":"2.0","id":2.50,"result":1}')
  })
})

describe('nesting deeper than 10,000 levels', () => {
  const deep = (n: number) => '[' + '['.repeat(n) + ']'.repeat(n) + ']'
  it('is -32700 parse error over HTTP and exceeded max depth over WebSocket', async () => {
    expect(await text(deep(10_000))).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}')
    expect(await text(deep(100_000), ws)).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"exceeded max depth"}}')
    // 10,000 levels in all is still decoded (an invalid request inside a batch).
    expect(await text(deep(9_999))).toBe('[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}]')
  })
})
