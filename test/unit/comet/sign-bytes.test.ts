import { describe, expect, it } from 'vitest'
import { ed25519FromSeed, ed25519Sign, ed25519Verify, sha256 } from '../../../src/crypto/index.js'
import { bytesToHex, utf8ToBytes } from '../../../src/primitives/hex.js'
import { GO_ZERO_TIME, parseRfc3339 } from '../../../src/utils/time.js'
import { zeroBlockId } from '../../../src/comet/part-set.js'
import { proposalSignBytes, voteSignBytes } from '../../../src/comet/sign-bytes.js'
import { SignedMsgType, type Proposal, type Vote } from '../../../src/comet/types.js'
import { realBlock } from './fixtures.js'

const hex = (b: Uint8Array): string => bytesToHex(b).slice(2)

function vote(fields: Partial<Vote> & { type?: number }): Vote {
  return {
    type: 0 as Vote['type'],
    height: 0,
    round: 0,
    blockId: zeroBlockId(),
    timestamp: { ...GO_ZERO_TIME },
    validatorAddress: new Uint8Array(0),
    validatorIndex: 0,
    signature: new Uint8Array(0),
    ...(fields as Partial<Vote>),
  }
}

describe('voteSignBytes (CometBFT TestVoteSignBytesTestVectors)', () => {
  it.each([
    ['', vote({}), '0d2a0b088092b8c398feffffff01'],
    [
      '',
      vote({ height: 1, round: 1, type: SignedMsgType.Precommit }),
      '2108021101000000000000001901000000000000002a0b088092b8c398feffffff01',
    ],
    [
      '',
      vote({ height: 1, round: 1, type: SignedMsgType.Prevote }),
      '2108011101000000000000001901000000000000002a0b088092b8c398feffffff01',
    ],
    ['', vote({ height: 1, round: 1 }), '1f1101000000000000001901000000000000002a0b088092b8c398feffffff01'],
    [
      'test_chain_id',
      vote({ height: 1, round: 1 }),
      '2e1101000000000000001901000000000000002a0b088092b8c398feffffff01320d746573745f636861696e5f6964',
    ],
  ])('chain %j vote %#', (chainId, v, expected) => {
    expect(hex(voteSignBytes(chainId, v))).toBe(expected)
  })

  it('exampleVote precommit', () => {
    const v = vote({
      type: SignedMsgType.Precommit,
      height: 12345,
      round: 2,
      timestamp: parseRfc3339('2017-12-25T03:00:01.234Z'),
      blockId: {
        hash: sha256(utf8ToBytes('blockID_hash')),
        partSetHeader: { total: 1000000, hash: sha256(utf8ToBytes('blockID_part_set_header_hash')) },
      },
    })
    expect(hex(voteSignBytes('test_chain_id', v))).toBe(
      '7c0802113930000000000000190200000000000000224a0a208b01023386c371778ecb6368573e539afc3cc860ec3a2f614e54fe5652f4fc80122608c0843d122072db3d959635dff1bb567bedaa70573392c5159666a3f8caf11e413aac52207a2a0b08b1d381d20510809dca6f320d746573745f636861696e5f6964',
    )
  })

  it('first precommit of the real block', () => {
    const b = realBlock()
    const sig = b.lastCommit.signatures[0]!
    const v = vote({ type: SignedMsgType.Precommit, height: 10817, round: 0, blockId: b.lastCommit.blockId, timestamp: sig.timestamp })
    expect(hex(voteSignBytes('devnet0', v))).toBe(
      '6b080211412a00000000000022480a20b7f270de82c5eb38828784923720a7c104f7224294bb52a6e120c065f3572e02122408011220d45611ff960d47a62351181e3d7a1cfecac773681884ba04614c637c9c2c81662a0b08c6a7a6a40610e5fbb64e32076465766e657430',
    )
  })

  it('ed25519 precommit sign bytes and deterministic signature', () => {
    const seed = Uint8Array.from({ length: 32 }, (_, i) => i)
    const v = vote({
      type: SignedMsgType.Precommit,
      height: 5,
      round: 0,
      blockId: { hash: sha256(utf8ToBytes('blk')), partSetHeader: { total: 1, hash: sha256(utf8ToBytes('parts')) } },
      timestamp: parseRfc3339('2024-01-02T03:04:05.000000006Z'),
    })
    const bytes = voteSignBytes('test-chain', v)
    expect(hex(bytes)).toBe(
      '6b080211050000000000000022480a205af2392a948f950e3f93e9f171da623fe6629440bc8d7e27fa7b39573e40ee73122408011220d887db09649dab0d83951d8d5d69b2e7d8bb70e79daa2a3a279b4fd6b8346cea2a0808a5facdac061006320a746573742d636861696e',
    )
    const signature = ed25519Sign(seed, bytes)
    expect(hex(signature)).toBe(
      '59ff72432a6faf083cc628f7c1cb9341625a9e04cd7d87f7e167766cace91f57188017b11af98b2594361834e00365a4f4cfcd0f22879960252323c2a3081f00',
    )
    expect(ed25519Verify(ed25519FromSeed(seed).publicKey, bytes, signature)).toBe(true)
  })
})

describe('proposalSignBytes', () => {
  it('testProposal, 2-byte length prefix', () => {
    const id = utf8ToBytes('--June_15_2020_amino_was_removed')
    const p: Proposal = {
      height: 12345,
      round: 23456,
      polRound: -1,
      blockId: { hash: id, partSetHeader: { total: 111, hash: id } },
      timestamp: parseRfc3339('2018-02-11T07:09:22.765Z'),
      signature: new Uint8Array(0),
    }
    expect(hex(proposalSignBytes('test_chain_id', p))).toBe(
      '8601082011393000000000000019a05b00000000000020ffffffffffffffffff012a480a202d2d4a756e655f31355f323032305f616d696e6f5f7761735f72656d6f7665641224086f12202d2d4a756e655f31355f323032305f616d696e6f5f7761735f72656d6f766564320c08a2d8ffd30510c0f2e3ec023a0d746573745f636861696e5f6964',
    )
  })
})
