/** Starts the HTTP JSON-RPC server on port 0 over a FakeBackend, with a tiny JSON-RPC client. */
import { createEthApi, defaultEthApiOptions, type EthApiOptions } from '../../../src/api/eth/index.js'
import { renderEvmApiError } from '../../../src/api/evm-errors.js'
import { Dispatcher, defaultDispatcherOptions, type DispatcherOptions } from '../../../src/rpc/dispatcher.js'
import { HttpRpcServer, defaultHttpRpcServerOptions, type HttpRpcServerOptions } from '../../../src/rpc/http-server.js'
import { silentLogger } from '../../../src/utils/logger.js'
import type { RpcReply } from '../../helpers/dev-node.js'
import type { FakeBackend } from './fake-backend.js'

export interface TestServer {
  server: HttpRpcServer
  url: string
  /** POSTs one request and returns the parsed response envelope, its result of the type the caller reads. */
  call<T = unknown>(method: string, params?: unknown[]): Promise<RpcReply<T>>
  /** The result of a call, failing the test on an error. */
  result<T = unknown>(method: string, params?: unknown[]): Promise<T>
  /** POSTs a raw body. */
  post(body: string, headers?: Record<string, string>): Promise<Response>
  close(): Promise<void>
}

export async function startTestServer(
  backend: FakeBackend,
  opts: { api?: Partial<EthApiOptions>; dispatcher?: Partial<DispatcherOptions>; http?: Partial<HttpRpcServerOptions> } = {},
): Promise<TestServer> {
  const dispatcher = new Dispatcher(
    createEthApi(backend, { ...defaultEthApiOptions, ...opts.api }),
    { ...defaultDispatcherOptions, ...opts.dispatcher },
    silentLogger,
    renderEvmApiError,
  )
  // The fake backend's tests exercise the private namespaces' behaviour, not their authentication.
  const server = await HttpRpcServer.start(
    dispatcher,
    { ...defaultHttpRpcServerOptions, port: 0, auth: () => true, ...opts.http },
    silentLogger,
  )
  const url = server.url
  let id = 0
  const post = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<Response> =>
    fetch(url, { method: 'POST', headers, body })
  const call = async <T>(method: string, params: unknown[] = []): Promise<RpcReply<T>> => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }))
    return (await res.json()) as RpcReply<T>
  }
  return {
    server,
    url,
    call,
    post,
    async result<T>(method: string, params?: unknown[]): Promise<T> {
      const res = await call<T>(method, params)
      if (res.error) throw new Error(`${method}: ${res.error.code} ${res.error.message}`)
      return res.result as T
    },
    close: () => server.close(),
  }
}
