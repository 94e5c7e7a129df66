/**
 * The light client's commit checks (CometBFT `types/validation.go`, v0.38): `verifyCommitLight` counts only
 * COMMIT signatures of the commit's own validator set and stops once +2/3 is reached; `verifyCommitLightTrusting`
 * counts signatures of validators an older, trusted set knows (looked up by address) until more than
 * `trustLevel` of the trusted set's power signed — the skipping verification of a header many heights on.
 */
import { ed25519Verify } from '../crypto/index.js'
import { BlockIDFlag } from '../abci/types.js'
import { bytesToHex, equalBytes } from '../primitives/hex.js'
import { commitVote } from './commit.js'
import { blockIdEquals } from './part-set.js'
import { voteSignBytes } from './sign-bytes.js'
import type { BlockID, Commit } from './types.js'
import { InvalidCommitError, type CommitSigners } from './verify-commit.js'

/** A fraction of voting power, e.g. the default trust level 1/3. */
export interface Fraction {
  numerator: bigint
  denominator: bigint
}

/** Valid signatures, but too few of the trusted validators among them (`ErrNotEnoughVotingPowerSigned`). */
export class InsufficientTrustError extends InvalidCommitError {}

/** CometBFT `light.DefaultTrustLevel`: 1/3, enough that one honest validator signed. */
export const DEFAULT_TRUST_LEVEL: Fraction = { numerator: 1n, denominator: 3n }

/** `VerifyCommitLight`: +2/3 of `set` (the validators of `height`) signed `blockId`. Throws InvalidCommitError. */
export function verifyCommitLight(set: CommitSigners, chainId: string, blockId: BlockID, height: number, commit: Commit): void {
  if (set.size !== commit.signatures.length) {
    throw new InvalidCommitError(`invalid commit -- wrong set size: ${set.size} vs ${commit.signatures.length}`)
  }
  if (height !== commit.height) throw new InvalidCommitError(`invalid commit -- wrong height: ${height} vs ${commit.height}`)
  if (!blockIdEquals(blockId, commit.blockId)) throw new InvalidCommitError('invalid commit -- wrong block ID')
  const needed = (set.totalVotingPower() * 2n) / 3n
  let tallied = 0n
  for (let idx = 0; idx < commit.signatures.length && tallied <= needed; idx++) {
    const sig = commit.signatures[idx]!
    if (sig.blockIdFlag !== BlockIDFlag.Commit) continue
    const val = set.validators[idx]!
    if (!equalBytes(sig.validatorAddress, val.address)) throw new InvalidCommitError(`invalid commit -- wrong validator address (#${idx})`)
    if (!ed25519Verify(val.pubKey, voteSignBytes(chainId, commitVote(commit, idx)), sig.signature)) {
      throw new InvalidCommitError(`wrong signature (#${idx})`)
    }
    tallied += val.votingPower
  }
  if (tallied <= needed) {
    throw new InvalidCommitError(`invalid commit -- insufficient voting power: got ${tallied}, needed more than ${needed}`)
  }
}

/**
 * `VerifyCommitLightTrusting`: validators of the trusted set `trusted` with more than `trustLevel` of its power
 * signed `commit` (of any block id: the caller checks the commit is for the header). Each validator counts once.
 */
export function verifyCommitLightTrusting(trusted: CommitSigners, chainId: string, commit: Commit, trustLevel: Fraction): void {
  if (trustLevel.denominator === 0n) throw new Error('trust level has a zero denominator')
  const needed = (trusted.totalVotingPower() * trustLevel.numerator) / trustLevel.denominator
  const byAddress = new Map(trusted.validators.map((v) => [bytesToHex(v.address), v]))
  const seen = new Set<string>()
  let tallied = 0n
  for (let idx = 0; idx < commit.signatures.length && tallied <= needed; idx++) {
    const sig = commit.signatures[idx]!
    if (sig.blockIdFlag !== BlockIDFlag.Commit) continue
    const key = bytesToHex(sig.validatorAddress)
    const val = byAddress.get(key)
    if (!val) continue
    if (seen.has(key)) throw new InvalidCommitError(`double vote from validator ${key} (#${idx})`)
    seen.add(key)
    if (!ed25519Verify(val.pubKey, voteSignBytes(chainId, commitVote(commit, idx)), sig.signature)) {
      throw new InvalidCommitError(`wrong signature (#${idx})`)
    }
    tallied += val.votingPower
  }
  if (tallied <= needed) {
    throw new InsufficientTrustError(`not enough of the trusted validators signed: got ${tallied}, needed more than ${needed}`)
  }
}
