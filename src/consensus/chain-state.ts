/**
 * The replicated state between blocks (CometBFT `state.State`): what the next block must be checked
 * against, and how it changes after a block (`updateState`: validator updates returned at H apply at H+2,
 * header H+1's next validators hash already showing them).
 */
import { hashTxResults } from '../comet/hash.js'
import { zeroBlockId } from '../comet/part-set.js'
import type { BlockID, Header } from '../comet/types.js'
import type { ConsensusParams, ValidatorUpdate } from '../abci/types.js'
import { ValidatorSet } from '../comet/validator-set.js'
import type { GenesisDoc } from '../config/genesis-doc.js'
import { readAppStateBytes } from '../config/genesis-file.js'
import type { Timestamp } from '../utils/time.js'
import type { FinalizeBlockResponse } from '../abci/application.js'

/** CometBFT `types.MaxBlockSizeBytes`: 100 MiB. */
export const MAX_BLOCK_SIZE_BYTES = 104857600

/** The genesis fields consensus needs (genesis.json, already parsed by config/). */
export interface ConsensusGenesis {
  genesisTime: Timestamp
  chainId: string
  /** 1 unless the chain restarts from a later height. */
  initialHeight: number
  consensusParams: ConsensusParams
  /** May be empty when the application provides them in InitChain. */
  validators: ValidatorUpdate[]
  /** genesis.json `app_hash` (usually empty). */
  appHash: Uint8Array
  /**
   * genesis.json `app_state` as JSON text, made when the application reads InitChain's `appStateBytes`:
   * the app_state of a million genesis accounts is over 200 MB, which the EVM application (it takes
   * its genesis from its own options) never reads there, and an initialised chain never needs again.
   */
  appStateBytes: () => Uint8Array
}

export interface ChainState {
  chainId: string
  initialHeight: number
  /** 0 before the first block. */
  lastBlockHeight: number
  lastBlockId: BlockID
  /** Genesis time before the first block. */
  lastBlockTime: Timestamp
  /** Validators of the next block (lastBlockHeight + 1). */
  validators: ValidatorSet
  /** Validators of the block after (lastBlockHeight + 2). */
  nextValidators: ValidatorSet
  /** Validators of the last block (signers of the next block's last commit); empty at genesis. */
  lastValidators: ValidatorSet
  lastHeightValidatorsChanged: number
  consensusParams: ConsensusParams
  lastHeightConsensusParamsChanged: number
  /** TxResultsHash of the last block's results; goes into the next header. */
  lastResultsHash: Uint8Array
  /** App hash after the last block; goes into the next header. */
  appHash: Uint8Array
  /** Block header `version.app`. */
  appVersion: bigint
}

/** The consensus view of a decoded genesis.json (`app_state` passed on as JSON text for InitChain). */
export function genesisFromDoc(doc: GenesisDoc): ConsensusGenesis {
  return {
    genesisTime: doc.genesisTime,
    chainId: doc.chainId,
    initialHeight: doc.initialHeight,
    consensusParams: doc.consensusParams,
    validators: doc.validators.map((v) => ({ pubKey: v.pubKey, power: v.power })),
    appHash: doc.appHash,
    appStateBytes: () => readAppStateBytes(doc),
  }
}

/** `MakeGenesisState`: validators = NewValidatorSet(genesis), next = the same incremented once, last = empty. */
export function makeGenesisState(genesis: ConsensusGenesis): ChainState {
  const validators = genesis.validators.length > 0 ? ValidatorSet.fromUpdates(genesis.validators) : ValidatorSet.restore([])
  const nextValidators =
    genesis.validators.length > 0 ? ValidatorSet.fromUpdates(genesis.validators).copyIncrementProposerPriority(1) : ValidatorSet.restore([])
  const initialHeight = genesis.initialHeight > 0 ? genesis.initialHeight : 1
  return {
    chainId: genesis.chainId,
    initialHeight,
    lastBlockHeight: 0,
    lastBlockId: zeroBlockId(),
    lastBlockTime: genesis.genesisTime,
    validators,
    nextValidators,
    lastValidators: ValidatorSet.restore([]),
    lastHeightValidatorsChanged: initialHeight,
    consensusParams: genesis.consensusParams,
    lastHeightConsensusParamsChanged: initialHeight,
    lastResultsHash: new Uint8Array(0),
    appHash: genesis.appHash,
    appVersion: 0n,
  }
}

/** Deep enough copy: validator sets are mutable objects. */
export function copyState(state: ChainState): ChainState {
  return {
    ...state,
    validators: state.validators.copy(),
    nextValidators: state.nextValidators.copy(),
    lastValidators: state.lastValidators.copy(),
  }
}

/** The height the next block will have. */
export function nextHeight(state: ChainState): number {
  return state.lastBlockHeight === 0 ? state.initialHeight : state.lastBlockHeight + 1
}

/**
 * `updateState` after block `header.height` was executed: n = nextValidators.copy(); apply the returned
 * updates (they take effect at H+2); always IncrementProposerPriority(1); then last ← validators,
 * validators ← old next, next ← n. Params updates apply at H+1 and set the app version.
 */
export function updateState(state: ChainState, blockId: BlockID, header: Header, response: FinalizeBlockResponse): ChainState {
  const n = state.nextValidators.copy()
  let lastHeightValidatorsChanged = state.lastHeightValidatorsChanged
  if (response.validatorUpdates.length > 0) {
    validateValidatorUpdates(response.validatorUpdates, state.consensusParams)
    n.updateWithChangeSet(response.validatorUpdates)
    lastHeightValidatorsChanged = header.height + 1 + 1
  }
  n.incrementProposerPriority(1)

  let consensusParams = state.consensusParams
  let lastHeightConsensusParamsChanged = state.lastHeightConsensusParamsChanged
  let appVersion = state.appVersion
  if (response.consensusParamUpdates) {
    consensusParams = mergeConsensusParams(state.consensusParams, response.consensusParamUpdates)
    validateConsensusParams(consensusParams)
    appVersion = consensusParams.version.app
    lastHeightConsensusParamsChanged = header.height + 1
  }

  return {
    chainId: state.chainId,
    initialHeight: state.initialHeight,
    lastBlockHeight: header.height,
    lastBlockId: blockId,
    lastBlockTime: header.time,
    nextValidators: n,
    validators: state.nextValidators.copy(),
    lastValidators: state.validators.copy(),
    lastHeightValidatorsChanged,
    consensusParams,
    lastHeightConsensusParamsChanged,
    lastResultsHash: hashTxResults(response.txResults),
    appHash: response.appHash,
    appVersion,
  }
}

/** `ConsensusParams.Update`: each section present in the update replaces ours. */
export function mergeConsensusParams(params: ConsensusParams, update: Partial<ConsensusParams>): ConsensusParams {
  return {
    block: update.block ? { ...update.block } : params.block,
    evidence: update.evidence ? { ...update.evidence } : params.evidence,
    validator: update.validator ? { pubKeyTypes: [...update.validator.pubKeyTypes] } : params.validator,
    version: update.version ? { ...update.version } : params.version,
    abci: update.abci ? { ...update.abci } : params.abci,
  }
}

/** `ConsensusParams.ValidateBasic` for the fields this node uses. */
export function validateConsensusParams(params: ConsensusParams): void {
  const { maxBytes, maxGas } = params.block
  if (maxBytes === 0n) throw new Error('block.MaxBytes cannot be 0')
  if (maxBytes < -1n) throw new Error(`block.MaxBytes must be -1 or greater than 0. Got ${maxBytes}`)
  if (maxBytes > BigInt(MAX_BLOCK_SIZE_BYTES)) throw new Error(`block.MaxBytes is too big. ${maxBytes} > ${MAX_BLOCK_SIZE_BYTES}`)
  if (maxGas < -1n) throw new Error(`block.MaxGas must be greater or equal to -1. Got ${maxGas}`)
  if (params.validator.pubKeyTypes.length === 0) throw new Error('len(Validator.PubKeyTypes) must be greater than 0')
}

/** `validateValidatorUpdates`: non-negative power and an allowed key type (ed25519, 32 bytes). */
function validateValidatorUpdates(updates: ValidatorUpdate[], params: ConsensusParams): void {
  for (const u of updates) {
    if (u.power < 0n) throw new Error(`voting power can't be negative ${u.power}`)
    if (u.pubKey.length !== 32 || !params.validator.pubKeyTypes.includes('ed25519')) {
      throw new Error(`validator is using pubkey ed25519, which is unsupported for consensus`)
    }
  }
}
