import { createServer } from 'node:net'
import { noise } from '@chainsafe/libp2p-noise'
import { yamux } from '@chainsafe/libp2p-yamux'
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys'
import { tcp } from '@libp2p/tcp'
import { multiaddr } from '@multiformats/multiaddr'
import { lpStream } from 'it-length-prefixed-stream'
import { createLibp2p } from 'libp2p'
import { afterEach, describe, expect, it } from 'vitest'
import { nodeIdOf } from '../../../src/keystore/validator-key.js'
import { encodeNodeInfo } from '../../../src/p2p/node-info.js'
import { HANDSHAKE_PROTOCOL, type P2PNode } from '../../../src/p2p/p2p-node.js'
import { pickPort, pickPortBlock, withPortRetry } from '../../helpers/ports.js'
import { awaitableLogger, makeHost, makeNodeKey, nextP2PEvent, peerAddressOf, TEST_CHAIN_ID } from './helpers.js'

describe('p2p host', () => {
  const started: P2PNode[] = []
  afterEach(async () => {
    for (const n of started.splice(0)) await n.stop()
  })

  async function start(node: P2PNode): Promise<P2PNode> {
    started.push(node)
    await node.start()
    return node
  }

  it('dials a persistent peer, exchanges node info and lists the peer on both sides', async () => {
    const a = await start(makeHost({ key: makeNodeKey(0) }))
    const b = makeHost({ key: makeNodeKey(1), persistentPeers: [peerAddressOf(a)] })
    const [onA, onB] = [nextP2PEvent(a, 'peer:connected'), nextP2PEvent(b, 'peer:connected')]
    await start(b)
    const [peerOfA, peerOfB] = await Promise.all([onA, onB])
    expect(a.nodeId).toMatch(/^[0-9a-f]{40}$/)
    expect(peerOfA.info).toEqual(b.nodeInfo)
    expect(peerOfB.info).toEqual(a.nodeInfo)
    expect(peerOfA.outbound).toBe(false)
    expect(peerOfB.outbound).toBe(true)
    expect(peerOfB.remoteIp).toBe('127.0.0.1')
    expect(a.nodeInfo.listenAddr).toBe(`tcp://127.0.0.1:${a.listenPort}`)
    expect(a.peers()).toHaveLength(1)
    expect(b.peers()).toHaveLength(1)
  })

  it('refuses a peer of another chain, logging why', async () => {
    const logA = awaitableLogger()
    const a = await start(makeHost({ key: makeNodeKey(0), logger: logA.logger }))
    const logB = awaitableLogger()
    const b = makeHost({ key: makeNodeKey(1), chainId: 'other_1-1', persistentPeers: [peerAddressOf(a)], logger: logB.logger })
    await start(b)
    const [refusedByA, refusedByB] = await Promise.all([
      logA.next((l) => l.msg === 'refused peer'),
      logB.next((l) => l.msg === 'refused peer'),
    ])
    expect(refusedByA.ctx.reason).toBe(`peer is on chain other_1-1, this node on ${TEST_CHAIN_ID}`)
    expect(refusedByA.ctx.peer).toBe(b.nodeId)
    expect(refusedByB.ctx.reason).toBe(`peer is on chain ${TEST_CHAIN_ID}, this node on other_1-1`)
    expect(a.peers()).toEqual([])
    expect(b.peers()).toEqual([])
  })

  it('refuses a peer of the same chain id with another genesis', async () => {
    const logA = awaitableLogger()
    const a = await start(makeHost({ key: makeNodeKey(0), logger: logA.logger }))
    await start(makeHost({ key: makeNodeKey(1), genesisHash: 'bb', persistentPeers: [peerAddressOf(a)] }))
    const refused = await logA.next((l) => l.msg === 'refused peer')
    expect(refused.ctx.reason).toBe('peer has genesis bb, this node aa')
  })

  it('refuses a persistent peer whose key is not the node id configured for its address', async () => {
    const a = await start(makeHost({ key: makeNodeKey(0) }))
    const wrongId = makeNodeKey(5)
    const logB = awaitableLogger()
    const b = makeHost({
      key: makeNodeKey(1),
      persistentPeers: [`${makeHost({ key: wrongId }).nodeId}@127.0.0.1:${a.listenPort}`],
      logger: logB.logger,
    })
    await start(b)
    const refused = await logB.next((l) => l.msg === 'refused peer')
    expect(refused.ctx.reason).toMatch(new RegExp(`^peer at 127\\.0\\.0\\.1:${a.listenPort} is ${a.nodeId}, not [0-9a-f]{40}$`))
    expect(b.peers()).toEqual([])
  })

  it('redials a persistent peer that went away once it is back', async () => {
    const key = makeNodeKey(0)
    // A port chosen ahead, outside the ephemeral range: no outgoing connection takes it while a is down.
    let port = 0
    const a = await withPortRetry(async () => {
      port = await pickPort()
      return start(makeHost({ key, listen: { host: '127.0.0.1', port } }))
    })
    const b = makeHost({ key: makeNodeKey(1), persistentPeers: [peerAddressOf(a)] })
    const first = nextP2PEvent(b, 'peer:connected')
    await start(b)
    await first
    const gone = nextP2PEvent(b, 'peer:disconnected')
    await a.stop()
    await gone
    const again = nextP2PEvent(b, 'peer:connected')
    await start(makeHost({ key, listen: { host: '127.0.0.1', port } }))
    expect((await again).info.id).toBe(a.nodeId)
  })

  it('a host whose chosen port was taken starts again on another (the retry the tests above rely on)', async () => {
    const taken = await pickPort()
    const squatter = createServer().listen(taken, '127.0.0.1')
    await new Promise((resolve) => squatter.once('listening', resolve))
    try {
      const tried: number[] = []
      const a = await withPortRetry(async (attempt) => {
        const port = attempt === 1 ? taken : await pickPort()
        tried.push(port)
        return start(makeHost({ key: makeNodeKey(0), listen: { host: '127.0.0.1', port } }))
      })
      expect(tried).toHaveLength(2)
      expect(a.listenPort).toBe(tried[1])
    } finally {
      squatter.close()
    }
  })

  it('a busy port fails the start with EADDRINUSE and the port, as the RPC listeners do (so start names --p2p.laddr)', async () => {
    const taken = await pickPort()
    const squatter = createServer().listen(taken, '127.0.0.1')
    await new Promise((resolve) => squatter.once('listening', resolve))
    try {
      const err = await start(makeHost({ key: makeNodeKey(0), listen: { host: '127.0.0.1', port: taken } })).catch((e: unknown) => e)
      expect(err).toMatchObject({ code: 'EADDRINUSE', address: '127.0.0.1', port: taken })
    } finally {
      squatter.close()
    }
  })

  it('two peers that dial each other keep one connection, the one the lower node id dialled', async () => {
    const [keyA, keyB] = [makeNodeKey(0), makeNodeKey(1)]
    const [idA, idB] = [makeHost({ key: keyA }).nodeId, makeHost({ key: keyB }).nodeId]
    // Each must know the other's port before either starts: two ports chosen ahead, both anew when one is taken.
    const hosts = () => {
      const host = (key: typeof keyA, port: number, peer: string, peerPort: number) =>
        makeHost({ key, listen: { host: '127.0.0.1', port }, persistentPeers: [`${peer}@127.0.0.1:${peerPort}`] })
      return pickPortBlock(2).then((portA) => [host(keyA, portA, idB, portA + 1), host(keyB, portA + 1, idA, portA)] as const)
    }
    let [a, b] = await hosts()
    const settled = (n: P2PNode, lowerDialled: boolean) =>
      new Promise<void>((resolve) => {
        const check = () => {
          const peers = n.peers()
          if (peers.length !== 1 || peers[0]!.outbound !== lowerDialled) return
          off()
          resolve()
        }
        const off = n.events.on('peer:connected', check)
      })
    await withPortRetry(async () => {
      const waiting = Promise.all([settled(a, idA < idB), settled(b, idB < idA)])
      try {
        await Promise.all([start(a), start(b)])
      } catch (err) {
        await Promise.all([a.stop(), b.stop()])
        ;[a, b] = await hosts()
        throw err
      }
      await waiting
    })
    expect(a.peers()[0]!.connection.status).toBe('open')
    expect(b.peers()[0]!.connection.status).toBe('open')
  })

  it('refuses inbound peers beyond max_num_inbound_peers', async () => {
    const logA = awaitableLogger()
    const a = await start(makeHost({ key: makeNodeKey(0), maxInboundPeers: 1, logger: logA.logger }))
    const first = nextP2PEvent(a, 'peer:connected')
    await start(makeHost({ key: makeNodeKey(1), persistentPeers: [peerAddressOf(a)] }))
    await first
    await start(makeHost({ key: makeNodeKey(2), persistentPeers: [peerAddressOf(a)] }))
    const refused = await logA.next((l) => l.msg === 'refused peer')
    expect(refused.ctx.reason).toBe('too many inbound peers (1)')
    expect(a.peers()).toHaveLength(1)
  })

  it('serves a stream that arrives before the handshake has ended, once the peer is admitted', async () => {
    const a = makeHost({ key: makeNodeKey(0) })
    const frames: string[] = []
    let served: () => void = () => {}
    const wasServed = new Promise<void>((resolve) => (served = resolve))
    a.handle(
      '/test/early/1',
      (stream) =>
        void stream.read().then((frame) => {
          frames.push(new TextDecoder().decode(frame.subarray()))
          served()
        }),
      1024,
    )
    await start(a)
    // A bare libp2p host, so that the test decides when the handshake happens.
    const key = makeNodeKey(1)
    const raw = await createLibp2p({
      privateKey: await generateKeyPairFromSeed('Ed25519', key.seed),
      transports: [tcp()],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux()],
    })
    try {
      const connection = await raw.dial(multiaddr(`/ip4/127.0.0.1/tcp/${a.listenPort}`))
      const early = lpStream(await connection.newStream('/test/early/1'))
      await early.write(new TextEncoder().encode('before the handshake'))
      const handshake = lpStream(await connection.newStream(HANDSHAKE_PROTOCOL))
      await handshake.write(encodeNodeInfo({ ...a.nodeInfo, id: nodeIdOf(key), listenAddr: 'tcp://127.0.0.1:1', moniker: 'raw' }))
      await handshake.read()
      await wasServed
      expect(frames).toEqual(['before the handshake'])
    } finally {
      await raw.stop()
    }
  })
})
