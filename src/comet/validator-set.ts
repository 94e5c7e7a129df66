/**
 * Validator sets with CometBFT's proposer selection and change sets (v0.38 `types/validator_set.go`).
 * Int64 arithmetic is saturating, done in bigint.
 */
import { ed25519Address } from '../crypto/index.js'
import { bytesToUpperHex, compareBytes, equalBytes } from '../primitives/hex.js'
import { clipInt64, floorDiv, safeAddClip, safeSubClip, wrapInt64 } from './int64.js'
import { merkleRoot } from './merkle.js'
import { MAX_TOTAL_VOTING_POWER, type BlockID, type Commit, type Validator } from './types.js'
import type { ValidatorUpdate } from '../abci/types.js'
import { encodeSimpleValidator } from './validator-set-codec.js'
import { verifyCommit } from './verify-commit.js'

export { medianTime } from './median-time.js'

/** `PriorityWindowSizeFactor`: priorities are kept within 2·(total voting power) of each other. */
export const PRIORITY_WINDOW_SIZE_FACTOR = 2n

/** ed25519 public key size; the only key type this node's validators use. */
const ED25519_PUBKEY_SIZE = 32

/** `types.ValidatorSet`: validators in canonical order with proposer priorities, and the current proposer. */
export class ValidatorSet {
  /** Validators in canonical order: voting power desc, then address asc. */
  readonly validators: Validator[]
  proposer: Validator | undefined

  /** `NewValidatorSet(list)`: applies the list as a change set, then increments priorities once when non-empty. */
  static fromUpdates(updates: ValidatorUpdate[]): ValidatorSet {
    return ValidatorSet.fromValidators(updates.map((u) => newValidator(u.pubKey, u.power)))
  }

  /** `NewValidatorSet` over validators that already carry their address (priorities are recomputed). */
  static fromValidators(validators: Validator[]): ValidatorSet {
    const set = new ValidatorSet([])
    set.applyChangeSet(validators, false)
    if (validators.length > 0) set.incrementProposerPriority(1)
    return set
  }

  /** Rebuilds a set exactly as stored (validators with priorities, and the proposer address). */
  static restore(validators: Validator[], proposerAddress?: Uint8Array): ValidatorSet {
    const set = new ValidatorSet(validators.map(copyValidator))
    set.validators.sort(byVotingPower)
    set.totalVotingPower()
    if (proposerAddress && proposerAddress.length > 0) set.proposer = set.getByAddress(proposerAddress)?.validator
    return set
  }

  private constructor(validators: Validator[]) {
    this.validators = validators
  }

  get size(): number {
    return this.validators.length
  }

  /** Sum of voting powers; throws when above MaxTotalVotingPower (CometBFT panics). */
  totalVotingPower(): bigint {
    let sum = 0n
    for (const v of this.validators) sum = safeAddClip(sum, v.votingPower)
    if (sum > MAX_TOTAL_VOTING_POWER)
      throw new Error(`total voting power should be guarded to not exceed ${MAX_TOTAL_VOTING_POWER}; got: ${sum}`)
    return sum
  }

  /** Index and validator with this address, or undefined. */
  getByAddress(address: Uint8Array): { index: number; validator: Validator } | undefined {
    const index = this.validators.findIndex((v) => equalBytes(v.address, address))
    return index < 0 ? undefined : { index, validator: this.validators[index]! }
  }

  getByIndex(index: number): Validator | undefined {
    return this.validators[index]
  }

  /** `GetProposer()`: the current proposer (picked without changing priorities when unset); a copy. */
  getProposer(): Validator {
    if (this.validators.length === 0) throw new Error('empty validator set has no proposer')
    this.proposer ??= this.findMostest()
    return copyValidator(this.proposer)
  }

  /** Deep copy (priorities included). */
  copy(): ValidatorSet {
    const c = new ValidatorSet(this.validators.map(copyValidator))
    if (this.proposer) c.proposer = c.getByAddress(this.proposer.address)?.validator ?? copyValidator(this.proposer)
    return c
  }

  /** `IncrementProposerPriority(times)` in place. */
  incrementProposerPriority(times: number): void {
    if (this.validators.length === 0) throw new Error('empty validator set')
    if (times <= 0) throw new Error('cannot call IncrementProposerPriority with non-positive times')
    const total = this.totalVotingPower()
    this.rescalePriorities(PRIORITY_WINDOW_SIZE_FACTOR * total)
    this.shiftByAvgProposerPriority()
    let proposer: Validator | undefined
    for (let i = 0; i < times; i++) {
      for (const v of this.validators) v.proposerPriority = safeAddClip(v.proposerPriority, v.votingPower)
      proposer = this.findMostest()
      proposer.proposerPriority = safeSubClip(proposer.proposerPriority, total)
    }
    this.proposer = proposer
  }

  copyIncrementProposerPriority(times: number): ValidatorSet {
    const c = this.copy()
    c.incrementProposerPriority(times)
    return c
  }

  /**
   * `RescalePriorities(diffMax)`: when max − min priority exceeds diffMax, divides every priority by
   * ceil(diff / diffMax), truncating toward zero as Go does.
   */
  rescalePriorities(diffMax: bigint): void {
    if (this.validators.length === 0) throw new Error('empty validator set')
    if (diffMax <= 0n) return
    let max = -(1n << 63n)
    let min = (1n << 63n) - 1n
    for (const v of this.validators) {
      if (v.proposerPriority > max) max = v.proposerPriority
      if (v.proposerPriority < min) min = v.proposerPriority
    }
    // computeMaxMinPriorityDiff: unchecked int64 subtraction, then absolute value.
    let diff = wrapInt64(max - min)
    if (diff < 0n) diff = wrapInt64(-diff)
    const ratio = wrapInt64(diff + diffMax - 1n) / diffMax
    if (diff > diffMax) for (const v of this.validators) v.proposerPriority /= ratio
  }

  /** `UpdateWithChangeSet`: power 0 removes; throws with CometBFT's reasons on an invalid change set. */
  updateWithChangeSet(changes: ValidatorUpdate[]): void {
    this.applyChangeSet(
      changes.map((u) => newValidator(u.pubKey, u.power)),
      true,
    )
  }

  /** Merkle root over SimpleValidator bytes in set order. */
  hash(): Uint8Array {
    return merkleRoot(this.validators.map((v) => encodeSimpleValidator(v.pubKey, v.votingPower)))
  }

  /**
   * `VerifyCommit`: the commit is for `height`/`blockId`, has one sig per validator, every signature
   * verifies over the vote sign bytes, and COMMIT power is > 2/3 of the total. Throws with the reason.
   */
  verifyCommit(chainId: string, blockId: BlockID, height: number, commit: Commit): void {
    verifyCommit(this, chainId, blockId, height, commit)
  }

  /** `updateWithChangeSet(changes, allowDeletes)`: validates everything first, so a failed change leaves the set as it was. */
  private applyChangeSet(changes: Validator[], allowDeletes: boolean): void {
    if (changes.length === 0) return
    const { updates, deletes } = splitChanges(changes)
    if (!allowDeletes && deletes.length > 0) {
      throw new Error(`cannot process validators with voting power 0: ${deletes.map((d) => bytesToUpperHex(d.address)).join(', ')}`)
    }
    const numNew = updates.filter((u) => !this.getByAddress(u.address)).length
    if (numNew === 0 && this.validators.length === deletes.length) {
      throw new Error('applying the validator changes would result in empty set')
    }
    // verifyRemovals
    let removedPower = 0n
    for (const d of deletes) {
      const existing = this.getByAddress(d.address)
      if (!existing) throw new Error(`failed to find validator ${bytesToUpperHex(d.address)} to remove`)
      removedPower += existing.validator.votingPower
    }
    // verifyUpdates: apply power deltas in ascending order and never go over the maximum.
    const delta = (u: Validator): bigint => u.votingPower - (this.getByAddress(u.address)?.validator.votingPower ?? 0n)
    const deltas = updates.map(delta).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    let tvp = this.totalVotingPower() - removedPower
    for (const d of deltas) {
      tvp += d
      if (tvp > MAX_TOTAL_VOTING_POWER) throw new Error(`total voting power of resulting valset exceeds max ${MAX_TOTAL_VOTING_POWER}`)
    }
    const tvpAfterUpdatesBeforeRemovals = tvp + removedPower
    // computeNewPriorities: a new validator starts at −1.125·U so re-bonding cannot reset a negative priority.
    for (const u of updates) {
      const existing = this.getByAddress(u.address)
      u.proposerPriority = existing
        ? existing.validator.proposerPriority
        : clipInt64(-(tvpAfterUpdatesBeforeRemovals + (tvpAfterUpdatesBeforeRemovals >> 3n)))
    }
    // applyUpdates, applyRemovals: an update replaces the entry with its address.
    const merged = new Map<string, Validator>()
    for (const v of this.validators) merged.set(bytesToUpperHex(v.address), v)
    for (const u of updates) merged.set(bytesToUpperHex(u.address), u)
    for (const d of deletes) merged.delete(bytesToUpperHex(d.address))
    this.validators.splice(0, this.validators.length, ...merged.values())
    const total = this.totalVotingPower()
    this.rescalePriorities(PRIORITY_WINDOW_SIZE_FACTOR * total)
    this.shiftByAvgProposerPriority()
    this.validators.sort(byVotingPower)
  }

  /** Subtracts the average priority (Euclidean division, i.e. floor) from every priority. */
  private shiftByAvgProposerPriority(): void {
    if (this.validators.length === 0) throw new Error('empty validator set')
    let sum = 0n
    for (const v of this.validators) sum += v.proposerPriority
    const avg = floorDiv(sum, BigInt(this.validators.length))
    for (const v of this.validators) v.proposerPriority = safeSubClip(v.proposerPriority, avg)
  }

  /** `getValWithMostPriority`: highest priority, ties → smaller address, scanning in set order. */
  private findMostest(): Validator {
    let res: Validator | undefined
    for (const v of this.validators) res = res ? compareProposerPriority(res, v) : v
    if (!res) throw new Error('empty validator set')
    return res
  }
}

/** `CompareProposerPriority`: the validator with the higher priority; on a tie, the smaller address. */
export function compareProposerPriority(a: Validator, b: Validator): Validator {
  if (a.proposerPriority !== b.proposerPriority) return a.proposerPriority > b.proposerPriority ? a : b
  const c = compareBytes(a.address, b.address)
  if (c === 0) throw new Error('cannot compare identical validators')
  return c < 0 ? a : b
}

/** ed25519 validator address: SHA-256(pubKey)[:20]. */
export function validatorAddress(pubKey: Uint8Array): Uint8Array {
  return ed25519Address(pubKey)
}

/** A validator with zero priority from an ed25519 public key and a power. */
export function newValidator(pubKey: Uint8Array, power: bigint): Validator {
  if (pubKey.length !== ED25519_PUBKEY_SIZE) throw new Error(`invalid ed25519 public key size ${pubKey.length}`)
  return { address: validatorAddress(pubKey), pubKey, votingPower: power, proposerPriority: 0n }
}

function copyValidator(v: Validator): Validator {
  return { address: v.address, pubKey: v.pubKey, votingPower: v.votingPower, proposerPriority: v.proposerPriority }
}

/** `ValidatorsByVotingPower`: power desc, then address asc (the canonical set order). */
function byVotingPower(a: Validator, b: Validator): number {
  if (a.votingPower !== b.votingPower) return a.votingPower > b.votingPower ? -1 : 1
  return compareBytes(a.address, b.address)
}

/** `processChanges`: sorted by address; duplicates, negative and too-large powers are errors. */
function splitChanges(changes: Validator[]): { updates: Validator[]; deletes: Validator[] } {
  const sorted = changes.map(copyValidator).sort((a, b) => compareBytes(a.address, b.address))
  const updates: Validator[] = []
  const deletes: Validator[] = []
  let prev: Uint8Array | undefined
  for (const c of sorted) {
    if (prev && equalBytes(prev, c.address)) throw new Error(`duplicate entry ${bytesToUpperHex(c.address)} in changes`)
    if (c.votingPower < 0n) throw new Error(`voting power can't be negative: ${c.votingPower}`)
    if (c.votingPower > MAX_TOTAL_VOTING_POWER) {
      throw new Error(`to prevent clipping/overflow, voting power can't be higher than ${MAX_TOTAL_VOTING_POWER}, got ${c.votingPower}`)
    }
    if (c.votingPower === 0n) deletes.push(c)
    else updates.push(c)
    prev = c.address
  }
  return { updates, deletes }
}
