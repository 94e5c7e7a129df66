import { describe, expect, it } from 'vitest'
import { sha256 } from '../../../src/crypto/index.js'
import { bytesToHex, bytesToUpperHex, hexToBytes, utf8ToBytes } from '../../../src/primitives/hex.js'
import { GO_ZERO_TIME } from '../../../src/utils/time.js'
import {
  decodeBlock,
  decodeBlockTx,
  decodeBlockId,
  decodeCommit,
  decodeEvidence,
  decodeHeader,
  decodePart,
  decodeProposal,
  decodeVote,
  encodeBlock,
  encodeBlockId,
  encodeCommit,
  encodeEvidence,
  encodeHeader,
  encodePart,
  encodeProposal,
  encodeVote,
} from '../../../src/comet/encoding.js'
import { emptyCommit } from '../../../src/comet/commit.js'
import { makeBlockId, makePartSet, zeroBlockId } from '../../../src/comet/part-set.js'
import { SignedMsgType, type Proposal, type Vote } from '../../../src/comet/types.js'
import { REAL_BLOCK_HEX, realBlock, realLastBlockId } from './fixtures.js'

const hex = (b: Uint8Array): string => bytesToHex(b).slice(2)

const vote: Vote = {
  type: SignedMsgType.Precommit,
  height: 12345,
  round: 2,
  blockId: realLastBlockId,
  timestamp: { seconds: 1514170801, nanos: 234000000 },
  validatorAddress: sha256(utf8ToBytes('v')).slice(0, 20),
  validatorIndex: 7,
  signature: new Uint8Array(64).fill(9),
}

const proposal: Proposal = {
  height: 12345,
  round: 23456,
  polRound: -1,
  blockId: realLastBlockId,
  timestamp: { seconds: 1518332962, nanos: 765000000 },
  signature: new Uint8Array(64).fill(3),
}

describe('block encoding', () => {
  it('real block 10818 encodes to the fixture bytes, 704 B, part-set hash A2B4D767…', () => {
    const bytes = encodeBlock(realBlock())
    expect(bytes).toHaveLength(704)
    expect(hex(bytes)).toBe(REAL_BLOCK_HEX)
    const { blockId } = makeBlockId(realBlock())
    expect(bytesToUpperHex(blockId.hash)).toBe('97EA623844694395542AA9FEC7155D9601C2C3914E32CF9B83595DCCFB4AA153')
    expect(blockId.partSetHeader.total).toBe(1)
    expect(bytesToUpperHex(blockId.partSetHeader.hash)).toBe('A2B4D76753C13B6CE09CF5CC7303B69196252D5AF9C97444BC6613B664EB4B7D')
  })

  it('reads one tx of an encoded block without decoding the rest', () => {
    const block = { ...realBlock(), txs: [utf8ToBytes('first'), utf8ToBytes('second'), new Uint8Array(0)] }
    const bytes = encodeBlock(block)
    expect(decodeBlockTx(bytes, 0)).toEqual(utf8ToBytes('first'))
    expect(decodeBlockTx(bytes, 1)).toEqual(utf8ToBytes('second'))
    expect(decodeBlockTx(bytes, 2)).toEqual(new Uint8Array(0))
    expect(decodeBlockTx(bytes, 3)).toBeUndefined()
    expect(decodeBlockTx(hexToBytes(REAL_BLOCK_HEX), 0)).toBeUndefined()
  })

  it('decodes the real block bytes back to the same block', () => {
    expect(decodeBlock(hexToBytes(REAL_BLOCK_HEX))).toEqual(realBlock())
  })

  it('decodes from a Node Buffer (as LevelDB returns) into plain Uint8Array copies', () => {
    const buf = Buffer.from(REAL_BLOCK_HEX, 'hex')
    const block = decodeBlock(buf)
    expect(block).toEqual(realBlock())
    expect(block.header.appHash.constructor).toBe(Uint8Array)
    buf.fill(0)
    expect(block).toEqual(realBlock())
  })

  it('round-trips a block with txs, evidence and the empty commit', () => {
    const block = realBlock()
    block.txs = [utf8ToBytes('tx1'), new Uint8Array(0), new Uint8Array(70000).fill(5)]
    block.evidence = [
      {
        voteA: vote,
        voteB: { ...vote, blockId: zeroBlockId() },
        totalVotingPower: 100n,
        validatorPower: 10n,
        timestamp: { seconds: 5, nanos: 6 },
      },
    ]
    block.lastCommit = emptyCommit()
    expect(decodeBlock(encodeBlock(block))).toEqual(block)
  })

  // The reference's `22 02 1a 00` leaves out the non-nullable part_set_header inside block_id; gogoproto emits it
  // (a real height-1 block, celestia-core types/part_set_test.go Val1Prop, ends `1a00 22041a021200`).
  it('the empty height-1 commit encodes as 22 04 1a 02 12 00 and empty data/evidence as 12 00 1a 00', () => {
    const block = { ...realBlock(), lastCommit: emptyCommit() }
    expect(hex(encodeBlock(block)).endsWith('12001a0022041a021200')).toBe(true)
  })

  it('round-trips a header with negative time and a zero last block id', () => {
    const header = { ...realBlock().header, time: { ...GO_ZERO_TIME }, lastBlockId: zeroBlockId(), height: 1 }
    expect(decodeHeader(encodeHeader(header))).toEqual(header)
  })
})

describe('vote, proposal, commit, evidence, part, block id', () => {
  it('round-trips a vote and a nil vote', () => {
    expect(decodeVote(encodeVote(vote))).toEqual(vote)
    const nil: Vote = {
      ...vote,
      type: SignedMsgType.Prevote,
      round: 0,
      validatorIndex: 0,
      blockId: zeroBlockId(),
      timestamp: { ...GO_ZERO_TIME },
    }
    expect(decodeVote(encodeVote(nil))).toEqual(nil)
  })

  it('encodes vote fields 1–8 with block_id and timestamp always present', () => {
    const v: Vote = {
      ...vote,
      height: 0,
      round: 0,
      validatorIndex: 0,
      blockId: zeroBlockId(),
      timestamp: { seconds: 0, nanos: 0 },
      validatorAddress: new Uint8Array(0),
      signature: new Uint8Array(0),
    }
    expect(hex(encodeVote(v))).toBe('080222021200' + '2a00')
  })

  it('round-trips a proposal with pol_round −1 as a 10-byte varint', () => {
    const bytes = encodeProposal(proposal)
    expect(hex(bytes).startsWith('082010b96018a0b70120ffffffffffffffffff01')).toBe(true)
    expect(decodeProposal(bytes)).toEqual(proposal)
    expect(decodeProposal(encodeProposal({ ...proposal, polRound: 3 }))).toEqual({ ...proposal, polRound: 3 })
  })

  it('round-trips commits', () => {
    expect(decodeCommit(encodeCommit(realBlock().lastCommit))).toEqual(realBlock().lastCommit)
    expect(decodeCommit(encodeCommit(emptyCommit()))).toEqual(emptyCommit())
  })

  it('round-trips evidence and block ids', () => {
    const ev = {
      voteA: vote,
      voteB: { ...vote, signature: new Uint8Array(64) },
      totalVotingPower: 1000n,
      validatorPower: 10n,
      timestamp: { seconds: 1, nanos: 2 },
    }
    expect(decodeEvidence(encodeEvidence(ev))).toEqual(ev)
    expect(decodeBlockId(encodeBlockId(realLastBlockId))).toEqual(realLastBlockId)
    expect(hex(encodeBlockId(zeroBlockId()))).toBe('1200')
  })

  it('round-trips parts', () => {
    const ps = makePartSet(new Uint8Array(150000).map((_, i) => i & 0xff))
    for (const part of ps.parts) expect(decodePart(encodePart(part))).toEqual(part)
  })

  it('rejects truncated input and bad enums', () => {
    const bytes = encodeVote(vote)
    expect(() => decodeVote(bytes.subarray(0, bytes.length - 3))).toThrow(/end of input/)
    expect(() => decodeVote(encodeVote({ ...vote, type: 0 as unknown as 1 }))).toThrow(/invalid vote type/)
  })
})
