import { describe, expect, it } from 'vitest'
import { ProtoWriter } from '../../../src/comet/proto.js'
import { SignedMsgType } from '../../../src/comet/types.js'
import { decodeGossipMessage, encodeGossipMessage, type GossipMessage } from '../../../src/consensus/gossip-messages.js'
import { RoundStep } from '../../../src/consensus/round-step.js'
import { PeerState } from '../../../src/consensus/peer-state.js'

describe('gossip messages', () => {
  it('round-trips NewRoundStep and HasVote, zero and negative fields included', () => {
    const messages: GossipMessage[] = [
      { type: 'newRoundStep', height: 12, round: 0, step: RoundStep.Prevote, secondsSinceStartTime: 0, lastCommitRound: 0 },
      { type: 'newRoundStep', height: 1, round: 3, step: RoundStep.NewHeight, secondsSinceStartTime: 7, lastCommitRound: -1 },
      { type: 'hasVote', height: 9, round: 2, voteType: SignedMsgType.Precommit, index: 0 },
      { type: 'hasVote', height: 9, round: 0, voteType: SignedMsgType.Prevote, index: 3 },
    ]
    for (const m of messages) expect(decodeGossipMessage(encodeGossipMessage(m))).toEqual(m)
  })

  it('refuses an unknown step or vote type and an empty message', () => {
    const step = new ProtoWriter().message(1, new ProtoWriter().int(1, 5).uint(3, 9).finish()).finish()
    expect(() => decodeGossipMessage(step)).toThrow(/invalid step 9/)
    const vote = new ProtoWriter().message(7, new ProtoWriter().int(1, 5).int(3, 32).finish()).finish()
    expect(() => decodeGossipMessage(vote)).toThrow(/invalid type 32/)
    expect(() => decodeGossipMessage(new Uint8Array(0))).toThrow(/empty/)
  })
})

describe('PeerState', () => {
  const P = SignedMsgType.Prevote
  it('knows a vote by block once it sent or received it, and by validator only from HasVote', () => {
    const s = new PeerState()
    s.setHasVote(5, 0, P, 1, 'aa')
    expect(s.hasVote(5, 0, P, 1, 'aa')).toBe(true)
    // A conflicting vote of the same validator is not known: a double-signer's second vote still travels.
    expect(s.hasVote(5, 0, P, 1, 'bb')).toBe(false)
    s.applyHasVote({ type: 'hasVote', height: 5, round: 0, voteType: P, index: 2 })
    expect(s.hasVote(5, 0, P, 2, 'cc')).toBe(true)
  })

  it('forgets, when asked, what it presumed held only because we sent it, not what the peer told us', () => {
    const s = new PeerState()
    s.setHasVote(5, 0, P, 0, 'aa', true)
    s.setHasVote(5, 0, P, 1, 'bb')
    s.applyHasVote({ type: 'hasVote', height: 5, round: 0, voteType: P, index: 2 })
    // Sent by us, then sent to us by the peer: the peer has told us.
    s.setHasVote(5, 0, P, 3, 'dd', true)
    s.setHasVote(5, 0, P, 3, 'dd')
    s.setHasProposal(5, 0, true)
    s.setHasBlockPart(5, 0, 0, true)
    s.forgetSent({ votes: true, data: false })
    expect([0, 1, 2, 3].map((i) => s.hasVote(5, 0, P, i))).toEqual([false, true, true, true])
    expect([s.hasProposal(5, 0), s.hasBlockPart(5, 0, 0)]).toEqual([true, true])
    s.forgetSent({ votes: false, data: true })
    expect([s.hasProposal(5, 0), s.hasBlockPart(5, 0, 0)]).toEqual([false, false])
  })

  it('forgets what it held of heights the peer has left, and reports its round state', () => {
    const s = new PeerState()
    s.applyNewRoundStep({
      type: 'newRoundStep',
      height: 5,
      round: 1,
      step: RoundStep.Prevote,
      secondsSinceStartTime: 0,
      lastCommitRound: 0,
    })
    s.setHasVote(4, 0, SignedMsgType.Precommit, 0, 'aa')
    s.setHasVote(5, 1, P, 3, 'bb')
    s.setHasProposal(5, 1)
    expect(s.roundState()).toMatchObject({ height: 5, round: 1, step: RoundStep.Prevote, proposal: true, prevotes: [3], lastCommit: [0] })
    s.applyNewRoundStep({
      type: 'newRoundStep',
      height: 7,
      round: 0,
      step: RoundStep.NewHeight,
      secondsSinceStartTime: 0,
      lastCommitRound: 0,
    })
    expect(s.hasVote(4, 0, SignedMsgType.Precommit, 0)).toBe(false)
    expect(s.hasVote(5, 1, P, 3)).toBe(false)
    // Votes of heights already left behind are not recorded at all.
    s.setHasVote(3, 0, P, 0, 'dd')
    expect(s.hasVote(3, 0, P, 0)).toBe(false)
  })

  it('entering a height or round, the peer is taken to lack what it was sent of it before (it may have dropped it)', () => {
    const s = new PeerState()
    const step = (height: number, round: number): void =>
      s.applyNewRoundStep({ type: 'newRoundStep', height, round, step: RoundStep.NewRound, secondsSinceStartTime: 0, lastCommitRound: 0 })
    step(5, 0)
    s.setHasVote(5, 0, P, 0, 'aa')
    s.setHasVote(5, 1, P, 1, 'bb')
    s.setHasVote(6, 0, P, 2, 'cc')
    s.setHasProposal(5, 1)
    s.setHasBlockPart(6, 0, 0)
    // A new step in the same round forgets nothing.
    s.applyNewRoundStep({
      type: 'newRoundStep',
      height: 5,
      round: 0,
      step: RoundStep.Prevote,
      secondsSinceStartTime: 0,
      lastCommitRound: 0,
    })
    expect(s.hasVote(5, 1, P, 1)).toBe(true)
    step(5, 1)
    expect(s.hasVote(5, 0, P, 0)).toBe(true)
    expect(s.hasVote(5, 1, P, 1)).toBe(false)
    expect(s.hasProposal(5, 1)).toBe(false)
    expect(s.hasVote(6, 0, P, 2)).toBe(false)
    expect(s.hasBlockPart(6, 0, 0)).toBe(false)
    s.setHasVote(6, 0, P, 2, 'cc')
    step(6, 0)
    expect(s.hasVote(6, 0, P, 2)).toBe(false)
    expect(s.hasVote(5, 0, P, 0)).toBe(true)
    // NewHeight again at the same height and round: its consensus restarted there (after block sync).
    s.setHasVote(6, 0, P, 2, 'cc')
    s.applyNewRoundStep({
      type: 'newRoundStep',
      height: 6,
      round: 0,
      step: RoundStep.Propose,
      secondsSinceStartTime: 0,
      lastCommitRound: 0,
    })
    expect(s.hasVote(6, 0, P, 2)).toBe(true)
    s.applyNewRoundStep({
      type: 'newRoundStep',
      height: 6,
      round: 0,
      step: RoundStep.NewHeight,
      secondsSinceStartTime: 0,
      lastCommitRound: 0,
    })
    expect(s.hasVote(6, 0, P, 2)).toBe(false)
  })
})
