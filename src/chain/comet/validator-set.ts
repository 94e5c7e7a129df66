/**
 * Validator sets with CometBFT's proposer selection and change sets (types/validator_set.go;
 * shared/reference/cometbft-hashing.md §5). Int64 arithmetic is saturating, done in bigint.
 */
import type { Commit, Validator, ValidatorUpdate } from './types.js'

export class ValidatorSet {
  /** Validators in canonical order: voting power desc, then address asc. */
  readonly validators: Validator[]
  proposer: Validator | undefined

  /** `NewValidatorSet(list)`: applies the list as a change set, then increments priorities once when non-empty. */
  static fromUpdates(updates: ValidatorUpdate[]): ValidatorSet {
    throw new Error('not implemented')
  }

  /** Rebuilds a set exactly as stored (validators with priorities, and the proposer address). */
  static restore(validators: Validator[], proposerAddress?: Uint8Array): ValidatorSet {
    throw new Error('not implemented')
  }

  private constructor(validators: Validator[]) {
    this.validators = validators
  }

  get size(): number {
    return this.validators.length
  }

  totalVotingPower(): bigint {
    throw new Error('not implemented')
  }

  /** Index and validator with this address, or undefined. */
  getByAddress(address: Uint8Array): { index: number; validator: Validator } | undefined {
    throw new Error('not implemented')
  }

  getByIndex(index: number): Validator | undefined {
    return this.validators[index]
  }

  getProposer(): Validator {
    throw new Error('not implemented')
  }

  /** Deep copy (priorities included). */
  copy(): ValidatorSet {
    throw new Error('not implemented')
  }

  /** `IncrementProposerPriority(times)` in place. */
  incrementProposerPriority(times: number): void {
    throw new Error('not implemented')
  }

  copyIncrementProposerPriority(times: number): ValidatorSet {
    const c = this.copy()
    c.incrementProposerPriority(times)
    return c
  }

  /** `UpdateWithChangeSet`: power 0 removes; throws with CometBFT's reasons on an invalid change set. */
  updateWithChangeSet(changes: ValidatorUpdate[]): void {
    throw new Error('not implemented')
  }

  /** Merkle root over SimpleValidator bytes in set order. */
  hash(): Uint8Array {
    throw new Error('not implemented')
  }

  /**
   * `VerifyCommit`: the commit is for `height`/`blockId`, has one sig per validator, every signature
   * verifies over the vote sign bytes, and COMMIT power is > 2/3 of the total. Throws with the reason.
   */
  verifyCommit(chainId: string, blockId: import('./types.js').BlockID, height: number, commit: Commit): void {
    throw new Error('not implemented')
  }
}

/** ed25519 validator address: SHA-256(pubKey)[:20]. */
export function validatorAddress(pubKey: Uint8Array): Uint8Array {
  throw new Error('not implemented')
}
