/** Handlers of the node and application routes (CometBFT `rpc/core/{health,status,net,abci}.go`). */
import { bytesToBase64, equalBytes, utf8ToBytes } from '../../primitives/hex.js'
import type { CometNodeInfo, CometPeer } from './backend.js'
import { encodeAbciInfo, encodeAbciQuery, encodeHexBytes, encodeInt64, encodePubKey, encodeTime } from './json.js'
import { latestUncommittedHeight, validatorsOf, type RouteContext } from './route.js'
import { RawJson, type Json, type JsonObject } from './wire-json.js'

/** `time.Unix(0, 0)`: what status shows for a missing block time. */
const UNIX_EPOCH = { seconds: 0, nanos: 0 }
/** v0.38 `genesisChunkSize`: 16 MiB; a larger genesis is served by genesis_chunked only. */
export const GENESIS_CHUNK_SIZE = 16 * 1024 * 1024

/** `health`: `{}` while the node runs. */
export async function getHealth(): Promise<Json> {
  return {}
}

/** `p2p.DefaultNodeInfo`. */
export function encodeNodeInfo(n: CometNodeInfo): JsonObject {
  return {
    protocol_version: {
      p2p: encodeInt64(n.protocolVersion.p2p),
      block: encodeInt64(n.protocolVersion.block),
      app: encodeInt64(n.protocolVersion.app),
    },
    id: n.id,
    listen_addr: n.listenAddr,
    network: n.network,
    version: n.version,
    channels: encodeHexBytes(n.channels),
    moniker: n.moniker,
    other: { tx_index: n.txIndex ? 'on' : 'off', rpc_address: n.rpcAddress },
  }
}

/** `status`: node info, latest and earliest blocks, and this node's validator key and power. */
export async function getStatus(ctx: RouteContext): Promise<Json> {
  const b = ctx.backend
  const [nodeInfo, base, latest, catchingUp, key] = await Promise.all([
    b.nodeInfo(),
    b.baseHeight(),
    b.latestHeight(),
    b.isCatchingUp(),
    b.validatorKey(),
  ])
  const earliestMeta = base > 0 ? await b.loadBlockMeta(base) : undefined
  const latestMeta = latest > 0 ? await b.loadBlockMeta(latest) : undefined
  // The voting power for the next height, not the one of the last block (rpc/core/status.go).
  const vals = await b.loadValidators(await latestUncommittedHeight(ctx))
  const self = vals && validatorsOf(vals).find((v) => equalBytes(v.address, key.address))
  return {
    node_info: encodeNodeInfo(nodeInfo),
    sync_info: {
      latest_block_hash: latestMeta ? encodeHexBytes(latestMeta.blockId.hash) : '',
      latest_app_hash: latestMeta ? encodeHexBytes(latestMeta.header.appHash) : '',
      latest_block_height: encodeInt64(latest),
      latest_block_time: encodeTime(latestMeta?.header.time ?? UNIX_EPOCH),
      earliest_block_hash: earliestMeta ? encodeHexBytes(earliestMeta.blockId.hash) : '',
      earliest_app_hash: earliestMeta ? encodeHexBytes(earliestMeta.header.appHash) : '',
      earliest_block_height: encodeInt64(earliestMeta?.header.height ?? 0),
      earliest_block_time: encodeTime(earliestMeta?.header.time ?? UNIX_EPOCH),
      catching_up: catchingUp,
    },
    validator_info: {
      address: encodeHexBytes(key.address),
      pub_key: encodePubKey(key.pubKey),
      voting_power: encodeInt64(self?.votingPower ?? 0n),
    },
  }
}

/** A zero `flowrate.Status` (Go field names: the struct has no json tags). */
function monitorStatus(): JsonObject {
  const now = new Date()
  return {
    Start: encodeTime({ seconds: Math.floor(now.getTime() / 1000), nanos: (now.getTime() % 1000) * 1_000_000 }),
    Bytes: '0',
    Samples: '0',
    InstRate: '0',
    CurRate: '0',
    AvgRate: '0',
    PeakRate: '0',
    BytesRem: '0',
    Duration: '0',
    Idle: '0',
    TimeRem: '0',
    Progress: 0,
    Active: false,
  }
}

function encodePeer(p: CometPeer): JsonObject {
  return {
    node_info: encodeNodeInfo(p.nodeInfo),
    is_outbound: p.isOutbound,
    connection_status: {
      Duration: encodeInt64(p.connectionDurationNs),
      SendMonitor: monitorStatus(),
      RecvMonitor: monitorStatus(),
      Channels: [],
    },
    remote_ip: p.remoteIp,
  }
}

/** `net_info`: p2p listeners and peers. */
export async function getNetInfo(ctx: RouteContext): Promise<Json> {
  const [{ listening, listeners }, peers] = await Promise.all([ctx.backend.p2pListeners(), ctx.backend.peers()])
  return { listening, listeners: [...listeners], n_peers: encodeInt64(peers.length), peers: peers.map(encodePeer) }
}

/** The compacted genesis and its 16 MiB chunks. */
async function loadGenesis(ctx: RouteContext): Promise<{ raw: RawJson; chunks: string[] }> {
  const raw = new RawJson(await ctx.backend.genesisJson())
  const bytes = utf8ToBytes(raw.text)
  const chunks: string[] = []
  for (let off = 0; off < bytes.length; off += GENESIS_CHUNK_SIZE) chunks.push(bytesToBase64(bytes.subarray(off, off + GENESIS_CHUNK_SIZE)))
  return { raw, chunks }
}

/** `genesis`: the whole document, unless it needs more than one chunk. */
export async function getGenesis(ctx: RouteContext): Promise<Json> {
  const { raw, chunks } = await loadGenesis(ctx)
  if (chunks.length > 1) throw new Error('genesis response is large, please use the genesis_chunked API instead')
  return { genesis: raw }
}

/** `genesis_chunked`: chunk N of the cmtjson-encoded genesis, base64. */
export async function getGenesisChunked(ctx: RouteContext, args: { chunk: bigint }): Promise<Json> {
  const { chunks } = await loadGenesis(ctx)
  if (chunks.length === 0) throw new Error('service configuration error, there are no chunks')
  if (args.chunk > BigInt(chunks.length - 1)) throw new Error(`there are ${chunks.length - 1} chunks, ${args.chunk} is invalid`)
  const id = Number(args.chunk)
  return { chunk: encodeInt64(id), total: encodeInt64(chunks.length), data: chunks[id]! }
}

/** `abci_info`: the application's Info response. */
export async function getAbciInfo(ctx: RouteContext): Promise<Json> {
  return { response: encodeAbciInfo(await ctx.backend.abciInfo()) }
}

/** `abci_query`: delegated to the application; height 0 = latest. */
export async function getAbciQuery(
  ctx: RouteContext,
  args: { path: string; data: Uint8Array; height: bigint; prove: boolean },
): Promise<Json> {
  return {
    response: encodeAbciQuery(await ctx.backend.abciQuery({ path: args.path, data: args.data, height: args.height, prove: args.prove })),
  }
}
