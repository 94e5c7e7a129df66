import { describe, expect, it } from 'vitest'
import { Dispatcher, defaultDispatcherOptions, type DispatcherOptions } from '../../../src/rpc/dispatcher.js'
import { defineMethod, optional, required, type CallContext } from '../../../src/rpc/method-table.js'
import { bool, quantity } from '../../../src/rpc/codecs.js'
import { RawJson } from '../../../src/rpc/raw-json.js'
import type { JsonRpcErrorObject } from '../../../src/rpc/json-rpc.js'
import type { ApiErrorRenderer } from '../../../src/rpc/render-evm-error.js'
import { NodeError } from '../../../src/utils/errors.js'
import { createLogger } from '../../../src/utils/logger.js'

const logged: string[] = []
const log = createLogger({ level: 'debug', format: 'plain', write: (line) => logged.push(line) })
const ctx: CallContext = { transport: 'http', authorized: true, loopback: true }
const calls: string[] = []
/** What test_raw serializes element by element. */
const RAW_ELEMENTS = [{ a: '0x1', b: [true, null] }, 'é', 12]

const table = [
  defineMethod('test_echo', [required(quantity), optional(bool, false)], ([n, flag]) => ({ n: '0x' + n.toString(16), flag })),
  defineMethod('test_async', [], async () => 'later'),
  defineMethod('test_note', [], () => {
    calls.push('note')
    return null
  }),
  defineMethod('test_fail', [], () => {
    throw new NodeError('insufficient funds for transfer')
  }),
  defineMethod('test_crash', [], () => {
    throw new TypeError('secret internal detail')
  }),
  defineMethod('test_big', [], () => 'x'.repeat(100)),
  defineMethod('priv_hidden', [], () => 'hidden'),
  defineMethod(
    'test_raw',
    [],
    () => new RawJson([Buffer.from('[' + RAW_ELEMENTS.map((e) => JSON.stringify(e)).join(',')), Buffer.from(']')]),
  ),
  defineMethod('test_rawAsync', [], async () => new RawJson([Buffer.from('[]')])),
]

/** The API's error table the dispatcher is given: here, every NodeError is -32000 with its message. */
const renderTestError: ApiErrorRenderer = (err) => (err instanceof NodeError ? { code: -32000, message: err.message } : undefined)

function make(opts: Partial<DispatcherOptions> = {}): Dispatcher {
  return new Dispatcher([table], { ...defaultDispatcherOptions, namespaces: ['test'], ...opts }, log, renderTestError)
}

/** One response object as the dispatcher writes it. */
interface Reply {
  jsonrpc: string
  id: unknown
  result?: unknown
  error?: JsonRpcErrorObject
}

/** Sends `body` and parses the answer: one reply, or `Reply[]` for a batch; undefined when nothing is answered. */
async function send<T = Reply>(d: Dispatcher, body: unknown): Promise<T | undefined> {
  const out = await d.handle(typeof body === 'string' ? body : JSON.stringify(body), ctx)
  return out === undefined ? undefined : (JSON.parse(out.toString('utf8')) as T)
}

describe('Dispatcher: single requests', () => {
  const d = make()

  it('answers number and string ids, with or without jsonrpc', async () => {
    expect(await send(d, { jsonrpc: '2.0', id: 7, method: 'test_echo', params: ['0x10'] })).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { n: '0x10', flag: false },
    })
    expect(await send(d, { jsonrpc: '2.0', id: 'abc', method: 'test_echo', params: ['0x1', true] })).toEqual({
      jsonrpc: '2.0',
      id: 'abc',
      result: { n: '0x1', flag: true },
    })
    expect(await send(d, { id: 1, method: 'test_async' })).toEqual({ jsonrpc: '2.0', id: 1, result: 'later' })
  })

  it('refuses a jsonrpc member that is not exactly "2.0" as an Invalid Request, notifications included', async () => {
    for (const version of ['1.0', '2', 2, null, '2.0 ']) {
      expect(await send(d, { jsonrpc: version, id: 3, method: 'test_echo', params: ['0x1'] })).toEqual({
        jsonrpc: '2.0',
        id: 3,
        error: { code: -32600, message: 'invalid request: "jsonrpc" must be "2.0"' },
      })
    }
    expect(await send(d, { jsonrpc: '1.0', method: 'test_note' })).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'invalid request: "jsonrpc" must be "2.0"' },
    })
  })

  it('answers synchronously when the handler is synchronous (hot path)', () => {
    const out = d.handle('{"jsonrpc":"2.0","id":1,"method":"test_echo","params":["0x1"]}', ctx)
    expect(typeof out).toBe('string')
  })

  it('gives notifications no reply but runs them', async () => {
    calls.length = 0
    expect(await send(d, { jsonrpc: '2.0', method: 'test_note' })).toBeUndefined()
    expect(await send(d, { jsonrpc: '2.0', method: 'nope_nope' })).toBeUndefined()
    expect(calls).toEqual(['note'])
  })

  it('parse error and invalid request', async () => {
    expect(await send(d, '{"jsonrpc":')).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } })
    expect(await send(d, '42')).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } })
    expect(await send(d, { jsonrpc: '2.0', id: 3 })).toEqual({ jsonrpc: '2.0', id: 3, error: { code: -32600, message: 'invalid request' } })
    expect(await send(d, { jsonrpc: '2.0', id: 3, method: 5 })).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32600, message: 'invalid request' },
    })
    expect(await send(d, { jsonrpc: '2.0', id: { a: 1 }, method: 'test_note' })).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'invalid request' },
    })
  })

  it('unknown method and disabled namespace read the same', async () => {
    expect((await send(d, { id: 1, method: 'eth_foo' }))?.error).toEqual({
      code: -32601,
      message: 'the method eth_foo does not exist/is not available',
    })
    expect((await send(d, { id: 1, method: 'priv_hidden' }))?.error).toEqual({
      code: -32601,
      message: 'the method priv_hidden does not exist/is not available',
    })
    expect(await send(make({ namespaces: ['test', 'priv'] }), { id: 1, method: 'priv_hidden' })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: 'hidden',
    })
  })

  it('renders param errors as geth', async () => {
    expect((await send(d, { id: 1, method: 'test_echo', params: ['ff'] }))?.error).toEqual({
      code: -32602,
      message: 'invalid argument 0: json: cannot unmarshal hex string without 0x prefix into Go value of type *hexutil.Big',
    })
    expect((await send(d, { id: 1, method: 'test_echo', params: ['0x1', 'yes'] }))?.error?.message).toBe(
      'invalid argument 1: json: cannot unmarshal string into Go value of type bool',
    )
    expect((await send(d, { id: 1, method: 'test_echo', params: [] }))?.error).toEqual({
      code: -32602,
      message: 'missing value for required argument 0',
    })
    expect((await send(d, { id: 1, method: 'test_echo' }))?.error?.message).toBe('missing value for required argument 0')
    expect((await send(d, { id: 1, method: 'test_echo', params: ['0x1', true, 3] }))?.error).toEqual({
      code: -32602,
      message: 'too many arguments, want at most 2',
    })
    expect((await send(d, { id: 1, method: 'test_async', params: [1] }))?.error?.message).toBe('too many arguments, want at most 0')
    expect((await send(d, { id: 1, method: 'test_echo', params: { a: 1 } }))?.error).toEqual({ code: -32602, message: 'non-array args' })
    // null for an optional argument means absent
    expect((await send(d, { id: 1, method: 'test_echo', params: ['0x1', null] }))?.result).toEqual({ n: '0x1', flag: false })
  })

  it("renders errors through the API's table and hides unexpected exceptions", async () => {
    expect((await send(d, { id: 1, method: 'test_fail' }))?.error).toEqual({ code: -32000, message: 'insufficient funds for transfer' })
    const withoutTable = new Dispatcher([table], { ...defaultDispatcherOptions, namespaces: ['test'] }, log)
    expect((await send(withoutTable, { id: 1, method: 'test_fail' }))?.error).toEqual({ code: -32603, message: 'internal error' })
    logged.length = 0
    const crash = await send(d, { id: 1, method: 'test_crash' })
    expect(crash?.error).toEqual({ code: -32603, message: 'internal error' })
    expect(JSON.stringify(crash)).not.toContain('secret')
    expect(logged.join('\n')).toContain('secret internal detail')
  })
})

describe('Dispatcher: batches', () => {
  it('empty batch is one error object', async () => {
    expect(await send(make(), [])).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'empty batch' } })
  })

  it('mixes calls, notifications and invalid entries in order', async () => {
    const out = await send(make(), [
      { jsonrpc: '2.0', id: 1, method: 'test_echo', params: ['0x2'] },
      { jsonrpc: '2.0', method: 'test_note' },
      1,
      { jsonrpc: '2.0', id: 'b', method: 'test_async' },
      { jsonrpc: '2.0', id: 2, method: 'missing_method' },
    ])
    expect(out).toEqual([
      { jsonrpc: '2.0', id: 1, result: { n: '0x2', flag: false } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } },
      { jsonrpc: '2.0', id: 'b', result: 'later' },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'the method missing_method does not exist/is not available' } },
    ])
  })

  it('a batch of notifications gets no reply', async () => {
    expect(await send(make(), [{ method: 'test_note' }, { method: 'test_note' }])).toBeUndefined()
  })

  it('limits the batch size', async () => {
    const batch = Array.from({ length: 4 }, (_, i) => ({ id: i + 10, method: 'test_async' }))
    expect(await send(make({ batchRequestLimit: 3 }), batch)).toEqual([
      { jsonrpc: '2.0', id: 10, error: { code: -32600, message: 'batch too large' } },
    ])
    expect((await send<Reply[]>(make({ batchRequestLimit: 4 }), batch))?.length).toBe(4)
  })

  it('limits the batch response size', async () => {
    const batch = Array.from({ length: 5 }, (_, i) => ({ id: i, method: 'test_big' }))
    const out = await send<Reply[]>(make({ batchResponseMaxSize: 250 }), batch)
    expect(out?.map((r) => r.result ?? r.error?.code)).toEqual(['x'.repeat(100), 'x'.repeat(100), -32003, -32003, -32003])
    expect(out?.[2]?.error?.message).toBe('response too large')
  })
})

describe('Dispatcher: RawJson results', () => {
  const d = make()

  it('writes a raw result as bytes identical to the JSON.stringify path, whatever the id', () => {
    for (const id of [1, 'ünïcode', null]) {
      const out = d.handle(JSON.stringify({ jsonrpc: '2.0', id, method: 'test_raw' }), ctx)
      expect(Buffer.isBuffer(out)).toBe(true)
      expect((out as Buffer).toString('utf8')).toBe(JSON.stringify({ jsonrpc: '2.0', id, result: RAW_ELEMENTS }))
    }
  })

  it('answers an asynchronous raw result, and an empty array', async () => {
    const out = await d.handle('{"jsonrpc":"2.0","id":4,"method":"test_rawAsync"}', ctx)
    expect(out?.toString('utf8')).toBe('{"jsonrpc":"2.0","id":4,"result":[]}')
  })

  it('joins raw and string replies of a batch into the bytes a string batch would be', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'test_raw' },
      { jsonrpc: '2.0', id: 'é', method: 'test_echo', params: ['0x2'] },
      { jsonrpc: '2.0', method: 'test_note' },
      { jsonrpc: '2.0', id: 3, method: 'test_rawAsync' },
    ]
    const out = await d.handle(JSON.stringify(batch), ctx)
    expect(Buffer.isBuffer(out)).toBe(true)
    expect(out?.toString('utf8')).toBe(
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, result: RAW_ELEMENTS },
        { jsonrpc: '2.0', id: 'é', result: { n: '0x2', flag: false } },
        { jsonrpc: '2.0', id: 3, result: [] },
      ]),
    )
  })
})
