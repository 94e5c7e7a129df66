/**
 * Builders for the evidence tests: votes signed with a validator key, DuplicateVoteEvidence with real
 * signatures (the byzantine signer is src/consensus/equivocating-validator.ts).
 */
import { blockIdKey } from '../../../src/comet/part-set.js'
import { voteSignBytes } from '../../../src/comet/sign-bytes.js'
import { SignedMsgType, type BlockID, type DuplicateVoteEvidence, type Vote } from '../../../src/comet/types.js'
import { ed25519Sign, randomBytes } from '../../../src/crypto/index.js'
import type { ValidatorKey } from '../../../src/keystore/validator-key.js'
import type { Timestamp } from '../../../src/utils/time.js'

/** A complete BlockID of random hashes. */
export function randomBlockId(): BlockID {
  return { hash: randomBytes(32), partSetHeader: { total: 1, hash: randomBytes(32) } }
}

/** Signs `vote` (its signature is replaced) with `key` over the vote sign bytes of `chainId`. */
export function signVote(key: ValidatorKey, chainId: string, vote: Vote): Vote {
  return { ...vote, signature: ed25519Sign(key.seed, voteSignBytes(chainId, vote)) }
}

export interface EvidenceSpec {
  key: ValidatorKey
  chainId: string
  height: number
  /** Time of the block at `height`. */
  blockTime: Timestamp
  validatorPower: bigint
  totalVotingPower: bigint
  type?: Vote['type']
  validatorIndex?: number
}

/** Two precommits (by default) of `key` for different random blocks, ordered by BlockID key. */
export function makeEvidence(spec: EvidenceSpec): DuplicateVoteEvidence {
  const vote = (): Vote =>
    signVote(spec.key, spec.chainId, {
      type: spec.type ?? SignedMsgType.Precommit,
      height: spec.height,
      round: 0,
      blockId: randomBlockId(),
      timestamp: spec.blockTime,
      validatorAddress: spec.key.address,
      validatorIndex: spec.validatorIndex ?? 0,
      signature: new Uint8Array(0),
    })
  const [voteA, voteB] = [vote(), vote()].sort((a, b) => (blockIdKey(a.blockId) < blockIdKey(b.blockId) ? -1 : 1)) as [Vote, Vote]
  return { voteA, voteB, totalVotingPower: spec.totalVotingPower, validatorPower: spec.validatorPower, timestamp: spec.blockTime }
}
