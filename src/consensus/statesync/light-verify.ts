/**
 * Light-client verification of headers (CometBFT `light/verifier.go`, v0.38): a header is accepted when a
 * trusted one, still within the trusting period, vouches for it — directly for the next height (its
 * `next_validators_hash` names the new set, which signed +2/3), or by skipping for a later height (more than
 * the trust level of the trusted validators signed it, and +2/3 of its own set did).
 */
import { hashHeader } from '../../comet/hash.js'
import type { Commit, Header } from '../../comet/types.js'
import type { ValidatorSet } from '../../comet/validator-set.js'
import {
  DEFAULT_TRUST_LEVEL,
  InsufficientTrustError,
  verifyCommitLight,
  verifyCommitLightTrusting,
} from '../../comet/verify-commit-light.js'
import { bytesToUpperHex, equalBytes } from '../../primitives/hex.js'
import { addMillis, compareTime, formatRfc3339Nano, type Timestamp } from '../../utils/time.js'

/** A signed header with the validator set of its height (CometBFT `types.LightBlock`). */
export interface LightBlock {
  header: Header
  commit: Commit
  validators: ValidatorSet
}

export interface LightVerifyOptions {
  chainId: string
  /** How long a trusted header stays usable, ms. */
  trustPeriodMs: number
  now: Timestamp
}

/** CometBFT's default `maxClockDrift`: a header up to 10 s in our future is still accepted. */
const MAX_CLOCK_DRIFT_MS = 10_000

/** The light block does not verify (a bad header, commit or validator set): its source is wrong or lying. */
export class LightVerificationError extends Error {
  override name = 'LightVerificationError'
}

/** The trusted header is older than the trusting period: the operator must pick a newer trust height. */
export class TrustExpiredError extends Error {
  override name = 'TrustExpiredError'
}

/** Too few of the trusted validators signed a header far ahead: verify a header in between first (bisection). */
export class NotEnoughTrustError extends Error {
  override name = 'NotEnoughTrustError'
}

/**
 * Checks that `block` is internally consistent: its commit is for its header's hash, its validator set is the
 * header's, and +2/3 of that set signed. Used alone for the trusted block (whose hash the operator gave).
 */
export function verifySelfConsistent(block: LightBlock, chainId: string): void {
  const { header, commit, validators } = block
  const fail = (reason: string): never => {
    throw new LightVerificationError(`light block ${header.height}: ${reason}`)
  }
  if (header.chainId !== chainId) fail(`chain id ${header.chainId}, want ${chainId}`)
  if (commit.height !== header.height) fail(`commit is for height ${commit.height}`)
  const hash = hashHeader(header)
  if (!equalBytes(commit.blockId.hash, hash))
    fail(`commit signs ${bytesToUpperHex(commit.blockId.hash)}, header hashes to ${bytesToUpperHex(hash)}`)
  if (!equalBytes(validators.hash(), header.validatorsHash)) fail('validator set does not match the header validators_hash')
  try {
    verifyCommitLight(validators, chainId, commit.blockId, header.height, commit)
  } catch (err) {
    fail((err as Error).message)
  }
}

/** `light.Verify`: `untrusted` verified from `trusted` (adjacent or skipping); throws one of the errors above. */
export function verifyLightBlock(trusted: LightBlock, untrusted: LightBlock, opts: LightVerifyOptions): void {
  const expiry = addMillis(trusted.header.time, opts.trustPeriodMs)
  if (compareTime(expiry, opts.now) <= 0) {
    throw new TrustExpiredError(
      `the trusted header ${trusted.header.height} expired at ${formatRfc3339Nano(expiry)} (now ${formatRfc3339Nano(opts.now)}): ` +
        'set [statesync] trust_height and trust_hash to a recent header, or raise trust_period',
    )
  }
  const { header } = untrusted
  if (header.height <= trusted.header.height) {
    throw new LightVerificationError(`light block ${header.height} is not after the trusted ${trusted.header.height}`)
  }
  if (compareTime(header.time, trusted.header.time) <= 0) {
    throw new LightVerificationError(`light block ${header.height} is not later in time than the trusted one`)
  }
  if (compareTime(header.time, addMillis(opts.now, MAX_CLOCK_DRIFT_MS)) > 0) {
    throw new LightVerificationError(`light block ${header.height} is from the future (${formatRfc3339Nano(header.time)})`)
  }
  verifySelfConsistent(untrusted, opts.chainId)
  if (header.height === trusted.header.height + 1) {
    if (!equalBytes(header.validatorsHash, trusted.header.nextValidatorsHash)) {
      throw new LightVerificationError(`light block ${header.height}: validators_hash is not the trusted next_validators_hash`)
    }
    return
  }
  try {
    verifyCommitLightTrusting(trusted.validators, opts.chainId, untrusted.commit, DEFAULT_TRUST_LEVEL)
  } catch (err) {
    if (err instanceof InsufficientTrustError) throw new NotEnoughTrustError(`light block ${header.height}: ${err.message}`)
    throw new LightVerificationError(`light block ${header.height}: ${(err as Error).message}`)
  }
}
