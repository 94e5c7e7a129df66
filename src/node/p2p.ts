/**
 * The p2p host and its consensus transport, built only for a node that has others to talk to: a genesis
 * with more than one validator, or persistent peers. A single validator (`--dev`) keeps the loopback
 * transport and pays no libp2p start-up: the libp2p modules (~0.6 s to load) are imported only here, on demand.
 */
import { readFile } from 'node:fs/promises'
import type { NodeConfig } from '../config/node-config.js'
import { decodeConsensusMessage, encodeConsensusMessage } from '../consensus/messages.js'
import { sha256 } from '../crypto/index.js'
import { loadNodeKey } from '../keystore/validator-key.js'
import type { P2PConsensusTransport } from '../p2p/consensus-transport.js'
import type { P2PNode } from '../p2p/p2p-node.js'
import { bytesToHex } from '../primitives/hex.js'
import type { Logger } from '../utils/logger.js'
import { NODECTL_VERSION } from './version.js'

export interface NodeP2P {
  host: P2PNode
  transport: P2PConsensusTransport
}

/** True when the node has peers to reach. */
export function needsP2P(config: NodeConfig): boolean {
  return config.genesis.validators.length > 1 || config.p2p.persistentPeers.length > 0
}

/** Builds the host (not started) with the consensus protocol registered. */
export async function createNodeP2P(config: NodeConfig, log: Logger): Promise<NodeP2P> {
  const [{ P2PNode }, { P2PConsensusTransport }] = await Promise.all([
    import('../p2p/p2p-node.js'),
    import('../p2p/consensus-transport.js'),
  ])
  const p2pLog = log.child({ module: 'p2p' })
  const host = new P2PNode({
    nodeKey: await loadNodeKey(config.paths.nodeKey),
    listen: config.p2p.laddr,
    persistentPeers: config.p2p.persistentPeers,
    maxInboundPeers: config.p2p.maxNumInboundPeers,
    maxOutboundPeers: config.p2p.maxNumOutboundPeers,
    handshakeTimeoutMs: config.p2p.handshakeTimeout,
    dialTimeoutMs: config.p2p.dialTimeout,
    nodeInfo: {
      network: config.genesis.chainId,
      // Of the file's bytes, as CometBFT's genesis hash: homes of one network copy one genesis.json.
      genesisHash: bytesToHex(sha256(await readFile(config.paths.genesis))).slice(2),
      moniker: config.moniker,
      version: NODECTL_VERSION,
    },
    logger: p2pLog,
  })
  const transport = new P2PConsensusTransport(host, { encode: encodeConsensusMessage, decode: decodeConsensusMessage }, p2pLog)
  transport.start()
  return { host, transport }
}
