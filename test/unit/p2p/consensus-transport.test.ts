import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { SignedMsgType, type Vote } from '../../../src/comet/types.js'
import {
  decodeGossipMessage,
  encodeGossipMessage,
  type GossipMessage,
  type NewRoundStepMessage,
} from '../../../src/consensus/gossip-messages.js'
import type { ConsensusMessage } from '../../../src/consensus/messages.js'
import { RoundStep } from '../../../src/consensus/round-step.js'
import { CONSENSUS_PROTOCOL, P2PConsensusTransport } from '../../../src/p2p/consensus-transport.js'
import type { P2PNode } from '../../../src/p2p/p2p-node.js'
import { bytesToUpperHex } from '../../../src/primitives/hex.js'
import { silentLogger } from '../../../src/utils/logger.js'
import { makeGenesis, makeKeys, makeTempDir, removeDir, startNode, waitFor, type TestNode } from '../consensus/helpers.js'
import { awaitableLogger, makeHost, makeNodeKey, nextP2PEvent, peerAddressOf } from './helpers.js'

const gossipCodec = { encode: encodeGossipMessage, decode: decodeGossipMessage }

function stepAt(height: number): NewRoundStepMessage {
  return { type: 'newRoundStep', height, round: 0, step: RoundStep.NewRound, secondsSinceStartTime: 0, lastCommitRound: 0 }
}

/** A prevote by validator `index` (the transport neither checks nor needs a real signature). */
function prevote(height: number, index: number): ConsensusMessage {
  const vote: Vote = {
    type: SignedMsgType.Prevote,
    height,
    round: 0,
    blockId: { hash: new Uint8Array(32).fill(1), partSetHeader: { total: 1, hash: new Uint8Array(32).fill(2) } },
    timestamp: { seconds: 1_700_000_000, nanos: 0 },
    validatorAddress: new Uint8Array(20).fill(index),
    validatorIndex: index,
    signature: new Uint8Array(64).fill(3),
  }
  return { type: 'vote', vote }
}

/** Resolves once `cond` holds, checked each few milliseconds (for a stream opening, which raises no event here). */
async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

describe('consensus over p2p', () => {
  let dir: string
  const hosts: P2PNode[] = []
  const nodes: TestNode[] = []
  beforeEach(async () => {
    dir = await makeTempDir('nodectl-p2p-')
  })
  afterEach(async () => {
    for (const n of nodes.splice(0)) await n.stop()
    for (const h of hosts.splice(0)) await h.stop()
    await removeDir(dir)
  })

  /** Host i dials hosts 0…i-1: a full mesh with one connection per pair. Resolves once every host has n-1 peers. */
  async function startMesh(n: number): Promise<{ host: P2PNode; transport: P2PConsensusTransport }[]> {
    const out: { host: P2PNode; transport: P2PConsensusTransport }[] = []
    const meshed: Promise<void>[] = []
    for (let i = 0; i < n; i++) {
      const host = makeHost({ key: makeNodeKey(i), persistentPeers: out.map((o) => peerAddressOf(o.host)) })
      const transport = new P2PConsensusTransport(host, gossipCodec, silentLogger)
      meshed.push(
        new Promise((resolve) => {
          const off = host.events.on('peer:connected', () => {
            if (host.peers().length < n - 1) return
            off()
            resolve()
          })
        }),
      )
      hosts.push(host)
      transport.start()
      await host.start()
      out.push({ host, transport })
    }
    await Promise.all(meshed)
    return out
  }

  async function blockHashes(node: TestNode, upTo: number): Promise<string[]> {
    const out: string[] = []
    for (let h = 1; h <= upTo; h++) out.push(bytesToUpperHex((await node.blockStore.loadBlockMeta(h))!.blockId.hash))
    return out
  }

  it('4 validators over TCP commit the same blocks at the same heights', async () => {
    const keys = makeKeys(4)
    const genesis = makeGenesis(keys)
    const mesh = await startMesh(4)
    for (const [i, key] of keys.entries()) {
      const home = join(dir, `node${i}`)
      await mkdir(home, { recursive: true })
      nodes.push(await startNode({ dir: home, genesis, key, transport: mesh[i]!.transport, noStart: true }))
    }
    await Promise.all(nodes.map((n) => n.engine.start()))
    nodes[1]!.mempool.add('over=tcp')
    await waitFor(() => nodes.every((n) => n.app.kv.get('over') === 'tcp' && n.engine.height >= 4), 'tx committed, height 4', 25_000)
    const h = Math.min(...nodes.map((n) => n.engine.height)) - 1
    const reference = await blockHashes(nodes[0]!, h)
    for (const n of nodes.slice(1)) expect(await blockHashes(n, h)).toEqual(reference)
  }, 30_000)

  it('delivers messages to one peer in order, and tells of peers as their streams open and close', async () => {
    const a = makeHost({ key: makeNodeKey(0) })
    hosts.push(a)
    const ta = new P2PConsensusTransport(a, gossipCodec, silentLogger)
    ta.start()
    const added: string[] = []
    const removed: string[] = []
    ta.watchPeers({ added: (id) => added.push(id), removed: (id) => removed.push(id) })
    await a.start()
    const b = makeHost({ key: makeNodeKey(1), persistentPeers: [peerAddressOf(a)] })
    hosts.push(b)
    const tb = new P2PConsensusTransport(b, gossipCodec, silentLogger)
    tb.start()
    const received: GossipMessage[] = []
    let onMessage = (): void => {}
    tb.subscribe((msg, from) => {
      expect(from).toBe(a.nodeId)
      received.push(msg)
      onMessage()
    })
    await b.start()
    await until(() => added.length === 1, "B's stream open")
    expect(added).toEqual([b.nodeId])
    expect([...ta.peers()]).toEqual([b.nodeId])

    const sent: GossipMessage[] = [
      stepAt(5),
      prevote(5, 0),
      { type: 'hasVote', height: 5, round: 0, voteType: SignedMsgType.Prevote, index: 1 },
    ]
    for (const m of sent) expect(ta.send(b.nodeId, m)).toBe(true)
    expect(ta.send('unknown-peer', stepAt(5))).toBe(false)
    await new Promise<void>((resolve) => {
      onMessage = () => received.length === sent.length && resolve()
    })
    expect(received).toEqual(sent)

    const gone = nextP2PEvent(a, 'peer:disconnected')
    await b.stop()
    await gone
    expect(removed).toEqual([b.nodeId])
    expect([...ta.peers()]).toEqual([])
  })

  /**
   * Host A with a consensus transport (logging into `log`), and a bare host B connected to it with a
   * consensus stream of its own to A; `gone` resolves when B sees A disconnect it.
   */
  async function bareStreamToTransport() {
    const log = awaitableLogger()
    const a = makeHost({ key: makeNodeKey(0), logger: log.logger })
    hosts.push(a)
    const transport = new P2PConsensusTransport(a, gossipCodec, silentLogger)
    transport.start()
    await a.start()
    const b = makeHost({ key: makeNodeKey(1), persistentPeers: [peerAddressOf(a)] })
    hosts.push(b)
    const connected = nextP2PEvent(b, 'peer:connected')
    await b.start()
    const stream = await b.openStream(await connected, CONSENSUS_PROTOCOL, 1024)
    return { log, a, b, transport, stream, gone: nextP2PEvent(b, 'peer:disconnected') }
  }

  it('disconnects a peer that sends a malformed consensus message, logging its id', async () => {
    const { log, a, b, transport, stream, gone } = await bareStreamToTransport()
    const received: string[] = []
    transport.subscribe((msg) => received.push(msg.type))
    await stream.write(new Uint8Array([0xff, 0xff, 0xff]))
    const line = await log.next((l) => l.msg === 'disconnecting peer')
    expect(line.ctx.peer).toBe(b.nodeId)
    expect(String(line.ctx.reason)).toMatch(/^malformed consensus message: /)
    await gone
    expect(received).toEqual([])
    expect(a.peers()).toEqual([])
  })

  it('disconnects a peer whose stream breaks while its connection stays open, so that no protocol is silently gone', async () => {
    const { log, b, stream, gone } = await bareStreamToTransport()
    stream.unwrap().abort(new Error('gone wrong'))
    const line = await log.next((l) => l.msg === 'disconnecting peer')
    expect(line.ctx.peer).toBe(b.nodeId)
    expect(String(line.ctx.reason)).toMatch(/^cannot read its \/nodectl\/consensus\/1 stream: /)
    await gone
  })

  it('a peer that stops closes its streams and its connection: no warning, only the disconnect', async () => {
    const log = awaitableLogger()
    const a = makeHost({ key: makeNodeKey(0), logger: log.logger })
    hosts.push(a)
    const ta = new P2PConsensusTransport(a, gossipCodec, silentLogger)
    ta.start()
    await a.start()
    const b = makeHost({ key: makeNodeKey(1), persistentPeers: [peerAddressOf(a)] })
    const tb = new P2PConsensusTransport(b, gossipCodec, silentLogger)
    tb.start()
    await b.start()
    await until(() => [...ta.peers()].includes(b.nodeId), "A's stream to B open")
    const gone = nextP2PEvent(a, 'peer:disconnected')
    await b.stop()
    await gone
    expect(log.lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([])
  })
})
