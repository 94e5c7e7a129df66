/**
 * The consensus reactor on its own: a state machine double whose round state the test sets, and a peer
 * that is a bare transport of the in-memory network, announcing steps and recording what it is sent.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { makePartSet } from '../../../src/comet/part-set.js'
import { SignedMsgType, type Vote } from '../../../src/comet/types.js'
import { makeGenesisState } from '../../../src/consensus/chain-state.js'
import type { ConsensusEvents } from '../../../src/consensus/events.js'
import type { GossipMessage } from '../../../src/consensus/gossip-messages.js'
import type { ConsensusMessage } from '../../../src/consensus/messages.js'
import { ConsensusReactor, type ReactorTarget } from '../../../src/consensus/reactor.js'
import type { ReadonlyVoteSet, RoundStateView } from '../../../src/consensus/round-state-view.js'
import { RoundStep, roundStepName } from '../../../src/consensus/round-step.js'
import { InMemoryNetwork, type ConsensusTransport } from '../../../src/consensus/transport.js'
import { TypedEmitter } from '../../../src/utils/events.js'
import { silentLogger } from '../../../src/utils/logger.js'
import { makeGenesis, makeKeys } from './helpers.js'

const state = makeGenesisState(makeGenesis(makeKeys(4)))

/** A vote of validator `index` (the reactor neither checks nor needs a real signature). */
function vote(type: typeof SignedMsgType.Prevote | typeof SignedMsgType.Precommit, height: number, round: number, index: number): Vote {
  return {
    type,
    height,
    round,
    blockId: { hash: new Uint8Array(32).fill(1), partSetHeader: { total: 1, hash: new Uint8Array(32).fill(2) } },
    timestamp: { seconds: 1_700_000_000, nanos: 0 },
    validatorAddress: new Uint8Array(20).fill(index),
    validatorIndex: index,
    signature: new Uint8Array(64).fill(3),
  }
}

function voteSet(votes: Vote[]): ReadonlyVoteSet {
  const first = votes[0]!
  return {
    height: first.height,
    round: first.round,
    type: first.type,
    size: 4,
    list: () => votes,
    getByIndex: (i) => votes.find((v) => v.validatorIndex === i),
    hasTwoThirdsMajority: () => votes.length >= 3,
  }
}

/** The state machine as the reactor sees it: a round state the test moves, and the messages handed to it. */
class FakeStateMachine implements ReactorTarget {
  readonly received: ConsensusMessage[] = []

  constructor(
    public roundState: RoundStateView,
    private readonly events: TypedEmitter<ConsensusEvents>,
  ) {}

  receivePeerMessage(msg: ConsensusMessage): void {
    this.received.push(msg)
  }

  /** Moves to (height, round, step) and says so, as the state machine's `newStep` does. */
  moveTo(height: number, round: number, step: RoundStep): void {
    this.roundState = { ...this.roundState, height, round, step }
    this.events.emit('NewRoundStep', { height, round, step: roundStepName(step) })
  }
}

function roundStateAt(height: number, extra: Partial<RoundStateView> = {}): RoundStateView {
  return {
    height,
    round: 0,
    step: RoundStep.NewRound,
    proposal: undefined,
    proposalBlockParts: undefined,
    votes: { prevotes: () => undefined, precommits: () => undefined },
    commitRound: -1,
    lastCommit: undefined,
    state,
    ...extra,
  }
}

/** A bare peer on the network: what it was sent, in order, and a way to wait for more. */
class Peer {
  readonly received: GossipMessage[] = []
  private waiters: (() => void)[] = []

  constructor(readonly transport: ConsensusTransport) {
    transport.subscribe((msg) => {
      this.received.push(msg)
      for (const w of this.waiters.splice(0)) w()
    })
  }

  /** Resolves once `cond` holds over what was received (checked on each arrival). */
  async until(cond: (received: GossipMessage[]) => boolean): Promise<void> {
    while (!cond(this.received)) await new Promise<void>((resolve) => this.waiters.push(resolve))
  }

  announce(height: number, step: RoundStep, lastCommitRound = 0): void {
    this.transport.send('us', { type: 'newRoundStep', height, round: 0, step, secondsSinceStartTime: 0, lastCommitRound })
  }
}

/** Resolves after every delivery queued so far (the in-memory network delivers on the next macrotask). */
const delivered = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

const votesIn = (received: GossipMessage[]): Vote[] => received.flatMap((m) => (m.type === 'vote' ? [m.vote] : []))
const voteKey = (v: Vote): string => `${v.height}/${v.round}/${v.type}/${v.validatorIndex}`

describe('consensus reactor', () => {
  let reactor: ConsensusReactor | undefined
  afterEach(() => {
    reactor?.stop()
    reactor = undefined
  })

  function startReactor(
    net: InMemoryNetwork,
    rs: RoundStateView,
    gossipIntervalMs: number,
    blockBytes?: Uint8Array,
  ): { sm: FakeStateMachine; events: TypedEmitter<ConsensusEvents> } {
    const events = new TypedEmitter<ConsensusEvents>()
    reactor = new ConsensusReactor({
      transport: net.join('us'),
      events,
      blockStore: { loadBlockBytes: async () => blockBytes },
      logger: silentLogger,
      gossipIntervalMs,
    })
    reactor.start()
    const sm = new FakeStateMachine(rs, events)
    reactor.attach(sm)
    return { sm, events }
  }

  it('sends a peer finishing the previous height the precommits that decided it and the block, then our height’s votes', async () => {
    const net = new InMemoryNetwork()
    const peer = new Peer(net.join('peer'))
    const lastCommit = [0, 1, 2].map((i) => vote(SignedMsgType.Precommit, 4, 0, i))
    const prevotes = [1, 3].map((i) => vote(SignedMsgType.Prevote, 5, 0, i))
    const block = new Uint8Array(100_000).map((_, i) => i % 251)
    const parts = makePartSet(block)
    expect(parts.parts).toHaveLength(2)
    startReactor(
      net,
      roundStateAt(5, {
        step: RoundStep.Prevote,
        lastCommit: voteSet(lastCommit),
        votes: { prevotes: (r) => (r === 0 ? voteSet(prevotes) : undefined), precommits: () => undefined },
      }),
      5,
      block,
    )
    // The peer is still committing height 4.
    peer.announce(4, RoundStep.Commit)
    await peer.until((r) => votesIn(r).length >= 5 && r.filter((m) => m.type === 'blockPart').length >= 2)
    expect(new Set(votesIn(peer.received).map(voteKey))).toEqual(new Set([...lastCommit, ...prevotes].map(voteKey)))
    const sentParts = peer.received.flatMap((m) => (m.type === 'blockPart' ? [m] : []))
    expect(new Set(sentParts.map((m) => `${m.height}/${m.round}/${m.part.index}`))).toEqual(new Set(['4/0/0', '4/0/1']))
    expect(sentParts.map((m) => m.part.bytes)).toEqual(expect.arrayContaining(parts.parts.map((p) => p.bytes)))
    // Our step went out as the peer appeared.
    expect(peer.received[0]).toMatchObject({ type: 'newRoundStep', height: 5, step: RoundStep.Prevote })
  })

  it('sends our own messages to a peer once, and not those it told us it has', async () => {
    const net = new InMemoryNetwork()
    const peer = new Peer(net.join('peer'))
    startReactor(net, roundStateAt(5), 0)
    peer.announce(5, RoundStep.Prevote)
    await delivered()
    const [a, b, c] = [0, 1, 2].map((i) => vote(SignedMsgType.Prevote, 5, 0, i))
    reactor!.broadcastOwn({ type: 'vote', vote: a! })
    reactor!.broadcastOwn({ type: 'vote', vote: a! })
    // A HasVote, and a vote the peer sent itself: either way the reactor learns the peer holds it.
    peer.transport.send('us', { type: 'hasVote', height: 5, round: 0, voteType: SignedMsgType.Prevote, index: 1 })
    const relayed = vote(SignedMsgType.Prevote, 5, 0, 3)
    peer.transport.send('us', { type: 'vote', vote: relayed })
    await delivered()
    reactor!.broadcastOwn({ type: 'vote', vote: b! })
    reactor!.broadcastOwn({ type: 'vote', vote: relayed })
    reactor!.broadcastOwn({ type: 'vote', vote: c! })
    await peer.until((r) => votesIn(r).some((v) => v.validatorIndex === 2))
    expect(votesIn(peer.received).map((v) => v.validatorIndex)).toEqual([0, 2])
    expect(reactor!.peerRoundStates().get('peer')).toMatchObject({ prevotes: [0, 1, 2, 3], stats: { votes: 1, blockParts: 0 } })
  })

  it('sends a peer whose step does not change again what it was sent (it may have been lost), and our step too', async () => {
    const net = new InMemoryNetwork()
    const peer = new Peer(net.join('peer'))
    const prevotes = [1, 3].map((i) => vote(SignedMsgType.Prevote, 5, 0, i))
    const votes = { prevotes: (r: number) => (r === 0 ? voteSet(prevotes) : undefined), precommits: () => undefined }
    startReactor(net, roundStateAt(5, { step: RoundStep.Prevote, votes }), 5)
    peer.announce(5, RoundStep.Prevote)
    await peer.until((r) => votesIn(r).length >= 4 && r.filter((m) => m.type === 'newRoundStep').length >= 2)
    expect(votesIn(peer.received).map(voteKey).sort()).toEqual([...prevotes, ...prevotes].map(voteKey).sort())
  })

  it('keeps messages of the next height, and of a later round, until the state machine gets there', async () => {
    const net = new InMemoryNetwork()
    const peer = new Peer(net.join('peer'))
    const { sm, events } = startReactor(net, roundStateAt(5), 0)
    const next = vote(SignedMsgType.Prevote, 6, 0, 1)
    const laterRound = vote(SignedMsgType.Prevote, 5, 3, 2)
    const nextRound = vote(SignedMsgType.Prevote, 5, 1, 3)
    const tooFar = vote(SignedMsgType.Prevote, 7, 0, 1)
    for (const v of [next, laterRound, nextRound, tooFar]) peer.transport.send('us', { type: 'vote', vote: v })
    await delivered()
    // A vote of a later round of this height goes in at once as well (a peer's catch-up round) and is kept;
    // the next round's is tracked already.
    expect(sm.received.map((m) => m.type === 'vote' && voteKey(m.vote))).toEqual([voteKey(laterRound), voteKey(nextRound)])

    sm.roundState = { ...sm.roundState, round: 2 }
    events.emit('NewRound', { height: 5, round: 2, step: 'RoundStepNewRound', proposer: { address: new Uint8Array(20), index: 0 } })
    expect(sm.received.map((m) => m.type === 'vote' && voteKey(m.vote))).toEqual([
      voteKey(laterRound),
      voteKey(nextRound),
      voteKey(laterRound),
    ])
    sm.moveTo(6, 0, RoundStep.NewHeight)
    expect(sm.received.map((m) => m.type === 'vote' && voteKey(m.vote)).slice(3)).toEqual([voteKey(next)])
    // Two heights ahead is block sync's business: never handed on.
    sm.moveTo(7, 0, RoundStep.NewHeight)
    expect(sm.received).toHaveLength(4)
  })

  it('hands nothing on while detached (block sync), and announces the new state machine once attached', async () => {
    const net = new InMemoryNetwork()
    const peer = new Peer(net.join('peer'))
    const { sm } = startReactor(net, roundStateAt(5), 0)
    reactor!.detach()
    peer.transport.send('us', { type: 'vote', vote: vote(SignedMsgType.Prevote, 5, 0, 1) })
    peer.announce(9, RoundStep.Propose)
    await delivered()
    expect(reactor!.peerRoundStates().get('peer')).toMatchObject({ height: 9, step: RoundStep.Propose, stats: { votes: 1 } })
    expect(sm.received).toEqual([])
    const synced = new FakeStateMachine(roundStateAt(9), new TypedEmitter())
    reactor!.attach(synced)
    await peer.until((r) => r.some((m) => m.type === 'newRoundStep' && m.height === 9))
  })
})
