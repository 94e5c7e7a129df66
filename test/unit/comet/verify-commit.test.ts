import { describe, expect, it } from 'vitest'
import { ed25519Sign } from '../../../src/crypto/index.js'
import { commitVote } from '../../../src/comet/commit.js'
import { makeBlockId, zeroBlockId } from '../../../src/comet/part-set.js'
import { voteSignBytes } from '../../../src/comet/sign-bytes.js'
import type { Commit } from '../../../src/comet/types.js'
import { BlockIDFlag } from '../../../src/abci/types.js'
import { medianTime } from '../../../src/comet/validator-set.js'
import { CHAIN_ID, makeTestBlock, signCommit, testValidators } from './fixtures.js'

const setup = () => {
  const { set, seeds } = testValidators([10n, 10n, 10n, 10n])
  const { blockId } = makeBlockId(makeTestBlock(1, set))
  return { set, seeds, blockId }
}

describe('verifyCommit', () => {
  it('accepts a commit signed by everyone or by more than 2/3', () => {
    const { set, seeds, blockId } = setup()
    expect(() => set.verifyCommit(CHAIN_ID, blockId, 1, signCommit(set, seeds, 1, blockId))).not.toThrow()
    expect(() => set.verifyCommit(CHAIN_ID, blockId, 1, signCommit(set, seeds, 1, blockId, [0, 1, 3]))).not.toThrow()
  })

  it('rejects insufficient voting power (needs > floor(2/3 total))', () => {
    const { set, seeds, blockId } = setup()
    expect(() => set.verifyCommit(CHAIN_ID, blockId, 1, signCommit(set, seeds, 1, blockId, [0, 1]))).toThrow(
      'invalid commit -- insufficient voting power: got 20, needed more than 26',
    )
  })

  it('rejects a bad signature', () => {
    const { set, seeds, blockId } = setup()
    const commit = signCommit(set, seeds, 1, blockId)
    commit.signatures[2]!.signature[5]! ^= 1
    expect(() => set.verifyCommit(CHAIN_ID, blockId, 1, commit)).toThrow(/^wrong signature \(#2\)/)
    const other = signCommit(set, seeds, 1, blockId)
    expect(() => set.verifyCommit('other-chain', blockId, 1, other)).toThrow(/wrong signature \(#0\)/)
  })

  it('rejects a wrong height, block id or set size', () => {
    const { set, seeds, blockId } = setup()
    const commit = signCommit(set, seeds, 1, blockId)
    expect(() => set.verifyCommit(CHAIN_ID, blockId, 2, commit)).toThrow('invalid commit -- wrong height: 2 vs 1')
    expect(() => set.verifyCommit(CHAIN_ID, zeroBlockId(), 1, commit)).toThrow(/wrong block ID/)
    const short: Commit = { ...commit, signatures: commit.signatures.slice(1) }
    expect(() => set.verifyCommit(CHAIN_ID, blockId, 1, short)).toThrow('invalid commit -- wrong set size: 4 vs 3')
  })

  it('checks NIL signatures over a nil precommit but does not count them', () => {
    const { set, seeds, blockId } = setup()
    const commit = signCommit(set, seeds, 1, blockId)
    const nilSig = commit.signatures[3]!
    nilSig.blockIdFlag = BlockIDFlag.Nil
    const v = set.validators[3]!
    nilSig.signature = ed25519Sign(seeds.get(Buffer.from(v.address).toString('hex'))!, voteSignBytes(CHAIN_ID, commitVote(commit, 3)))
    expect(commitVote(commit, 3).blockId).toEqual(zeroBlockId())
    expect(() => set.verifyCommit(CHAIN_ID, blockId, 1, commit)).not.toThrow()
    commit.signatures[2]!.blockIdFlag = BlockIDFlag.Nil
    expect(() => set.verifyCommit(CHAIN_ID, blockId, 1, commit)).toThrow(/wrong signature \(#2\)/)
  })
})

describe('medianTime', () => {
  it('weights non-absent signature times by power', () => {
    const { set, seeds } = testValidators([10n, 20n, 30n, 40n])
    const { blockId } = makeBlockId(makeTestBlock(1, set))
    const commit = signCommit(set, seeds, 1, blockId)
    const times = [500, 100, 300, 200]
    commit.signatures.forEach((s, i) => {
      s.timestamp = { seconds: times[i]!, nanos: 7 }
    })
    // Set order: 40 (t500), 30 (t100), 20 (t300), 10 (t200). Sorted: 100(30) 200(10) 300(20) 500(40); median 50 → 300.
    expect(medianTime(commit, set)).toEqual({ seconds: 300, nanos: 7 })
    // Without the 40-power signature: total 60, median 30 ≤ 30 → 100.
    commit.signatures[0]!.blockIdFlag = BlockIDFlag.Absent
    expect(medianTime(commit, set)).toEqual({ seconds: 100, nanos: 7 })
    commit.signatures[1]!.blockIdFlag = BlockIDFlag.Nil
    expect(medianTime(commit, set)).toEqual({ seconds: 100, nanos: 7 })
  })
})
