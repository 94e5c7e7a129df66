/**
 * Persists the consensus state (CometBFT `state/store.go`) under `Prefix.consensusState`: the head state,
 * the validator set and consensus params of each height (for the `validators` and `consensus_params`
 * routes and to verify commits of old blocks) and the FinalizeBlock response of each height (for
 * `block_results`). Saves are staged into the height's atomic batch; the caller commits it.
 */
import type { ConsensusParams, Validator } from '../chain/comet/types.js'
import { ValidatorSet } from '../chain/comet/validator-set.js'
import type { Database } from '../db/database.js'
import { Prefix, prefixedKey } from '../db/prefixes.js'
import type { FinalizeBlockResponse } from './application.js'
import { nextHeight, type ChainState } from './chain-state.js'
import { decodeTaggedJson, encodeTaggedJson } from './tagged-json.js'

/** Sub-keys under Prefix.consensusState. */
const Key = {
  state: 0x73, // 's'
  validators: 0x76, // 'v' ‖ height
  params: 0x70, // 'p' ‖ height
  response: 0x72, // 'r' ‖ height
} as const

interface StoredValidatorSet {
  validators: Validator[]
  proposer?: Uint8Array
}

type StoredState = Omit<ChainState, 'validators' | 'nextValidators' | 'lastValidators'> & {
  validators: StoredValidatorSet
  nextValidators: StoredValidatorSet
  lastValidators: StoredValidatorSet
}

export class StateStore {
  constructor(private readonly db: Database) {}

  /** The head state, or undefined before genesis was saved. */
  async load(): Promise<ChainState | undefined> {
    const bytes = await this.db.get(stateKey())
    if (!bytes) return undefined
    const s = decodeTaggedJson<StoredState>(bytes)
    return {
      ...s,
      validators: restoreSet(s.validators),
      nextValidators: restoreSet(s.nextValidators),
      lastValidators: restoreSet(s.lastValidators),
    }
  }

  /**
   * Stages the head state, the validators of the next two heights (validators at H+1, next validators at
   * H+2, as CometBFT's `saveValidatorsInfo`) and the params of H+1.
   */
  stageSave(state: ChainState): void {
    const stored: StoredState = {
      ...state,
      validators: storedSet(state.validators),
      nextValidators: storedSet(state.nextValidators),
      lastValidators: storedSet(state.lastValidators),
    }
    this.db.stagePut(stateKey(), encodeTaggedJson(stored))
    const h = nextHeight(state)
    this.db.stagePut(heightKey(Key.validators, h), encodeTaggedJson(storedSet(state.validators)))
    this.db.stagePut(heightKey(Key.validators, h + 1), encodeTaggedJson(storedSet(state.nextValidators)))
    this.db.stagePut(heightKey(Key.params, h), encodeTaggedJson(state.consensusParams))
  }

  /** The validator set that signs block `height` (with its proposer priorities at the start of the height). */
  async loadValidators(height: number): Promise<ValidatorSet | undefined> {
    const bytes = await this.db.get(heightKey(Key.validators, height))
    return bytes ? restoreSet(decodeTaggedJson<StoredValidatorSet>(bytes)) : undefined
  }

  async loadConsensusParams(height: number): Promise<ConsensusParams | undefined> {
    const bytes = await this.db.get(heightKey(Key.params, height))
    return bytes ? decodeTaggedJson<ConsensusParams>(bytes) : undefined
  }

  stageFinalizeBlockResponse(height: number, response: FinalizeBlockResponse): void {
    this.db.stagePut(heightKey(Key.response, height), encodeTaggedJson(response))
  }

  async loadFinalizeBlockResponse(height: number): Promise<FinalizeBlockResponse | undefined> {
    const bytes = await this.db.get(heightKey(Key.response, height))
    return bytes ? decodeTaggedJson<FinalizeBlockResponse>(bytes) : undefined
  }
}

function storedSet(set: ValidatorSet): StoredValidatorSet {
  return set.proposer ? { validators: set.validators, proposer: set.proposer.address } : { validators: set.validators }
}

function restoreSet(s: StoredValidatorSet): ValidatorSet {
  return ValidatorSet.restore(s.validators, s.proposer)
}

function stateKey(): Uint8Array {
  return prefixedKey(Prefix.consensusState, new Uint8Array([Key.state]))
}

function heightKey(tag: number, height: number): Uint8Array {
  const suffix = new Uint8Array(9)
  suffix[0] = tag
  new DataView(suffix.buffer).setBigUint64(1, BigInt(height))
  return prefixedKey(Prefix.consensusState, suffix)
}
