/** The consensus component's public surface (what node/, api/ and p2p/ import). */
export type { Application, FinalizeBlockResponse, CommitInfo, InfoResponse, Misbehavior } from '../abci/application.js'
export type { Mempool } from './mempool.js'
export { EvidencePool, type ConflictingVoteReporter } from './evidence-pool.js'
export { InvalidEvidenceError, newDuplicateVoteEvidence, validateEvidenceBasic, verifyDuplicateVote } from './evidence.js'
export { ConsensusEngine, type ConsensusEngineOptions, type RewindableApp } from './consensus-engine.js'
export { makeGenesisState, genesisFromDoc, updateState, type ChainState, type ConsensusGenesis } from './chain-state.js'
export { StateStore } from './state-store.js'
export { FilePV, DoubleSignError, type PrivValidator, type LastSignState } from './privval.js'
export { Wal, type WalMessage, type TimedWalMessage } from './wal.js'
export { LoopbackTransport, InMemoryNetwork, type ConsensusTransport, type GossipMessageHandler } from './transport.js'
export { encodeConsensusMessage, decodeConsensusMessage, type ConsensusMessage } from './messages.js'
export { testConsensusConfig, validateConsensusConfig, type ConsensusConfig } from './options.js'
export { RoundStep, roundStepName, type RoundStepName } from './round-step.js'
export type {
  ConsensusEvents,
  ConsensusEventName,
  RoundStateEvent,
  NewRoundEvent,
  CompleteProposalEvent,
  NewBlockEvent,
  TxEvent,
} from './events.js'
export type { RoundStateSummary, RoundVotes, PartSetProgress } from './state-machine.js'
