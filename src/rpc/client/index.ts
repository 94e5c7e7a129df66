/** The JSON-RPC client the CLI uses: HTTP calls and WebSocket subscriptions (eth_subscribe and CometBFT subscribe). */
export { JsonRpcClientError, NodeUnreachableError, ProtocolError } from './errors.js'
export {
  HttpRpcClient,
  DEFAULT_CALL_TIMEOUT_MS,
  type HttpRpcClientOptions,
  type RpcCaller,
  type JsonRpcParams,
  type JsonRpcResponse,
} from './http-client.js'
export { WsRpcClient, type ReconnectOptions, type Subscription, type WsRpcClientOptions } from './ws-client.js'
export { cometSubscriptions, ethSubscriptions, type SubscriptionDialect, type PushedMessage } from './subscription-dialects.js'
