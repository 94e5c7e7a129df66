/**
 * The state machine's round state as the reactor and the engine read it (CometBFT's `GetRoundState`): where
 * it is, with read-only views of its proposal parts and vote sets. Only the state machine changes them; a
 * view is taken when needed and not kept, since the state machine replaces them at each height.
 */
import type { Proposal } from '../comet/types.js'
import type { BlockParts } from './block-parts.js'
import type { ChainState } from './chain-state.js'
import type { RoundStep } from './round-step.js'
import type { VoteSet } from './vote-set.js'

export type ReadonlyVoteSet = Pick<VoteSet, 'height' | 'round' | 'type' | 'size' | 'list' | 'getByIndex' | 'hasTwoThirdsMajority'>

export interface ReadonlyHeightVoteSet {
  prevotes(round: number): ReadonlyVoteSet | undefined
  precommits(round: number): ReadonlyVoteSet | undefined
}

export type ReadonlyBlockParts = Pick<BlockParts, 'header' | 'total' | 'count' | 'hasHeader' | 'getPart' | 'isComplete'>

export interface RoundStateView {
  readonly height: number
  readonly round: number
  readonly step: RoundStep
  readonly proposal: Proposal | undefined
  readonly proposalBlockParts: ReadonlyBlockParts | undefined
  /** Every tracked round's prevotes and precommits of `height`. */
  readonly votes: ReadonlyHeightVoteSet
  /** -1 until a commit round is known. */
  readonly commitRound: number
  /** The precommits that decided the previous height (undefined at the first height). */
  readonly lastCommit: ReadonlyVoteSet | undefined
  /** The committed chain state this height builds on. */
  readonly state: Readonly<ChainState>
}
