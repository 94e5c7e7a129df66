/** Commit helpers (types/block.go `Commit.GetVote`, `CommitSig.BlockID`, the empty commit of the initial height). */
import { GO_ZERO_TIME } from '../utils/time.js'
import { zeroBlockId } from './part-set.js'
import { SignedMsgType, type BlockID, type Commit, type CommitSig, type Vote } from './types.js'
import { BlockIDFlag } from '../abci/types.js'

/** The commit carried by the block at the initial height: height 0, round 0, zero BlockID, no signatures. */
export function emptyCommit(): Commit {
  return { height: 0, round: 0, blockId: zeroBlockId(), signatures: [] }
}

/** The ABSENT signature: empty address and signature, Go zero time. */
export function absentCommitSig(): CommitSig {
  return {
    blockIdFlag: BlockIDFlag.Absent,
    validatorAddress: new Uint8Array(0),
    timestamp: { ...GO_ZERO_TIME },
    signature: new Uint8Array(0),
  }
}

/** `CommitSig.BlockID(commitBlockID)`: the commit's BlockID for COMMIT sigs, the zero BlockID otherwise. */
export function commitSigBlockId(sig: CommitSig, commitBlockId: BlockID): BlockID {
  return sig.blockIdFlag === BlockIDFlag.Commit ? commitBlockId : zeroBlockId()
}

/** `Commit.GetVote(index)`: the precommit a signature was made over (for sign bytes and evidence). */
export function commitVote(commit: Commit, index: number): Vote {
  const sig = commit.signatures[index]
  if (!sig) throw new Error(`commit has no signature #${index}`)
  return {
    type: SignedMsgType.Precommit,
    height: commit.height,
    round: commit.round,
    blockId: commitSigBlockId(sig, commit.blockId),
    timestamp: sig.timestamp,
    validatorAddress: sig.validatorAddress,
    validatorIndex: index,
    signature: sig.signature,
  }
}
