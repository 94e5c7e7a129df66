/** The JSON-RPC transport: envelope, method tables, dispatch, HTTP listener. Knows nothing about chains. */
export * from './json-rpc.js'
export * from './rpc-errors.js'
export * from './render-evm-error.js'
export * from './codecs.js'
export * from './method-table.js'
export * from './dispatcher.js'
export * from './cors.js'
export * from './http-server.js'
