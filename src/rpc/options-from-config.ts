/**
 * The transport's options from the node's `[json-rpc]` configuration, so the composition root does not
 * map fields by hand (units already match: bytes and milliseconds).
 */
import type { JsonRpcConfig } from '../config/node-config.js'
import { PRIVATE_NAMESPACES } from './caller-auth.js'
import { ALLOW_ALL_CORS, gethCorsPolicy } from './cors.js'
import type { DispatcherOptions } from './dispatcher.js'
import type { HttpRpcServerOptions } from './http-server.js'

/** Dispatcher options: enabled namespaces and batch limits. */
export function dispatcherOptionsFromConfig(config: JsonRpcConfig): DispatcherOptions {
  return {
    namespaces: config.api,
    privateNamespaces: PRIVATE_NAMESPACES,
    batchRequestLimit: config.batchRequestLimit,
    batchResponseMaxSize: config.batchResponseMaxSize,
  }
}

/**
 * HTTP listener options: address, body limit, timeouts, connection cap, CORS and virtual hosts (the
 * caller check is the node's). CORS follows geth, not Evmos (whose rs/cors `Default()` lets every origin read answers):
 * none until `http-corsdomain` names origins, on `--dev` too, as geth `--dev` (issue 27: with an unlocked
 * account, a page of any origin could otherwise send transactions).
 */
export function httpRpcServerOptionsFromConfig(config: JsonRpcConfig): Omit<HttpRpcServerOptions, 'auth'> {
  return {
    host: config.address.host,
    port: config.address.port,
    bodyLimit: config.httpBodyLimit,
    timeout: config.httpTimeout,
    idleTimeout: config.httpIdleTimeout,
    maxOpenConnections: config.maxOpenConnections,
    cors: config.enabledUnsafeCors ? ALLOW_ALL_CORS : gethCorsPolicy(config.httpCorsDomain),
    vhosts: config.httpVhosts,
  }
}
