/**
 * The engine's typed events, with CometBFT's names, payloads and emission points
 * (CometBFT `types/events.go`, emitted where `consensus/state.go` emits them). The consensus RPC encodes them as
 * `tendermint/event/<Name>` later; payloads here are plain data.
 */
import type { Block, BlockID, DuplicateVoteEvidence, Header, Validator, Vote } from '../comet/types.js'
import type { AbciEvent, TxResult } from '../abci/types.js'
import type { FinalizeBlockResponse } from '../abci/application.js'
import type { RoundStepName } from './round-step.js'

/** `EventDataRoundState`: carried by NewRoundStep, Polka, Lock, Relock, Unlock, ValidBlock, TimeoutPropose, TimeoutWait. */
export interface RoundStateEvent {
  height: number
  round: number
  step: RoundStepName
}

/** `EventDataNewRound`: emitted by enterNewRound. */
export interface NewRoundEvent extends RoundStateEvent {
  proposer: { address: Uint8Array; index: number }
}

/** `EventDataCompleteProposal`: the proposal and all its block parts are in. */
export interface CompleteProposalEvent extends RoundStateEvent {
  blockId: BlockID
}

/** `EventDataNewBlock`. */
export interface NewBlockEvent {
  block: Block
  blockId: BlockID
  response: FinalizeBlockResponse
}

/** `EventDataTx` (`TxResult`): one per tx of a committed block. */
export type TxEvent = TxResult

/** The event map: name → payload, one typed map for every listener. */
export type ConsensusEvents = {
  /** Every step transition (`newStep`). */
  NewRoundStep: RoundStateEvent
  /** enterNewRound, with the round's proposer. */
  NewRound: NewRoundEvent
  /** Proposal + all block parts received. */
  CompleteProposal: CompleteProposalEvent
  /** Every vote successfully added, including late precommits of the previous height. */
  Vote: { vote: Vote }
  /** enterPrecommit with +2/3 prevotes for a single value (paper lines 36/44). */
  Polka: RoundStateEvent
  /** Polka for the proposal block: lock on it and precommit (paper lines 38–40). */
  Lock: RoundStateEvent
  /** Polka for the block we are already locked on. */
  Relock: RoundStateEvent
  /** v0.38 unlock: nil polka while locked, polka for an unknown block, or a later-round polka for another block. */
  Unlock: RoundStateEvent
  /** ValidBlock/ValidRound updated (paper 42–43), or a commit for a block we do not have yet. */
  ValidBlock: RoundStateEvent
  /** Propose timeout fired (paper 57–60). */
  TimeoutPropose: RoundStateEvent
  /** Prevote-wait or precommit-wait timeout fired (paper 61–67). */
  TimeoutWait: RoundStateEvent
  /** After each committed height (`state/execution.go fireEvents`). */
  NewBlock: NewBlockEvent
  NewBlockHeader: { header: Header }
  NewBlockEvents: { height: number; events: AbciEvent[]; numTxs: number }
  /** `EventDataNewEvidence`: once per evidence of a committed block; `height` is the block's. */
  NewEvidence: { height: number; evidence: DuplicateVoteEvidence }
  Tx: TxEvent
  /** When FinalizeBlock returned validator updates (proposer priority 0, as CometBFT's PB2TM conversion). */
  ValidatorSetUpdates: { validatorUpdates: Validator[] }
  /**
   * `EventDataBlockSyncStatus`: the node switched to block sync (`complete` false, at the height it starts
   * from) or back to consensus (`complete` true, at the last block it synced).
   */
  BlockSyncStatus: { complete: boolean; height: number }
  /**
   * `EventDataStateSyncStatus`: state sync began restoring a snapshot (`complete` false, at its height) or
   * the restored state is in place (`complete` true).
   */
  StateSyncStatus: { complete: boolean; height: number }
}

export type ConsensusEventName = keyof ConsensusEvents
