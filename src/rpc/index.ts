/**
 * The RPC transport: JSON-RPC envelope, method tables, dispatch, and the one HTTP/WebSocket listener
 * that every surface plugs its dialect into. Knows nothing about chains.
 */
export * from './json-rpc.js'
export * from './rpc-errors.js'
export * from './render-evm-error.js'
export * from './codecs.js'
export * from './method-table.js'
export * from './dispatcher.js'
export * from './raw-json.js'
export * from './cors.js'
export * from './dialect.js'
export * from './http-body.js'
export * from './http-listener.js'
export * from './ws-connection.js'
export * from './http-server.js'
export * from './ws-server.js'
export * from './options-from-config.js'
