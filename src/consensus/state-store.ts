/**
 * Persists the consensus state (CometBFT `state/store.go`) under `Prefix.consensusState`: the head state,
 * the validator set and consensus params of each height (for the `validators` and `consensus_params`
 * routes and to verify commits of old blocks) and the FinalizeBlock response of each height (for
 * `block_results`). Saves are staged into the caller's stage (the engine's); the caller writes it.
 */
import type { Validator } from '../comet/types.js'
import type { ConsensusParams, ExecTxResult } from '../abci/types.js'
import { ValidatorSet } from '../comet/validator-set.js'
import type { Database } from '../db/database.js'
import type { WriteStage } from '../db/write-stage.js'
import { Prefix, prefixedKey } from '../db/prefixes.js'
import type { FinalizeBlockResponse } from '../abci/application.js'
import { nextHeight, type ChainState } from './chain-state.js'
import { decodeTaggedJson, encodeTaggedJson } from './tagged-json.js'
import { EventLoopYield } from '../utils/event-loop-yield.js'

/** Sub-keys under Prefix.consensusState. */
const Key = {
  state: 0x73, // 's'
  validators: 0x76, // 'v' ‖ height
  params: 0x70, // 'p' ‖ height
  response: 0x72, // 'r' ‖ height: the response without its tx results
  txResult: 0x74, // 't' ‖ height ‖ u32 index: one ExecTxResult, so one tx reads alone
} as const

/** Tx results encoded between two clock reads (a power of 2): about 25 µs each, so under a millisecond. */
const RESULTS_PER_CLOCK_READ = 32

/** What the `response` key holds; `txResults` only in homes written before results were stored per tx. */
type StoredResponse = Omit<FinalizeBlockResponse, 'txResults'> & { txResults?: ExecTxResult[]; txCount?: number }

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
  save(stage: WriteStage, state: ChainState): void {
    const stored: StoredState = {
      ...state,
      validators: storedSet(state.validators),
      nextValidators: storedSet(state.nextValidators),
      lastValidators: storedSet(state.lastValidators),
    }
    stage.put(stateKey(), encodeTaggedJson(stored))
    const h = nextHeight(state)
    stage.put(heightKey(Key.validators, h), encodeTaggedJson(storedSet(state.validators)))
    stage.put(heightKey(Key.validators, h + 1), encodeTaggedJson(storedSet(state.nextValidators)))
    stage.put(heightKey(Key.params, h), encodeTaggedJson(state.consensusParams))
  }

  /**
   * Stages the state a state sync restored (CometBFT `Bootstrap`): as `save`, plus the validators of the
   * restored height itself (the signers of its commit, which the next block carries).
   */
  bootstrap(stage: WriteStage, state: ChainState): void {
    this.save(stage, state)
    if (state.lastValidators.size > 0)
      stage.put(heightKey(Key.validators, state.lastBlockHeight), encodeTaggedJson(storedSet(state.lastValidators)))
  }

  /**
   * Stages a dev chain's revert (docs/dev-chain.md, "Snapshots"): the results, validator sets and params
   * of the heights after `state`'s up to `top` removed, and `state` (the chain state at its height, as it
   * was then) the latest again.
   */
  async stageRollback(stage: WriteStage, state: ChainState, top: number): Promise<void> {
    const height = state.lastBlockHeight
    for (let h = height + 1; h <= top; h++) {
      const response = await this.loadFinalizeBlockResponse(h)
      stage.del(heightKey(Key.response, h))
      for (let index = 0; index < (response?.txResults.length ?? 0); index++) stage.del(txResultKey(h, index))
      stage.del(heightKey(Key.validators, h + 2))
      stage.del(heightKey(Key.params, h + 1))
    }
    this.save(stage, state)
  }

  /**
   * Stages the removal of height `height`'s FinalizeBlock response, tx results, validator set and
   * consensus params (CometBFT `PruneStates` / `PruneABCIResponses`, one height of it).
   */
  async stagePrune(stage: WriteStage, height: number): Promise<void> {
    const bytes = await this.db.get(heightKey(Key.response, height))
    const txCount = bytes ? (decodeTaggedJson<StoredResponse>(bytes).txCount ?? 0) : 0
    stage.del(heightKey(Key.response, height))
    for (let index = 0; index < txCount; index++) stage.del(txResultKey(height, index))
    stage.del(heightKey(Key.validators, height))
    stage.del(heightKey(Key.params, height))
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

  /**
   * Stages a height's FinalizeBlock response: the tx results one key each, the rest under one key. The
   * results of a block of thousands of txs take tens of milliseconds to encode, so the event loop is
   * handed over between two of them every few milliseconds (the caller stages into a stage no read
   * looks at meanwhile).
   */
  async saveFinalizeBlockResponse(stage: WriteStage, height: number, response: FinalizeBlockResponse): Promise<void> {
    const { txResults, ...rest } = response
    stage.put(heightKey(Key.response, height), encodeTaggedJson({ ...rest, txCount: txResults.length } satisfies StoredResponse))
    const pace = new EventLoopYield(RESULTS_PER_CLOCK_READ)
    for (let index = 0; index < txResults.length; index++) {
      stage.put(txResultKey(height, index), encodeTaggedJson(txResults[index]!))
      const turn = pace.poll()
      if (turn !== undefined) await turn
    }
  }

  async loadFinalizeBlockResponse(height: number): Promise<FinalizeBlockResponse | undefined> {
    const bytes = await this.db.get(heightKey(Key.response, height))
    if (!bytes) return undefined
    const { txCount, txResults, ...rest } = decodeTaggedJson<StoredResponse>(bytes)
    if (txResults) return { ...rest, txResults }
    const keys = Array.from({ length: txCount ?? 0 }, (_, index) => txResultKey(height, index))
    const values = await this.db.getMany(keys)
    return { ...rest, txResults: values.map((v, index) => (v ? decodeTaggedJson<ExecTxResult>(v) : missingResult(height, index))) }
  }

  /** The FinalizeBlock events of a height, without reading its tx results (block_search). */
  async loadFinalizeBlockEvents(height: number): Promise<FinalizeBlockResponse['events'] | undefined> {
    const bytes = await this.db.get(heightKey(Key.response, height))
    return bytes ? decodeTaggedJson<StoredResponse>(bytes).events : undefined
  }

  /** The result of the `index`-th tx of block `height`, read alone (undefined when not stored). */
  async loadTxResult(height: number, index: number): Promise<ExecTxResult | undefined> {
    const bytes = await this.db.get(txResultKey(height, index))
    if (bytes) return decodeTaggedJson<ExecTxResult>(bytes)
    // A home written before per-tx results: the whole response holds them.
    const whole = await this.db.get(heightKey(Key.response, height))
    return whole ? decodeTaggedJson<StoredResponse>(whole).txResults?.[index] : undefined
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

function txResultKey(height: number, index: number): Uint8Array {
  const suffix = new Uint8Array(13)
  suffix[0] = Key.txResult
  const view = new DataView(suffix.buffer)
  view.setBigUint64(1, BigInt(height))
  view.setUint32(9, index)
  return prefixedKey(Prefix.consensusState, suffix)
}

function missingResult(height: number, index: number): never {
  throw new Error(`state store: tx result ${index} of height ${height} is missing`)
}
