/**
 * The EVM JSON-RPC HTTP listener (`--json-rpc.address`): the shared listener (http-listener.ts) with
 * the EVM HTTP dialect (evm-http-dialect.ts). `max-open-connections` queues connections beyond the cap;
 * `http-timeout` bounds reading a request and socket inactivity while it is served; `http-idle-timeout`
 * is the keep-alive timeout.
 */
import http from 'node:http'
import type { Logger } from '../utils/logger.js'
import { denyAll, type CallerAuth } from './caller-auth.js'
import { Cors, gethCorsPolicy, type CorsPolicy } from './cors.js'
import type { Dispatcher } from './dispatcher.js'
import { EvmHttpDialect } from './evm-http-dialect.js'
import { HttpListener } from './http-listener.js'

/** Options of the HTTP listener (the `[json-rpc]` keys named in each comment). */
export interface HttpRpcServerOptions {
  /** Listen host (`address`); port 0 picks a free port. */
  host: string
  port: number
  /** Largest request body in bytes (`http-body-limit`, default 5 MiB). */
  bodyLimit: number
  /** Read/serve timeout in ms (`http-timeout`, default 30 s); 0 = none. */
  timeout: number
  /** Keep-alive idle timeout in ms (`http-idle-timeout`, default 120 s); 0 = use `timeout`. */
  idleTimeout: number
  /**
   * Connections served at once (`max-open-connections`, default 900, CometBFT's); an eighth more wait,
   * and both fit the listener's share of the open-file limit (descriptor-budget.ts); 0 = that share.
   */
  maxOpenConnections: number
  /** Which browser origins may read answers (cors.ts): geth's policy of `http-corsdomain`, or all with `enabled-unsafe-cors`. */
  cors: CorsPolicy
  /**
   * Host names answered (`http-vhosts`, vhosts.ts); others get 403 `invalid host specified`. `*` = any,
   * the listener's default; a node's comes from `[json-rpc] http-vhosts` (default localhost, as geth).
   */
  vhosts: readonly string[]
  /** Who may call the private namespaces (caller-auth.ts); a refused call makes the reply HTTP 401. */
  auth: CallerAuth
}

/** Defaults: Evmos' `[json-rpc]` address and timeouts, and the limits of docs/decisions.md. */
export const defaultHttpRpcServerOptions: HttpRpcServerOptions = {
  host: '127.0.0.1',
  port: 8545,
  bodyLimit: 5 * 1024 * 1024,
  timeout: 30_000,
  idleTimeout: 120_000,
  maxOpenConnections: 900,
  cors: gethCorsPolicy([]),
  vhosts: ['*'],
  auth: denyAll,
}

/** Grace period of `close()` for in-flight requests before their sockets are destroyed (ms). */
const DEFAULT_CLOSE_GRACE = 5_000

/** The running HTTP JSON-RPC listener. */
export class HttpRpcServer extends HttpListener {
  /** Creates the server and listens on `opts.host:opts.port`. */
  static async start(dispatcher: Dispatcher, opts: HttpRpcServerOptions, log: Logger): Promise<HttpRpcServer> {
    const cors = new Cors(opts.cors)
    const dialect = new EvmHttpDialect(dispatcher, { bodyLimit: opts.bodyLimit, cors, vhosts: opts.vhosts, auth: opts.auth }, log)
    const server = new HttpRpcServer(
      {
        name: 'EVM JSON-RPC HTTP',
        scheme: 'http',
        host: opts.host,
        port: opts.port,
        maxConnections: opts.maxOpenConnections,
        readTimeout: opts.timeout,
        serveTimeout: opts.timeout,
        idleTimeout: opts.idleTimeout,
        maxHeaderSize: http.maxHeaderSize,
        closeGrace: DEFAULT_CLOSE_GRACE,
      },
      dialect,
      log,
    )
    await server.listen()
    return server
  }
}
