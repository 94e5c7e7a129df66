/**
 * The libp2p host: TCP, Noise (authenticated by the node's ed25519 `node_key.json`), Yamux. A connection
 * becomes a peer only after the handshake (`/nodectl/handshake/1`): both sides send their node info, and a
 * peer of another chain or genesis, or whose key is not the node id `persistent_peers` names, is refused
 * and disconnected. Persistent peers are redialled with exponential back-off. Protocols over admitted peers
 * (consensus-transport.ts) use `broadcast` and `handle`.
 */
import './promise-with-resolvers.js'
import { noise } from '@chainsafe/libp2p-noise'
import { yamux } from '@chainsafe/libp2p-yamux'
import { identify } from '@libp2p/identify'
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys'
import type { Connection, PrivateKey, Stream } from '@libp2p/interface'
import { tcp } from '@libp2p/tcp'
import { lpStream, type LengthPrefixedStream } from 'it-length-prefixed-stream'
import { createLibp2p, type Libp2p } from 'libp2p'
import type { HostPort } from '../config/node-config.js'
import { nodeIdOf, nodeIdOfPublicKey, type ValidatorKey } from '../keystore/validator-key.js'
import { TypedEmitter } from '../utils/events.js'
import type { Logger } from '../utils/logger.js'
import { decodeNodeInfo, encodeNodeInfo, incompatibility, type NodeInfo } from './node-info.js'
import { parsePeerAddress, toMultiaddr, type PeerAddress } from './peer-address.js'
import { defaultP2POptions, type P2POptions } from './options.js'

export const HANDSHAKE_PROTOCOL = '/nodectl/handshake/1'

/** A node info is a few hundred bytes; anything larger is not one. */
const MAX_NODE_INFO_BYTES = 4096

/** Redial back-off: 1 s doubling to at most 1 min (CometBFT redials persistent peers with back-off too). */
const REDIAL_BASE_MS = 1000
const REDIAL_MAX_MS = 60_000

export interface Peer {
  info: NodeInfo
  /** True when this node dialled it. */
  outbound: boolean
  remoteIp: string
  connectedSince: Date
  /** The libp2p connection (protocols open their streams on it). */
  connection: Connection
}

export interface P2PEvents extends Record<string, unknown> {
  'peer:connected': Peer
  'peer:disconnected': Peer
}

export interface P2PNodeOptions extends Partial<P2POptions> {
  nodeKey: ValidatorKey
  /** Where to listen (port 0: any free port). */
  listen: HostPort
  /** `<node id>@host:port`. */
  persistentPeers?: string[]
  /** This node's info less `id` and `listenAddr`, which the host fills in. */
  nodeInfo: Omit<NodeInfo, 'id' | 'listenAddr'>
  logger: Logger
}

/** A protocol handler: called with each admitted peer's stream of that protocol. */
export type ProtocolHandler = (stream: LengthPrefixedStream<Stream>, peer: Peer) => void

/** Node id of a libp2p peer's ed25519 key (CometBFT's: hex SHA-256(pubkey)[:20]). */
export function nodeIdOfConnection(connection: Connection): string | undefined {
  const key = connection.remotePeer.publicKey
  return key?.type === 'Ed25519' ? nodeIdOfPublicKey(key.raw) : undefined
}

/** Closes a finished handshake stream; its connection may be gone already, which is no error here. */
async function closeQuietly(stream: Stream): Promise<void> {
  try {
    await stream.close()
  } catch {
    // The connection was refused or closed meanwhile.
  }
}

export class P2PNode {
  readonly events = new TypedEmitter<P2PEvents>()
  private libp2p: Libp2p | undefined
  private ownInfo: NodeInfo | undefined
  private readonly opts: P2POptions
  private readonly log: Logger
  private readonly peersByConnection = new Map<string, Peer>()
  private readonly persistent: PeerAddress[]
  private readonly protocols = new Map<string, { handler: ProtocolHandler; maxFrameBytes: number }>()
  private readonly redials = new Map<string, { attempt: number; timer?: NodeJS.Timeout }>()
  /** Streams that arrived on a connection still in its handshake, by connection id: told the peer, or undefined if refused. */
  private readonly awaitingAdmission = new Map<string, ((peer: Peer | undefined) => void)[]>()
  private stopped = false

  constructor(private readonly options: P2PNodeOptions) {
    this.opts = { ...defaultP2POptions(), ...options }
    this.log = options.logger
    this.persistent = (options.persistentPeers ?? []).map(parsePeerAddress)
  }

  /** This node's id. */
  get nodeId(): string {
    return nodeIdOf(this.options.nodeKey)
  }

  /** This node's info as sent at the handshake (after start()). */
  get nodeInfo(): NodeInfo {
    if (!this.ownInfo) throw new Error('p2p node not started')
    return this.ownInfo
  }

  /** The port actually listened on (after start(); differs from the configured one when that was 0). */
  get listenPort(): number {
    const addr = this.libp2p?.getMultiaddrs()[0]
    return addr ? Number(addr.toOptions().port) : 0
  }

  /** Admitted peers (handshake done). */
  peers(): Peer[] {
    return [...this.peersByConnection.values()]
  }

  /**
   * Creates the libp2p host, listening. A busy port surfaces as EADDRINUSE with the port, as the RPC
   * listeners' errors do, so `nodectl start` names the flag: libp2p keeps the socket's error only in
   * the text of its own (`UnsupportedListenAddressesError`).
   */
  private async createHost(privateKey: PrivateKey): Promise<Libp2p> {
    try {
      return await createLibp2p({
        privateKey,
        addresses: { listen: [toMultiaddr(this.options.listen).toString()] },
        // No idle timeout (0 turns it off): a chain without empty blocks may be quiet for minutes, peers stay connected.
        transports: [tcp({ outboundSocketInactivityTimeout: 0, inboundSocketInactivityTimeout: 0 })],
        connectionEncrypters: [noise()],
        streamMuxers: [yamux()],
        services: { identify: identify() },
        connectionManager: { dialTimeout: this.opts.dialTimeoutMs },
      })
    } catch (err) {
      if (!(err instanceof Error) || !err.message.includes('EADDRINUSE')) throw err
      const { host, port } = this.options.listen
      throw Object.assign(new Error(`listen EADDRINUSE: address already in use ${host}:${port}`, { cause: err }), {
        code: 'EADDRINUSE',
        address: host,
        port,
      })
    }
  }

  async start(): Promise<void> {
    const privateKey = await generateKeyPairFromSeed('Ed25519', this.options.nodeKey.seed)
    this.libp2p = await this.createHost(privateKey)
    const port = this.listenPort
    this.ownInfo = {
      ...this.options.nodeInfo,
      id: this.nodeId,
      listenAddr: `tcp://${this.options.listen.host}:${port}`,
    }
    await this.libp2p.handle(HANDSHAKE_PROTOCOL, ({ stream, connection }) => void this.answerHandshake(stream, connection))
    for (const [protocol, { handler, maxFrameBytes }] of this.protocols)
      await this.libp2p.handle(protocol, async ({ stream, connection }) => {
        // The side that answered the handshake may open its streams before this side has read its answer.
        const peer = this.peersByConnection.get(connection.id) ?? (await this.admission(connection))
        if (peer) handler(lpStream(stream, { maxDataLength: maxFrameBytes }), peer)
        else stream.abort(new Error('peer has not completed the handshake'))
      })
    this.libp2p.addEventListener('connection:open', (e) => this.onConnectionOpen(e.detail))
    this.libp2p.addEventListener('connection:close', (e) => this.onConnectionClose(e.detail))
    for (const peer of this.persistent) void this.dial(peer)
    this.log.info('p2p listening', { nodeId: this.nodeId, addr: this.ownInfo.listenAddr })
  }

  async stop(): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    for (const r of this.redials.values()) clearTimeout(r.timer)
    await this.libp2p?.stop()
  }

  /**
   * Serves `protocol` on admitted peers (call before start()): a stream from a peer that has not passed the
   * handshake is closed. Frames are length-prefixed and at most `maxFrameBytes` long.
   */
  handle(protocol: string, handler: ProtocolHandler, maxFrameBytes: number): void {
    this.protocols.set(protocol, { handler, maxFrameBytes })
  }

  /** Opens a `protocol` stream to an admitted peer. */
  async openStream(peer: Peer, protocol: string, maxFrameBytes: number): Promise<LengthPrefixedStream<Stream>> {
    return lpStream(await peer.connection.newStream(protocol), { maxDataLength: maxFrameBytes })
  }

  /** Closes the connection to a (misbehaving) peer, logging why with its node id. */
  disconnect(peer: Peer, reason: string): void {
    this.log.warn('disconnecting peer', { peer: peer.info.id, reason })
    peer.connection.abort(new Error(reason))
  }

  /**
   * The peer `connection` is admitted as, once its handshake ends; undefined if it is refused or closes.
   * Every handshake ends in `admit`, `refuse` (its timeout included) or the connection's close, and each
   * settles the waiters.
   */
  private admission(connection: Connection): Promise<Peer | undefined> {
    if (connection.status !== 'open') return Promise.resolve(undefined)
    return new Promise((resolve) => {
      const waiters = this.awaitingAdmission.get(connection.id) ?? []
      waiters.push(resolve)
      this.awaitingAdmission.set(connection.id, waiters)
    })
  }

  private settleAdmission(connectionId: string, peer: Peer | undefined): void {
    const waiters = this.awaitingAdmission.get(connectionId)
    if (!waiters) return
    this.awaitingAdmission.delete(connectionId)
    for (const w of waiters) w(peer)
  }

  private node(): Libp2p {
    if (!this.libp2p) throw new Error('p2p node not started')
    return this.libp2p
  }

  private connectedTo(nodeId: string): boolean {
    return this.peers().some((p) => p.info.id === nodeId)
  }

  private async dial(peer: PeerAddress): Promise<void> {
    if (this.stopped || this.connectedTo(peer.nodeId)) return
    try {
      await this.node().dial(toMultiaddr(peer.addr), { signal: AbortSignal.timeout(this.opts.dialTimeoutMs) })
    } catch (err) {
      this.log.debug('dial failed', { peer: peer.nodeId, error: (err as Error).message })
      this.scheduleRedial(peer)
    }
  }

  private scheduleRedial(peer: PeerAddress): void {
    if (this.stopped || this.connectedTo(peer.nodeId)) return
    const r = this.redials.get(peer.nodeId) ?? { attempt: 0 }
    clearTimeout(r.timer)
    const delay = Math.min(REDIAL_BASE_MS * 2 ** r.attempt, REDIAL_MAX_MS)
    r.attempt++
    r.timer = setTimeout(() => void this.dial(peer), delay)
    this.redials.set(peer.nodeId, r)
  }

  private persistentPeerAt(connection: Connection): PeerAddress | undefined {
    const { host, port } = connection.remoteAddr.toOptions()
    return this.persistent.find((p) => p.addr.port === port && p.addr.host === host)
  }

  private onConnectionOpen(connection: Connection): void {
    const outbound = connection.direction === 'outbound'
    const count = this.peers().filter((p) => p.outbound === outbound).length
    const max = outbound ? this.opts.maxOutboundPeers : this.opts.maxInboundPeers
    if (count >= max) {
      this.refuse(connection, `too many ${outbound ? 'outbound' : 'inbound'} peers (${max})`)
      return
    }
    if (outbound) void this.startHandshake(connection)
    else
      setTimeout(() => {
        if (connection.status === 'open' && !this.peersByConnection.has(connection.id)) this.refuse(connection, 'handshake timed out')
      }, this.opts.handshakeTimeoutMs).unref()
  }

  private onConnectionClose(connection: Connection): void {
    this.settleAdmission(connection.id, undefined)
    const peer = this.peersByConnection.get(connection.id)
    if (peer) {
      this.peersByConnection.delete(connection.id)
      this.log.info('peer disconnected', { peer: peer.info.id })
      this.events.emit('peer:disconnected', peer)
    }
    const persistent = connection.direction === 'outbound' ? this.persistentPeerAt(connection) : undefined
    if (persistent) this.scheduleRedial(persistent)
  }

  /** Dialler side: send our info, read theirs. */
  private async startHandshake(connection: Connection): Promise<void> {
    let stream: Stream
    let theirs: NodeInfo
    try {
      const signal = AbortSignal.timeout(this.opts.handshakeTimeoutMs)
      stream = await connection.newStream(HANDSHAKE_PROTOCOL, { signal })
      const lp = lpStream(stream, { maxDataLength: MAX_NODE_INFO_BYTES })
      await lp.write(encodeNodeInfo(this.nodeInfo), { signal })
      theirs = decodeNodeInfo((await lp.read({ signal })).subarray())
    } catch (err) {
      this.refuse(connection, `handshake failed: ${(err as Error).message}`)
      return
    }
    this.admit(connection, theirs)
    await closeQuietly(stream)
  }

  /** Listener side: read their info, answer with ours (so a refused dialler can log why too). */
  private async answerHandshake(stream: Stream, connection: Connection): Promise<void> {
    let theirs: NodeInfo
    try {
      const signal = AbortSignal.timeout(this.opts.handshakeTimeoutMs)
      const lp = lpStream(stream, { maxDataLength: MAX_NODE_INFO_BYTES })
      theirs = decodeNodeInfo((await lp.read({ signal })).subarray())
      await lp.write(encodeNodeInfo(this.nodeInfo), { signal })
      // Let a dialler we refuse read our info before we hang up.
      if (this.check(connection, theirs) !== undefined) await stream.close({ signal })
    } catch (err) {
      this.refuse(connection, `handshake failed: ${(err as Error).message}`)
      return
    }
    this.admit(connection, theirs)
    await closeQuietly(stream)
  }

  /** Why a peer with `theirs` on `connection` is refused, or undefined. */
  private check(connection: Connection, theirs: NodeInfo): string | undefined {
    const keyId = nodeIdOfConnection(connection)
    if (keyId !== theirs.id) return `peer claims node id ${theirs.id} but its key is ${keyId ?? 'not ed25519'}`
    const expected = connection.direction === 'outbound' ? this.persistentPeerAt(connection) : undefined
    if (expected && expected.nodeId !== keyId)
      return `peer at ${expected.addr.host}:${expected.addr.port} is ${keyId}, not ${expected.nodeId}`
    if (keyId === this.nodeId) return 'connected to itself'
    const existing = this.peers().find((p) => p.info.id === keyId)
    if (existing && !this.keepsNewConnection(connection, existing, keyId)) return 'already connected'
    return incompatibility(this.nodeInfo, theirs)
  }

  /**
   * Two peers that dial each other at once end up with two connections; both sides keep the one dialled
   * by the lower node id, so they agree on which to close.
   */
  private keepsNewConnection(connection: Connection, existing: Peer, keyId: string): boolean {
    const dialler = (c: Connection): string => (c.direction === 'outbound' ? this.nodeId : keyId)
    const lower = this.nodeId < keyId ? this.nodeId : keyId
    return dialler(connection) === lower && dialler(existing.connection) !== lower
  }

  private admit(connection: Connection, theirs: NodeInfo): void {
    const why = this.check(connection, theirs)
    if (why) {
      this.refuse(connection, why)
      return
    }
    if (connection.status !== 'open') return
    const replaced = this.peers().find((p) => p.info.id === theirs.id)
    if (replaced) {
      this.peersByConnection.delete(replaced.connection.id)
      this.events.emit('peer:disconnected', replaced)
      replaced.connection.abort(new Error('replaced by a connection dialled by the lower node id'))
    }
    const persistent = connection.direction === 'outbound' ? this.persistentPeerAt(connection) : undefined
    if (persistent) this.redials.delete(persistent.nodeId)
    const peer: Peer = {
      info: theirs,
      outbound: connection.direction === 'outbound',
      remoteIp: String(connection.remoteAddr.toOptions().host),
      connectedSince: new Date(),
      connection,
    }
    this.peersByConnection.set(connection.id, peer)
    this.log.info('peer connected', { peer: theirs.id, moniker: theirs.moniker, outbound: peer.outbound })
    this.events.emit('peer:connected', peer)
    this.settleAdmission(connection.id, peer)
  }

  private refuse(connection: Connection, reason: string): void {
    this.settleAdmission(connection.id, undefined)
    this.log.warn('refused peer', { peer: nodeIdOfConnection(connection), addr: connection.remoteAddr.toString(), reason })
    connection.abort(new Error(reason))
  }
}
