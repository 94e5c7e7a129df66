/** `ValidatorSet.VerifyCommit` (types/validation.go, v0.38): every present signature checked, COMMIT power > 2/3. */
import { ed25519Verify } from '../crypto/index.js'
import { bytesToUpperHex, equalBytes } from '../primitives/hex.js'
import { commitVote } from './commit.js'
import { blockIdEquals } from './part-set.js'
import { voteSignBytes } from './sign-bytes.js'
import type { BlockID, Commit, Validator } from './types.js'
import { BlockIDFlag } from '../abci/types.js'

/** `MaxSignatureSize` of ed25519 (and of CommitSig.ValidateBasic). */
const MAX_SIGNATURE_SIZE = 64

/** What a commit is checked against (a `ValidatorSet` is one): the validators of its height in canonical order. */
export interface CommitSigners {
  readonly validators: readonly Validator[]
  readonly size: number
  totalVotingPower(): bigint
}

/** A commit that does not prove its block; the message gives CometBFT's reason. */
export class InvalidCommitError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'InvalidCommitError'
  }
}

/**
 * Checks `commit` for block `blockId` at `height` against `set` (the validators of that height): one signature
 * per validator in set order, every non-ABSENT signature valid over its precommit sign bytes, and the power of
 * COMMIT signatures strictly greater than floor(total·2/3). Throws InvalidCommitError.
 */
export function verifyCommit(set: CommitSigners, chainId: string, blockId: BlockID, height: number, commit: Commit): void {
  if (set.size !== commit.signatures.length) {
    throw new InvalidCommitError(`invalid commit -- wrong set size: ${set.size} vs ${commit.signatures.length}`)
  }
  if (height !== commit.height) throw new InvalidCommitError(`invalid commit -- wrong height: ${height} vs ${commit.height}`)
  if (!blockIdEquals(blockId, commit.blockId)) {
    throw new InvalidCommitError(`invalid commit -- wrong block ID: want ${describe(blockId)}, got ${describe(commit.blockId)}`)
  }
  const needed = (set.totalVotingPower() * 2n) / 3n
  let tallied = 0n
  commit.signatures.forEach((sig, idx) => {
    if (sig.blockIdFlag === BlockIDFlag.Absent) return
    const val = set.validators[idx]!
    if (!equalBytes(sig.validatorAddress, val.address)) {
      throw new InvalidCommitError(
        `invalid commit -- wrong validator address (#${idx}): want ${bytesToUpperHex(val.address)}, got ${bytesToUpperHex(sig.validatorAddress)}`,
      )
    }
    if (sig.signature.length === 0 || sig.signature.length > MAX_SIGNATURE_SIZE) {
      throw new InvalidCommitError(`invalid commit -- bad signature size (#${idx}): ${sig.signature.length}`)
    }
    if (!ed25519Verify(val.pubKey, voteSignBytes(chainId, commitVote(commit, idx)), sig.signature)) {
      throw new InvalidCommitError(`wrong signature (#${idx}): ${bytesToUpperHex(sig.signature)}`)
    }
    if (sig.blockIdFlag === BlockIDFlag.Commit) tallied += val.votingPower
  })
  if (tallied <= needed) {
    throw new InvalidCommitError(`invalid commit -- insufficient voting power: got ${tallied}, needed more than ${needed}`)
  }
}

function describe(id: BlockID): string {
  return `${bytesToUpperHex(id.hash)}:${id.partSetHeader.total}:${bytesToUpperHex(id.partSetHeader.hash)}`
}
