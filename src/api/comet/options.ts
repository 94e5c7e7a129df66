/**
 * Options of the consensus-engine RPC server, named as `CometRpcConfig` ([rpc] of config.toml) so
 * the node can pass that through, plus the transport timings CometBFT hard-codes.
 */
import { defaultCometRpcConfig } from '../../config/defaults.js'
import type { CometRpcConfig, HostPort } from '../../config/node-config.js'
import { DEFAULT_WS_WRITE_WAIT } from '../../rpc/ws-connection.js'

/** Options of `CometRpcServer`. Durations are milliseconds, sizes bytes. */
export interface CometRpcOptions {
  /** Where to listen; port 0 picks a free port (default 127.0.0.1:26657). */
  listen: HostPort
  /** CORS allowed origins; [] = CORS off, ["*"] = any (default []). */
  corsAllowedOrigins: string[]
  /** CORS allowed methods (default HEAD, GET, POST). */
  corsAllowedMethods: string[]
  /** CORS allowed headers (default Origin, Accept, Content-Type, X-Requested-With, X-Server-Time). */
  corsAllowedHeaders: string[]
  /** Connections served at once, WebSockets included; further ones wait for a slot; 0 = unlimited (default 900). */
  maxOpenConnections: number
  /** How long broadcast_tx_commit waits for the block (default 10000). */
  timeoutBroadcastTxCommit: number
  /** Requests per JSON-RPC batch; 0 = unlimited (default 10). */
  maxRequestBatchSize: number
  /** Request body limit, also the WebSocket message limit (default 1000000). */
  maxBodyBytes: number
  /** Request header limit (default 1048576). */
  maxHeaderBytes: number
  /** Time to receive a whole request, also the keep-alive idle timeout (CometBFT's ReadTimeout, default 10000). */
  readTimeout: number
  /** WebSocket: close when nothing (not even a pong) arrived for this long (CometBFT readWait, default 30000). */
  wsReadWait: number
  /** WebSocket: ping period, 0.9 × wsReadWait in CometBFT (default 27000). */
  wsPingPeriod: number
  /** WebSocket: a client whose waiting messages see none written for this long is dropped (CometBFT writeWait, default 10000). */
  wsWriteWait: number
  /** WebSocket: queued outgoing messages per connection (`experimental_websocket_write_buffer_size`, default 200). */
  wsWriteBufferSize: number
  /** WebSocket: bytes that may wait in a connection's send buffer; a client past it is dropped (default 32 MiB). */
  wsMaxBufferedBytes: number
}

/** The server's options from config.toml `[rpc]` (`laddr` must be set); transport timings keep CometBFT's defaults. */
export function cometRpcOptionsFromConfig(rpc: CometRpcConfig): CometRpcOptions {
  if (!rpc.laddr) throw new Error('[rpc] laddr is empty: the consensus RPC is disabled')
  return {
    listen: rpc.laddr,
    corsAllowedOrigins: rpc.corsAllowedOrigins,
    corsAllowedMethods: rpc.corsAllowedMethods,
    corsAllowedHeaders: rpc.corsAllowedHeaders,
    maxOpenConnections: rpc.maxOpenConnections,
    timeoutBroadcastTxCommit: rpc.timeoutBroadcastTxCommit,
    maxRequestBatchSize: rpc.maxRequestBatchSize,
    maxBodyBytes: rpc.maxBodyBytes,
    maxHeaderBytes: rpc.maxHeaderBytes,
    readTimeout: 10_000,
    wsReadWait: 30_000,
    wsPingPeriod: 27_000,
    wsWriteWait: DEFAULT_WS_WRITE_WAIT,
    wsWriteBufferSize: 200,
    wsMaxBufferedBytes: 32 * 1024 * 1024,
  }
}

/** CometBFT v0.38 `DefaultRPCConfig` and the jsonrpc server defaults (`config/config.go`, `rpc/jsonrpc/server`). */
export const defaultCometRpcOptions: CometRpcOptions = cometRpcOptionsFromConfig(defaultCometRpcConfig())

/** A test preset: loopback, port 0, short WebSocket timings. */
export const testCometRpcOptions: CometRpcOptions = {
  ...defaultCometRpcOptions,
  listen: { host: '127.0.0.1', port: 0 },
  timeoutBroadcastTxCommit: 2_000,
  wsReadWait: 2_000,
  wsPingPeriod: 500,
}
