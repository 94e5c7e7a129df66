/**
 * The mempool and evidence protocols between two real hosts on loopback: a peer that connects gets the
 * pool's transactions and the pending evidence; a transaction is sent only to peers not known to have it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import type { DuplicateVoteEvidence } from '../../../src/comet/types.js'
import { keccak256 } from '../../../src/crypto/index.js'
import { EvidenceGossip } from '../../../src/p2p/evidence-gossip.js'
import type { P2PNode } from '../../../src/p2p/p2p-node.js'
import { TxGossip } from '../../../src/p2p/tx-gossip.js'
import { bytesToHex, utf8ToBytes } from '../../../src/primitives/hex.js'
import { silentLogger } from '../../../src/utils/logger.js'
import { now } from '../../../src/utils/time.js'
import { makeEvidence } from '../consensus/evidence-helpers.js'
import { makeKeys } from '../consensus/helpers.js'
import { makeHost, makeNodeKey, nextP2PEvent, peerAddressOf } from './helpers.js'

/** Resolves with the first `n` values pushed into the returned `push`. */
function collector<T>(n: number): { push: (v: T) => void; done: Promise<T[]>; values: T[] } {
  const values: T[] = []
  let resolve!: (v: T[]) => void
  const done = new Promise<T[]>((r) => (resolve = r))
  return {
    values,
    done,
    push: (v) => {
      values.push(v)
      if (values.length === n) resolve(values)
    },
  }
}

describe('gossip protocols', () => {
  const hosts: P2PNode[] = []
  afterEach(async () => {
    for (const h of hosts.splice(0)) await h.stop()
  })

  async function pair<T>(build: (host: P2PNode, i: number) => T): Promise<T[]> {
    const a = makeHost({ key: makeNodeKey(0) })
    const protocols = [build(a, 0)]
    hosts.push(a)
    await a.start()
    const b = makeHost({ key: makeNodeKey(1), persistentPeers: [peerAddressOf(a)] })
    protocols.push(build(b, 1))
    hosts.push(b)
    const connected = nextP2PEvent(b, 'peer:connected')
    await b.start()
    await connected
    return protocols
  }

  it('a peer that connects gets the pool; what enters a pool goes to peers lacking it, and is not sent back', async () => {
    const tx = (text: string) => ({ raw: utf8ToBytes(text), hash: bytesToHex(keccak256(utf8ToBytes(text))) })
    const [one, two, three] = [tx('tx-one'), tx('tx-two'), tx('tx-three')]
    const received = [collector<string>(1), collector<string>(2)]
    const [, b] = await pair((host, i) => {
      const gossip = new TxGossip(
        host,
        {
          submit: async (raw) => received[i]!.push(Buffer.from(raw).toString('utf8')),
          has: () => false,
          // node0's pool holds two transactions before node1 connects.
          pending: () => (i === 0 ? [one!, two!] : []),
        },
        silentLogger,
      )
      gossip.start()
      return gossip
    })
    expect(await received[1]!.done).toEqual(['tx-one', 'tx-two'])
    // node1's pool took them and a third: it announces all three, and node0 is known to have the first two.
    for (const t of [one!, two!, three!]) b!.announce(t.raw, t.hash)
    expect(await received[0]!.done).toEqual(['tx-three'])
  })

  it('a transaction the receiving pool already holds is not submitted again', async () => {
    const tx = (text: string) => ({ raw: utf8ToBytes(text), hash: bytesToHex(keccak256(utf8ToBytes(text))) })
    const [held, fresh] = [tx('tx-held'), tx('tx-fresh')]
    const received = collector<string>(1)
    await pair((host, i) => {
      const gossip = new TxGossip(
        host,
        {
          submit: async (raw) => {
            if (i === 1) received.push(Buffer.from(raw).toString('utf8'))
          },
          // node1's pool already holds the first; node0's pool holds both when node1 connects.
          has: (hash) => i === 1 && hash === held.hash,
          pending: () => (i === 0 ? [held, fresh] : []),
        },
        silentLogger,
      )
      gossip.start()
      return gossip
    })
    expect(await received.done).toEqual(['tx-fresh'])
  })

  it('pending evidence reaches a peer, and a peer that connects gets what is pending', async () => {
    const [validator] = makeKeys(1)
    const ev = makeEvidence({
      key: validator!,
      chainId: 'nodectl_31337-1',
      height: 3,
      blockTime: now(),
      validatorPower: 10n,
      totalVotingPower: 40n,
    })
    const got = collector<DuplicateVoteEvidence>(1)
    await pair((host, i) => {
      const gossip = new EvidenceGossip(host, silentLogger)
      gossip.start({ submit: async (e) => (i === 1 ? got.push(e) : undefined), pending: () => (i === 0 ? [ev] : []) })
      return gossip
    })
    expect(await got.done).toEqual([ev])
  })
})
