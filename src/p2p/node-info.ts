/**
 * What two peers tell each other at the handshake (CometBFT's `DefaultNodeInfo`, the fields this node has),
 * and the check that refuses a peer of another chain.
 */
import { bytesToUtf8, utf8ToBytes } from '../primitives/hex.js'

export interface NodeInfo {
  /** Node id: lower-case hex of SHA-256(node key)[:20]. */
  id: string
  /** The chain id (CometBFT calls it `network`). */
  network: string
  /** Hex SHA-256 of genesis.json: two chains with one chain id still differ here. */
  genesisHash: string
  moniker: string
  /** `tcp://host:port` the peer listens on. */
  listenAddr: string
  /** The peer's software version. */
  version: string
}

const FIELDS = ['id', 'network', 'genesisHash', 'moniker', 'listenAddr', 'version'] as const

export function encodeNodeInfo(info: NodeInfo): Uint8Array {
  return utf8ToBytes(JSON.stringify(info))
}

/** Throws when the bytes are not a node info with every field a string. */
export function decodeNodeInfo(bytes: Uint8Array): NodeInfo {
  const json = JSON.parse(bytesToUtf8(bytes)) as Record<string, unknown>
  for (const field of FIELDS) if (typeof json[field] !== 'string') throw new Error(`node info: ${field} must be a string`)
  return Object.fromEntries(FIELDS.map((f) => [f, json[f]])) as unknown as NodeInfo
}

/** Why `theirs` cannot join `ours`' network, or undefined when it can. */
export function incompatibility(ours: NodeInfo, theirs: NodeInfo): string | undefined {
  if (theirs.network !== ours.network) return `peer is on chain ${theirs.network}, this node on ${ours.network}`
  if (theirs.genesisHash !== ours.genesisHash) return `peer has genesis ${theirs.genesisHash}, this node ${ours.genesisHash}`
  return undefined
}
