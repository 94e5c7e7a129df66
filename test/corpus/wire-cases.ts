/**
 * The bad-input corpus, as data: each case is what a client sends on one surface and the answer geth or
 * CometBFT v0.38 gives to the same bytes, with where that answer comes from. test/e2e/bad-input-corpus.test.ts
 * sends every case to one dev node and checks the answer and that the node still commits afterwards.
 * Add a case by appending a row; `{deep:N}` in a body is replaced by N nested `[`…`]`.
 */

import { COMET_ROUTE_MAP } from '../../src/api/comet/routes.js'

/** Where a case is sent. */
export type Surface = 'evm-http' | 'evm-ws' | 'comet-post' | 'comet-uri' | 'comet-ws'

/** One hostile input and the reference answer. */
export interface WireCase {
  surface: Surface
  name: string
  /** The body (POST, WebSocket text frame) or, for `comet-uri`, the path and query. */
  send: string
  /** HTTP status (HTTP surfaces only). */
  status?: number
  /** The exact answer text, or a pattern where part of it is not yet Go's text. */
  body: string | RegExp
  /** The reference: which implementation answers so, and where. */
  source: string
}

const GETH_ID = 'geth rpc/json.go appendMessage: the id is echoed as the raw bytes received'
const COMET_ID = 'CometBFT rpc/jsonrpc/types idFromInterface: float64 → int(id), amd64 overflow = min int64'
const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n)

export const WIRE_CASES: WireCase[] = [
  // EVM over HTTP
  ...['123456789012345678901234567890', '9007199254740993', '1.0', '1e3', '-0', '"\\u0041"'].map(
    (id): WireCase => ({
      surface: 'evm-http',
      name: `id ${id}`,
      send: `{"jsonrpc":"2.0","id":${id},"method":"eth_chainId"}`,
      status: 200,
      body: `{"jsonrpc":"2.0","id":${id},"result":"0x7a69"}`,
      source: GETH_ID,
    }),
  ),
  {
    surface: 'evm-http',
    name: '100,000-deep nesting inside a batch',
    send: `[${deepArray(100_000)}]`,
    status: 200,
    body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}',
    source: 'geth rpc/server.go serveSingleRequest: every read error is -32700 `parse error` over HTTP',
  },
  {
    surface: 'evm-http',
    name: 'empty batch',
    send: '[]',
    status: 200,
    body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}',
    source: 'geth rpc/handler.go handleBatch: errMsgEmptyBatch',
  },
  // EVM over WebSocket
  {
    surface: 'evm-ws',
    name: 'id beyond 2^64',
    send: '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"eth_chainId"}',
    body: '{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":"0x7a69"}',
    source: GETH_ID,
  },
  {
    surface: 'evm-ws',
    name: '100,000-deep nesting',
    send: `[${deepArray(100_000)}]`,
    body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"exceeded max depth"}}',
    source: 'geth rpc/client.go read: a decoder SyntaxError is -32700 with its text',
  },
  // Consensus RPC, JSON-RPC POST
  ...[
    ['9007199254740993', '9007199254740992'],
    ['123456789012345678901234567890', '-9223372036854775808'],
    ['1.9', '1'],
  ].map(
    ([sent, echoed]): WireCase => ({
      surface: 'comet-post',
      name: `id ${sent}`,
      send: `{"jsonrpc":"2.0","id":${sent},"method":"health","params":{}}`,
      status: 200,
      body: `{"jsonrpc":"2.0","id":${echoed},"result":{}}`,
      source: COMET_ID,
    }),
  ),
  {
    surface: 'comet-post',
    name: 'empty batch',
    send: '[]',
    status: 200,
    body: '',
    source: 'CometBFT http_json_handler.go: `[]` decodes as zero requests; nothing is written',
  },
  {
    surface: 'comet-post',
    name: 'batch over max_request_batch_size',
    send: JSON.stringify(Array.from({ length: 11 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'health' }))),
    status: 200,
    body: '{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"batch request exceeds maximum (10) allowed number of requests"}}',
    source:
      'CometBFT rpc/jsonrpc/server/http_server.go maxBatchSizeMiddleware: RPCInvalidRequestError(nil, …) through WriteRPCResponseHTTP',
  },
  {
    surface: 'comet-post',
    name: '100,000-deep nesting',
    send: `[${deepArray(100_000)}]`,
    status: 500,
    body: '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error. Invalid JSON","data":"error unmarshaling request: exceeded max depth"}}',
    source: 'CometBFT http_json_handler.go RPCParseError + encoding/json maxNestingDepth',
  },
  {
    surface: 'comet-post',
    name: 'height as a JSON number',
    send: '{"jsonrpc":"2.0","id":1,"method":"block","params":{"height":1}}',
    status: 200,
    body: '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":"error converting json params to arguments: invalid 64-bit integer encoding \\"1\\", expected string"}}',
    source: 'CometBFT libs/json/decoder.go: 64-bit integers must be strings',
  },
  {
    surface: 'comet-post',
    name: 'tx_search with a query that does not parse',
    send: '{"jsonrpc":"2.0","id":1,"method":"tx_search","params":{"query":"tm.event=\'Tx\' OR tx.height=1"}}',
    status: 200,
    body: '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error","data":"offset 14: expected \\"AND\\" or end of query, found \\"OR\\""}}',
    source: "CometBFT rpc/core/tx.go returns cmtquery.New's error: -32603 (the data text is ours, not yet Go's)",
  },
  // Consensus RPC, URI
  {
    surface: 'comet-uri',
    name: 'height=1e3',
    send: '/block?height=1e3',
    status: 500,
    body: '{"jsonrpc":"2.0","id":-1,"error":{"code":-32602,"message":"Invalid params","data":"error converting http params to arguments: invalid 64-bit integer encoding \\"1e3\\", expected string"}}',
    source: 'CometBFT http_uri_handler.go: not an int string, so cmtjson, which wants a string',
  },
  {
    surface: 'comet-uri',
    name: 'genesis_chunked?chunk=-1',
    send: '/genesis_chunked?chunk=-1',
    status: 500,
    body: '{"jsonrpc":"2.0","id":-1,"error":{"code":-32602,"message":"Invalid params","data":"error converting http params to arguments: json: cannot unmarshal number -1 into Go value of type uint"}}',
    source: 'CometBFT http_uri_handler.go: an int string into `chunk uint` fails in encoding/json (-32602, not -32603)',
  },
  // Consensus RPC, WebSocket
  {
    surface: 'comet-ws',
    name: 'id beyond int64',
    send: '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"health","params":{}}',
    body: '{"jsonrpc":"2.0","id":-9223372036854775808,"result":{}}',
    source: COMET_ID,
  },
  {
    surface: 'comet-ws',
    name: 'subscribe with a query that does not parse',
    send: '{"jsonrpc":"2.0","id":2,"method":"subscribe","params":{"query":"tm.event==\'x\'"}}',
    body: /^\{"jsonrpc":"2\.0","id":2,"error":\{"code":-32603,"message":"Internal error","data":"failed to parse query: /,
    source: 'CometBFT rpc/core/events.go: `failed to parse query: …`, -32603 (the rest of the text is ours)',
  },
]

/**
 * Generated from the consensus route table: every 64-bit integer parameter of every HTTP route, sent
 * as a JSON number, is refused as cmtjson refuses it (libs/json/decoder.go), before the handler runs.
 */
export const GENERATED_INT_CASES: WireCase[] = [...COMET_ROUTE_MAP.values()]
  .filter((route) => !route.wsOnly)
  .flatMap((route) =>
    route.params
      .filter((p) => p.uriClass === 'int')
      .map(
        (p): WireCase => ({
          surface: 'comet-post',
          name: `${route.name} ${p.name} as a JSON number`,
          send: `{"jsonrpc":"2.0","id":1,"method":"${route.name}","params":{"${p.name}":7}}`,
          status: 200,
          body: `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":"error converting json params to arguments: invalid 64-bit integer encoding \\"7\\", expected string"}}`,
          source: 'CometBFT libs/json/decoder.go: 64-bit integers must be strings',
        }),
      ),
  )
