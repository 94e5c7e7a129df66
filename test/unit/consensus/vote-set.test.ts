import { describe, expect, it } from 'vitest'
import { zeroBlockId } from '../../../src/comet/part-set.js'
import { voteSignBytes } from '../../../src/comet/sign-bytes.js'
import { SignedMsgType, type BlockID, type Vote } from '../../../src/comet/types.js'
import { BlockIDFlag } from '../../../src/abci/types.js'
import { ValidatorSet } from '../../../src/comet/validator-set.js'
import { HeightVoteSet, UnwantedRoundError } from '../../../src/consensus/height-vote-set.js'
import { ConflictingVoteError, VoteError, VoteSet, voteSetFromCommit } from '../../../src/consensus/vote-set.js'
import { ed25519Sign, sha256 } from '../../../src/crypto/index.js'
import type { ValidatorKey } from '../../../src/keystore/validator-key.js'
import { utf8ToBytes } from '../../../src/primitives/hex.js'
import { now } from '../../../src/utils/time.js'
import { CHAIN_ID, makeKeys } from './helpers.js'

const keys = makeKeys(4)
const set = ValidatorSet.fromUpdates(keys.map((k) => ({ pubKey: k.publicKey, power: 10n })))
const keyAt = (i: number): ValidatorKey => keys.find((k) => Buffer.from(k.address).equals(Buffer.from(set.getByIndex(i)!.address)))!

function blockId(tag: string): BlockID {
  return { hash: sha256(utf8ToBytes(tag)), partSetHeader: { total: 1, hash: sha256(utf8ToBytes(tag + '/parts')) } }
}

function vote(i: number, type: 1 | 2, id: BlockID, round = 0, height = 5): Vote {
  const key = keyAt(i)
  const v: Vote = {
    type,
    height,
    round,
    blockId: id,
    timestamp: now(),
    validatorAddress: key.address,
    validatorIndex: i,
    signature: new Uint8Array(0),
  }
  return { ...v, signature: ed25519Sign(key.seed, voteSignBytes(CHAIN_ID, v)) }
}

describe('VoteSet', () => {
  it('detects a +2/3 majority for a block only when strictly more than 2/3 of the power voted for it', () => {
    const vs = new VoteSet(CHAIN_ID, 5, 0, SignedMsgType.Prevote, set)
    const b = blockId('b')
    expect(vs.addVote(vote(0, 1, b))).toBe(true)
    expect(vs.addVote(vote(1, 1, b))).toBe(true)
    // 20 of 40: not yet
    expect(vs.hasTwoThirdsMajority()).toBe(false)
    expect(vs.hasTwoThirdsAny()).toBe(false)
    expect(vs.addVote(vote(2, 1, b))).toBe(true)
    expect(vs.twoThirdsMajority()).toEqual(b)
    expect(vs.hasAll()).toBe(false)
    expect(vs.addVote(vote(3, 1, b))).toBe(true)
    expect(vs.hasAll()).toBe(true)
  })

  it('sees a nil majority, and +2/3 any without a majority', () => {
    const nil = new VoteSet(CHAIN_ID, 5, 0, SignedMsgType.Prevote, set)
    for (const i of [0, 1, 2]) nil.addVote(vote(i, 1, zeroBlockId()))
    expect(nil.twoThirdsMajority()).toEqual(zeroBlockId())

    const split = new VoteSet(CHAIN_ID, 5, 0, SignedMsgType.Prevote, set)
    split.addVote(vote(0, 1, blockId('a')))
    split.addVote(vote(1, 1, blockId('b')))
    split.addVote(vote(2, 1, zeroBlockId()))
    expect(split.hasTwoThirdsAny()).toBe(true)
    expect(split.hasTwoThirdsMajority()).toBe(false)
  })

  it('ignores duplicates, reports conflicting votes and rejects bad signatures, steps and validators', () => {
    const vs = new VoteSet(CHAIN_ID, 5, 0, SignedMsgType.Prevote, set)
    const v = vote(0, 1, blockId('a'))
    expect(vs.addVote(v)).toBe(true)
    expect(vs.addVote(v)).toBe(false)
    const conflicting = vote(0, 1, blockId('b'))
    expect(() => vs.addVote(conflicting)).toThrow(ConflictingVoteError)
    try {
      vs.addVote(conflicting)
    } catch (err) {
      expect((err as ConflictingVoteError).voteA).toEqual(v)
      expect((err as ConflictingVoteError).voteB).toEqual(conflicting)
    }
    const bad = { ...vote(1, 1, blockId('a')), signature: new Uint8Array(64).fill(7) }
    expect(() => vs.addVote(bad)).toThrow(/invalid signature/)
    expect(() => vs.addVote(vote(1, 1, blockId('a'), 1))).toThrow(/unexpected step/)
    expect(() => vs.addVote({ ...vote(1, 1, blockId('a')), validatorIndex: 9 })).toThrow(VoteError)
    expect(() => vs.addVote({ ...vote(1, 1, blockId('a')), validatorAddress: keyAt(2).address })).toThrow(/does not match/)
    expect(vs.sum).toBe(10n)
  })

  it('makes a commit with COMMIT, NIL and ABSENT signatures in validator order', () => {
    const vs = new VoteSet(CHAIN_ID, 5, 0, SignedMsgType.Precommit, set)
    const b = blockId('b')
    vs.addVote(vote(0, 2, b))
    vs.addVote(vote(1, 2, b))
    vs.addVote(vote(2, 2, zeroBlockId()))
    expect(() => vs.makeCommit()).toThrow()
    vs.addVote(vote(3, 2, b))
    const commit = vs.makeCommit()
    expect(commit.height).toBe(5)
    expect(commit.blockId).toEqual(b)
    expect(commit.signatures.map((s) => s.blockIdFlag)).toEqual([
      BlockIDFlag.Commit,
      BlockIDFlag.Commit,
      BlockIDFlag.Nil,
      BlockIDFlag.Commit,
    ])
    expect(() => set.verifyCommit(CHAIN_ID, b, 5, commit)).not.toThrow()
    // Rebuilding the vote set from the commit gives the same majority.
    expect(voteSetFromCommit(CHAIN_ID, commit, set).twoThirdsMajority()).toEqual(b)

    const partial = new VoteSet(CHAIN_ID, 5, 0, SignedMsgType.Precommit, set)
    for (const i of [0, 1, 3]) partial.addVote(vote(i, 2, b))
    expect(partial.makeCommit().signatures[2]!.blockIdFlag).toBe(BlockIDFlag.Absent)
  })

  it('weights by voting power', () => {
    const weighted = ValidatorSet.fromUpdates(keys.map((k, i) => ({ pubKey: k.publicKey, power: i === 0 ? 100n : 1n })))
    const big = weighted.getByIndex(0)!
    const key = keys.find((k) => Buffer.from(k.address).equals(Buffer.from(big.address)))!
    const vs = new VoteSet(CHAIN_ID, 5, 0, SignedMsgType.Prevote, weighted)
    const v: Vote = {
      type: 1,
      height: 5,
      round: 0,
      blockId: blockId('x'),
      timestamp: now(),
      validatorAddress: key.address,
      validatorIndex: 0,
      signature: new Uint8Array(0),
    }
    vs.addVote({ ...v, signature: ed25519Sign(key.seed, voteSignBytes(CHAIN_ID, v)) })
    expect(vs.twoThirdsMajority()).toEqual(blockId('x'))
  })
})

describe('HeightVoteSet', () => {
  it('tracks round+1 and allows each peer two catch-up rounds', () => {
    const hvs = new HeightVoteSet(CHAIN_ID, 5, set)
    hvs.setRound(1)
    expect(hvs.addVote(vote(0, 1, blockId('a'), 1), 'p1')).toBe(true)
    expect(hvs.addVote(vote(0, 1, blockId('a'), 5), 'p1')).toBe(true)
    expect(hvs.addVote(vote(0, 1, blockId('a'), 6), 'p1')).toBe(true)
    expect(() => hvs.addVote(vote(0, 1, blockId('a'), 7), 'p1')).toThrow(UnwantedRoundError)
    expect(hvs.addVote(vote(0, 1, blockId('a'), 7), 'p2')).toBe(true)
  })

  it('reports the last POL round', () => {
    const hvs = new HeightVoteSet(CHAIN_ID, 5, set)
    hvs.setRound(3)
    expect(hvs.polInfo().polRound).toBe(-1)
    for (const i of [0, 1, 2]) hvs.addVote(vote(i, 1, blockId('a'), 1), '')
    for (const i of [0, 1, 2]) hvs.addVote(vote(i, 1, zeroBlockId(), 2), '')
    expect(hvs.polInfo()).toEqual({ polRound: 2, polBlockId: zeroBlockId() })
  })
})
