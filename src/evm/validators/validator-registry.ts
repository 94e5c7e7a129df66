/**
 * The application's copy of the consensus validator set, for the validator-admin system contract
 * (validator-admin.ts): the genesis validators (InitChain) with every committed block's updates
 * applied in order, and the updates recorded by the block being executed.
 *
 * Why this set is the right one to validate against: CometBFT applies the updates returned by block
 * H to `NextValidators` as they stand after block H-1's updates (`state.updateState`), i.e. to the
 * genesis set with every earlier block's updates applied, which is exactly `committed` here. Checking
 * a block's change set with `ValidatorSet.updateWithChangeSet` on that set therefore gives the
 * engine's own verdict, so an update the engine would refuse (and halt on) is reverted in the EVM
 * instead.
 *
 * Persistence: the committed list is staged under `meta 'evm/validators'` into the application's stage
 * (at InitChain and in every block that changes it), written by its Commit with the head, so a restart
 * reloads it with the head.
 */
import { RLP } from '@ethereumjs/rlp'
import type { Database } from '../../db/database.js'
import type { WriteStage } from '../../db/write-stage.js'
import { metaKey } from '../../db/prefixes.js'
import { bytesToBigint, bytesToUpperHex, bigintToBytes } from '../../primitives/hex.js'
import type { ValidatorUpdate } from '../../abci/types.js'
import { ValidatorSet, validatorAddress } from '../../comet/validator-set.js'

const VALIDATORS_KEY = metaKey('evm/validators')

/** Why a proposed validator update cannot be applied, or undefined when it can. */
export type UpdateVerdict = string | undefined

/** What the validator-admin precompile needs of the registry. */
export interface ValidatorUpdateSink {
  /** Checks `update` together with the block's earlier updates; records it when valid. */
  propose(update: ValidatorUpdate): UpdateVerdict
}

export class ValidatorRegistry implements ValidatorUpdateSink {
  /** The set after every committed block (upper-hex address → validator); undefined until known. */
  private committed: Map<string, ValidatorUpdate> | undefined
  /** Updates recorded by the executing block, by upper-hex address; the last one per key wins. */
  private block = new Map<string, ValidatorUpdate>()
  /** The committed set once the executed block commits (set by finishBlock when it changes). */
  private pendingCommitted: Map<string, ValidatorUpdate> | undefined

  constructor(private readonly db: Database) {}

  /** Loads the committed set saved with the head (none before InitChain or on an older database). */
  async load(): Promise<void> {
    const raw = await this.db.get(VALIDATORS_KEY)
    this.committed = raw ? decodeValidatorList(raw) : undefined
  }

  /** Sets the genesis validators and stages them with InitChain's writes. */
  initGenesis(stage: WriteStage, validators: readonly ValidatorUpdate[]): void {
    this.committed = new Map(validators.filter((v) => v.power > 0n).map((v) => [bytesToUpperHex(validatorAddress(v.pubKey)), v]))
    stage.put(VALIDATORS_KEY, encodeValidatorList(this.committed))
  }

  /**
   * A dev chain's revert: stages `validators` (consensus's set at the height it goes back to) as the
   * committed set; `load` reads it once the stage is written.
   */
  stageRollback(stage: WriteStage, validators: readonly ValidatorUpdate[]): void {
    stageValidatorList(stage, validators)
  }

  /** A sink that only checks against the committed set (eth_call / estimateGas copies record nothing). */
  checkOnly(): ValidatorUpdateSink {
    return { propose: (update) => checkChangeSet(this.committed, [update]) }
  }

  /** Forgets the updates of a block being (re-)executed. */
  beginBlock(): void {
    this.block.clear()
  }

  /** The committed set as a list (canonical order not guaranteed). */
  committedValidators(): ValidatorUpdate[] | undefined {
    return this.committed ? [...this.committed.values()] : undefined
  }

  propose(update: ValidatorUpdate): UpdateVerdict {
    const verdict = checkChangeSet(this.committed, [...this.block.values(), update])
    if (verdict !== undefined) return verdict
    const key = bytesToUpperHex(validatorAddress(update.pubKey))
    this.block.delete(key) // keep insertion order = order of the last update per key
    this.block.set(key, update)
    return undefined
  }

  /**
   * The block's change set (last update per key, in the order of those last updates), dropping
   * entries that change nothing, and stages the new committed set when it changed. The caller passes
   * only updates of transactions that succeeded, so a reverted call never reaches consensus.
   */
  finishBlock(stage: WriteStage, updates: readonly ValidatorUpdate[]): ValidatorUpdate[] {
    const byKey = new Map<string, ValidatorUpdate>()
    for (const u of updates) {
      const key = bytesToUpperHex(validatorAddress(u.pubKey))
      byKey.delete(key)
      byKey.set(key, u)
    }
    const committed = this.committed
    if (!committed || byKey.size === 0) return []
    const changes = [...byKey.entries()].filter(([key, u]) => (committed.get(key)?.power ?? 0n) !== u.power).map(([, u]) => u)
    // Never hand consensus a change set it would refuse (it would halt): same check as the precompile.
    if (changes.length === 0 || checkChangeSet(committed, changes) !== undefined) return []
    const next = new Map(committed)
    for (const u of changes) {
      const key = bytesToUpperHex(validatorAddress(u.pubKey))
      if (u.power === 0n) next.delete(key)
      else next.set(key, u)
    }
    this.pendingCommitted = next
    stage.put(VALIDATORS_KEY, encodeValidatorList(next))
    return changes
  }

  /** The executed block committed: its updates become part of the committed set. */
  commitBlock(): void {
    if (this.pendingCommitted) this.committed = this.pendingCommitted
    this.pendingCommitted = undefined
    this.block.clear()
  }

  /** The executed block was abandoned (re-decided or failed). */
  discardBlock(): void {
    this.pendingCommitted = undefined
    this.block.clear()
  }
}

/**
 * Whether `changes` (in order, the last one per key counting) can be applied to `committed` by
 * CometBFT's UpdateWithChangeSet; the reason when not. A validator added earlier in the same block
 * and then removed cancels out (it was never in the set).
 */
export function checkChangeSet(
  committed: ReadonlyMap<string, ValidatorUpdate> | undefined,
  changes: readonly ValidatorUpdate[],
): UpdateVerdict {
  if (!committed) return 'validator set unknown to the application'
  const byKey = new Map<string, ValidatorUpdate>()
  for (const u of changes) {
    const key = bytesToUpperHex(validatorAddress(u.pubKey))
    if (u.power === 0n && !committed.has(key) && byKey.has(key)) byKey.delete(key)
    else byKey.set(key, u)
  }
  const effective = [...byKey.entries()].filter(([key, u]) => (committed.get(key)?.power ?? 0n) !== u.power || u.power === 0n)
  for (const [key, u] of effective) {
    if (u.power === 0n && !committed.has(key)) return `validator ${key} is not in the set`
  }
  try {
    ValidatorSet.fromUpdates([...committed.values()]).updateWithChangeSet(effective.map(([, u]) => u))
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err)
    return /empty set/.test(msg) ? 'cannot remove the last validator: the set would be empty' : msg
  }
  return undefined
}

/** Stages `validators` as the committed set (a revert, or a state-sync restore); `load` reads it once written. */
export function stageValidatorList(stage: WriteStage, validators: readonly ValidatorUpdate[]): void {
  const set = new Map(validators.filter((v) => v.power > 0n).map((v) => [bytesToUpperHex(validatorAddress(v.pubKey)), v]))
  stage.put(VALIDATORS_KEY, encodeValidatorList(set))
}

function encodeValidatorList(set: ReadonlyMap<string, ValidatorUpdate>): Uint8Array {
  return RLP.encode([...set.values()].map((v) => [v.pubKey, bigintToBytes(v.power)]))
}

function decodeValidatorList(raw: Uint8Array): Map<string, ValidatorUpdate> {
  const list = RLP.decode(raw) as unknown as [Uint8Array, Uint8Array][]
  if (!Array.isArray(list)) throw new Error('malformed validator list record')
  return new Map(
    list.map(([pubKey, power]) => {
      if (!(pubKey instanceof Uint8Array) || !(power instanceof Uint8Array)) throw new Error('malformed validator list record')
      return [bytesToUpperHex(validatorAddress(pubKey)), { pubKey, power: bytesToBigint(power) }]
    }),
  )
}
