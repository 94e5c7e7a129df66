/**
 * The consensus-engine RPC routes, one entry each, in the order of CometBFT v0.38 `rpc/core/routes.go`:
 * literal name, parameters (names and codecs in Go's argument order, which is also the positional
 * order of JSON-RPC array params), handler, and caching. Unsafe routes (`dial_seeds`, `dial_peers`,
 * `unsafe_flush_mempool`) are not served.
 */
import { bool, bytes, evidence, hexBytes, int64, int64Ptr, intPtr, string, uint } from './params.js'
import { defineRoute, type RouteDef } from './route.js'
import { broadcastEvidence, dumpConsensusState, getConsensusParams, getConsensusState, getValidators } from './routes-consensus.js'
import {
  getBlock,
  getBlockByHash,
  getBlockchain,
  getBlockResults,
  getCommit,
  getHeader,
  getHeaderByHash,
  searchBlocks,
} from './routes-blocks.js'
import { subscribe, unsubscribe, unsubscribeAll } from './routes-events.js'
import { getAbciInfo, getAbciQuery, getGenesis, getGenesisChunked, getHealth, getNetInfo, getStatus } from './routes-info.js'
import {
  broadcastTxAsync,
  broadcastTxCommit,
  broadcastTxSync,
  checkTx,
  getNumUnconfirmedTxs,
  getTx,
  getUnconfirmedTxs,
  searchTxs,
} from './routes-txs.js'

/** Every route, in CometBFT's table order. */
export const COMET_ROUTES: readonly RouteDef[] = [
  // info API
  defineRoute({ name: 'health', params: [], handler: getHealth }),
  defineRoute({ name: 'status', params: [], handler: getStatus }),
  defineRoute({ name: 'net_info', params: [], handler: getNetInfo }),
  defineRoute({ name: 'blockchain', params: [int64('minHeight'), int64('maxHeight')], handler: getBlockchain, cacheable: true }),
  defineRoute({ name: 'genesis', params: [], handler: getGenesis, cacheable: true }),
  defineRoute({ name: 'genesis_chunked', params: [uint('chunk')], handler: getGenesisChunked, cacheable: true }),
  defineRoute({ name: 'block', params: [int64Ptr('height')], handler: getBlock, cacheable: 'height' }),
  defineRoute({ name: 'block_by_hash', params: [bytes('hash')], handler: getBlockByHash, cacheable: true }),
  defineRoute({ name: 'block_results', params: [int64Ptr('height')], handler: getBlockResults, cacheable: 'height' }),
  defineRoute({ name: 'commit', params: [int64Ptr('height')], handler: getCommit, cacheable: 'height' }),
  defineRoute({ name: 'header', params: [int64Ptr('height')], handler: getHeader, cacheable: 'height' }),
  defineRoute({ name: 'header_by_hash', params: [hexBytes('hash')], handler: getHeaderByHash, cacheable: true }),
  defineRoute({ name: 'check_tx', params: [bytes('tx')], handler: checkTx }),
  defineRoute({ name: 'tx', params: [bytes('hash'), bool('prove')], handler: getTx, cacheable: true }),
  defineRoute({
    name: 'tx_search',
    params: [string('query'), bool('prove'), intPtr('page'), intPtr('per_page'), string('order_by')],
    handler: searchTxs,
  }),
  defineRoute({
    name: 'block_search',
    params: [string('query'), intPtr('page'), intPtr('per_page'), string('order_by')],
    handler: searchBlocks,
  }),
  defineRoute({
    name: 'validators',
    params: [int64Ptr('height'), intPtr('page'), intPtr('per_page')],
    handler: getValidators,
    cacheable: 'height',
  }),
  defineRoute({ name: 'dump_consensus_state', params: [], handler: dumpConsensusState }),
  defineRoute({ name: 'consensus_state', params: [], handler: getConsensusState }),
  defineRoute({ name: 'consensus_params', params: [int64Ptr('height')], handler: getConsensusParams, cacheable: 'height' }),
  defineRoute({ name: 'unconfirmed_txs', params: [intPtr('limit')], handler: getUnconfirmedTxs }),
  defineRoute({ name: 'num_unconfirmed_txs', params: [], handler: getNumUnconfirmedTxs }),

  // tx broadcast API
  defineRoute({ name: 'broadcast_tx_commit', params: [bytes('tx')], handler: broadcastTxCommit }),
  defineRoute({ name: 'broadcast_tx_sync', params: [bytes('tx')], handler: broadcastTxSync }),
  defineRoute({ name: 'broadcast_tx_async', params: [bytes('tx')], handler: broadcastTxAsync }),

  // abci API
  defineRoute({ name: 'abci_query', params: [string('path'), hexBytes('data'), int64('height'), bool('prove')], handler: getAbciQuery }),
  defineRoute({ name: 'abci_info', params: [], handler: getAbciInfo, cacheable: true }),

  // evidence API
  defineRoute({ name: 'broadcast_evidence', params: [evidence('evidence')], handler: broadcastEvidence }),

  // events API: WebSocket only
  defineRoute({ name: 'subscribe', params: [string('query')], handler: subscribe, wsOnly: true }),
  defineRoute({ name: 'unsubscribe', params: [string('query')], handler: unsubscribe, wsOnly: true }),
  defineRoute({ name: 'unsubscribe_all', params: [], handler: unsubscribeAll, wsOnly: true }),
]

/** Routes by name. */
export const COMET_ROUTE_MAP: ReadonlyMap<string, RouteDef> = new Map(COMET_ROUTES.map((r) => [r.name, r]))
