/**
 * Messages that arrived early — for the next height, or a later round of this one — kept until the state
 * machine gets there. CometBFT drops them and counts on its reactor gossiping them again once the peer
 * state says they are wanted; keeping a bounded number saves that round trip.
 */
import { bytesToUpperHex } from '../primitives/hex.js'
import { messageHeightRound, type ConsensusMessage } from './messages.js'

/** At most this many early messages are kept; the oldest goes first. */
const MAX_FUTURE_MESSAGES = 2000

export interface PeerMessage {
  msg: ConsensusMessage
  peerId: string
}

/** Where the state machine is: its height and round. */
export interface HeightRound {
  readonly height: number
  readonly round: number
}

export class FutureMessages {
  /** By message identity (gossip repeats them), oldest first. */
  private readonly kept = new Map<string, PeerMessage>()

  get size(): number {
    return this.kept.size
  }

  /** Keeps `msg` if it is early for `at` (only up to the next height: further ahead is block sync's business). */
  keep(msg: ConsensusMessage, peerId: string, at: HeightRound): void {
    const { height } = messageHeightRound(msg)
    if (height > at.height + 1 || !isEarly(msg, at)) return
    const key = messageKey(msg)
    if (this.kept.has(key)) return
    if (this.kept.size >= MAX_FUTURE_MESSAGES) this.kept.delete(this.kept.keys().next().value!)
    this.kept.set(key, { msg, peerId })
  }

  /** Takes out the kept messages no longer early at `at`, oldest first; those of past heights are dropped. */
  release(at: HeightRound): PeerMessage[] {
    const out: PeerMessage[] = []
    for (const [key, m] of this.kept) {
      if (isEarly(m.msg, at)) continue
      this.kept.delete(key)
      if (messageHeightRound(m.msg).height >= at.height) out.push(m)
    }
    return out
  }

  clear(): void {
    this.kept.clear()
  }
}

/**
 * Whether the state machine at `at` cannot use `msg` yet: a later height, or a later round of this height
 * — for votes, later than the next round, which it tracks for round skipping.
 */
export function isEarly(msg: ConsensusMessage, at: HeightRound): boolean {
  const { height, round } = messageHeightRound(msg)
  if (height !== at.height) return height > at.height
  return msg.type === 'vote' ? round > at.round + 1 : round > at.round
}

/** Identity of a message for de-duplication (signatures aside: one vote per validator and step). */
function messageKey(msg: ConsensusMessage): string {
  switch (msg.type) {
    case 'proposal':
      return `p/${msg.proposal.height}/${msg.proposal.round}`
    case 'blockPart':
      return `b/${msg.height}/${msg.round}/${msg.part.index}`
    case 'vote':
      return `v/${msg.vote.height}/${msg.vote.round}/${msg.vote.type}/${msg.vote.validatorIndex}/${bytesToUpperHex(msg.vote.blockId.hash)}`
  }
}
