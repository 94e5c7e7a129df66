/**
 * The p2p host and the protocols over it, built only for a node that has others to talk to: a genesis with
 * more than one validator, or persistent peers. A single validator (`--dev`) keeps the loopback transport
 * and pays no libp2p start-up: the libp2p modules (~0.6 s to load) are imported only here, on demand.
 *
 * Protocols: consensus (proposals, parts, votes, steps, has-vote), block sync (status and blocks), mempool
 * (transactions) and evidence. `connectNodeP2P` feeds them from the engine's and the pool's events.
 */
import { readFile } from 'node:fs/promises'
import type { BlockStore } from '../comet/block-store.js'
import type { NodeConfig } from '../config/node-config.js'
import type { ConsensusEngine } from '../consensus/consensus-engine.js'
import { decodeGossipMessage, encodeGossipMessage } from '../consensus/gossip-messages.js'
import { sha256 } from '../crypto/index.js'
import { loadNodeKey } from '../keystore/validator-key.js'
import type { P2PBlockSync } from '../p2p/block-sync-protocol.js'
import type { P2PSnapshots, SnapshotServingFaults } from '../p2p/snapshot-protocol.js'
import type { SnapshotProvider } from '../abci/snapshots.js'
import type { P2PConsensusTransport } from '../p2p/consensus-transport.js'
import type { EvidenceGossip } from '../p2p/evidence-gossip.js'
import type { P2PNode } from '../p2p/p2p-node.js'
import type { TxGossip } from '../p2p/tx-gossip.js'
import { bytesToHex } from '../primitives/hex.js'
import type { TxPool } from '../txpool/index.js'
import type { Logger } from '../utils/logger.js'
import { NODECTL_VERSION } from './version.js'

export interface NodeP2P {
  host: P2PNode
  transport: P2PConsensusTransport
  blockSync: P2PBlockSync
  /** Snapshots served to, and fetched from, peers (state sync). */
  snapshots: P2PSnapshots
  txs: TxGossip
  evidence: EvidenceGossip
}

/** True when the node has peers to reach. */
export function needsP2P(config: NodeConfig): boolean {
  return config.genesis.validators.length > 1 || config.p2p.persistentPeers.length > 0
}

/** What the protocols serve from and submit to, apart from the engine (built after the host, on its transport). */
export interface NodeP2PDeps {
  blockStore: BlockStore
  pool: TxPool
  /** The application's snapshots, served to peers that state-sync. */
  snapshots: SnapshotProvider
  /** Test-only faults of the snapshot serving side. */
  snapshotFaults?: SnapshotServingFaults
}

/** Builds the host (not started) with every protocol but evidence registered (`connectNodeP2P` starts it). */
export async function createNodeP2P(config: NodeConfig, deps: NodeP2PDeps, log: Logger): Promise<NodeP2P> {
  const [{ P2PNode }, { P2PConsensusTransport }, { P2PBlockSync }, { P2PSnapshots }, { TxGossip }, { EvidenceGossip }] = await Promise.all([
    import('../p2p/p2p-node.js'),
    import('../p2p/consensus-transport.js'),
    import('../p2p/block-sync-protocol.js'),
    import('../p2p/snapshot-protocol.js'),
    import('../p2p/tx-gossip.js'),
    import('../p2p/evidence-gossip.js'),
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
  const transport = new P2PConsensusTransport(host, { encode: encodeGossipMessage, decode: decodeGossipMessage }, p2pLog)
  const { blockStore, pool } = deps
  const blockSync = new P2PBlockSync(
    host,
    {
      base: () => blockStore.base(),
      height: () => blockStore.height(),
      loadBlockBytes: (height) => blockStore.loadBlockBytes(height),
      loadCommit: async (height) => (await blockStore.loadBlockCommit(height)) ?? (await blockStore.loadSeenCommit(height)),
    },
    p2pLog,
  )
  const txs = new TxGossip(
    host,
    {
      submit: (raw) => pool.add(raw),
      has: (hash) => pool.has(hash),
      pending: () => [...pool.pending().values()].flat().map((tx) => ({ raw: tx.raw, hash: tx.hashHex })),
    },
    p2pLog,
  )
  const snapshots = new P2PSnapshots(host, deps.snapshots, p2pLog, deps.snapshotFaults)
  const evidence = new EvidenceGossip(host, p2pLog)
  for (const protocol of [transport, blockSync, snapshots, txs]) protocol.start()
  return { host, transport, blockSync, snapshots, txs, evidence }
}

/**
 * Serves evidence from the engine and feeds the protocols from the engine's and the pool's events (call once
 * both exist, before the host starts).
 */
export function connectNodeP2P(p2p: NodeP2P, engine: ConsensusEngine, pool: TxPool): void {
  p2p.evidence.start({ submit: (ev) => engine.addEvidence(ev), pending: () => engine.pendingEvidence() })
  engine.events.on('NewBlock', () => p2p.blockSync.announceHeight())
  pool.events.on('newPendingTx', (tx) => p2p.txs.announce(tx.raw, tx.hashHex))
}
