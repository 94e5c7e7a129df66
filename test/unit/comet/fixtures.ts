/** Shared fixtures: a real CometBFT block (block protocol 11, hashed as v0.38 hashes) and small builders. */
import { ed25519FromSeed, ed25519Sign, sha256 } from '../../../src/crypto/index.js'
import { base64ToBytes, hexToBytes, utf8ToBytes } from '../../../src/primitives/hex.js'
import { parseRfc3339 } from '../../../src/utils/time.js'
import { emptyCommit } from '../../../src/comet/commit.js'
import { fillHeaderHashes } from '../../../src/comet/hash.js'
import { makeBlockId } from '../../../src/comet/part-set.js'
import { voteSignBytes } from '../../../src/comet/sign-bytes.js'
import { SignedMsgType, type Block, type BlockID, type Commit, type Header, type Vote } from '../../../src/comet/types.js'
import { BlockIDFlag } from '../../../src/abci/types.js'
import { ValidatorSet, validatorAddress } from '../../../src/comet/validator-set.js'

const E3B0 = hexToBytes('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')

export const realLastBlockId: BlockID = {
  hash: hexToBytes('B7F270DE82C5EB38828784923720A7C104F7224294BB52A6E120C065F3572E02'),
  partSetHeader: { total: 1, hash: hexToBytes('D45611FF960D47A62351181E3D7A1CFECAC773681884BA04614C637C9C2C8166') },
}

/** Block 10818 of the rigochain devnet (a CometBFT v0.34.20 chain; its hashes are v0.38's). */
export function realBlock(): Block {
  const header: Header = {
    version: { block: 11n, app: 72057594275268382n },
    chainId: 'devnet0',
    height: 10818,
    time: parseRfc3339('2023-06-14T10:17:42.164478437Z'),
    lastBlockId: realLastBlockId,
    lastCommitHash: hexToBytes('A5253ABF9ED8F0217F5B5FACFC3B6DB6E14D0FB8CFF8366D0D818914DD712F0A'),
    dataHash: E3B0,
    validatorsHash: hexToBytes('5B2FCAEBDFD9E6CB6CBE441B1F0060923986C25B910445AEDEC907C12DFC1B5E'),
    nextValidatorsHash: hexToBytes('5B2FCAEBDFD9E6CB6CBE441B1F0060923986C25B910445AEDEC907C12DFC1B5E'),
    consensusHash: hexToBytes('048091BC7DDC283F77BFBF91D73C44DA58C3DF8A9CBC867405D8B7F3DAADA22F'),
    appHash: hexToBytes('5421B4C31EAE7BC682E6D1D4C3575AA03D1EB152189D59C8034627377665D014'),
    lastResultsHash: E3B0,
    evidenceHash: E3B0,
    proposerAddress: hexToBytes('735DC3FC8BCCFD7810BCC14DB49234C1BCE7758B'),
  }
  const lastCommit: Commit = {
    height: 10817,
    round: 0,
    blockId: realLastBlockId,
    signatures: [
      {
        blockIdFlag: BlockIDFlag.Commit,
        validatorAddress: hexToBytes('735DC3FC8BCCFD7810BCC14DB49234C1BCE7758B'),
        timestamp: parseRfc3339('2023-06-14T10:17:42.164478437Z'),
        signature: base64ToBytes('FOTXUdRJFUh4ucMQv63ErJPg7bSf1AE2eZOJ0gMH/GRv9K34byT1JmGux11kvbCSM6TBEArWr5mA6jikXdebIQ=='),
      },
      {
        blockIdFlag: BlockIDFlag.Commit,
        validatorAddress: hexToBytes('0F2AEF9D9269986686414DCB6F9DBC79514A6694'),
        timestamp: parseRfc3339('2023-06-14T10:17:42.262568104Z'),
        signature: base64ToBytes('VNz7IzlpmkpvxWwDYCDwEz06JN3vqkwicZQ0KZ14dtcbfmu2gG8iu1jt8mphR3CwOfphFOgn9VMyJmHubA5DNw=='),
      },
    ],
  }
  return { header, txs: [], evidence: [], lastCommit }
}

export const REAL_BLOCK_HEX =
  '0a97030a0c080b109e8e96f1808080800112076465766e65743018c254220b08c6a7a6a40610e5fbb64e2a480a20b7f270de82c5eb38828784923720a7c104f7' +
  '224294bb52a6e120c065f3572e02122408011220d45611ff960d47a62351181e3d7a1cfecac773681884ba04614c637c9c2c81663220a5253abf9ed8f0217f5b' +
  '5facfc3b6db6e14d0fb8cff8366d0d818914dd712f0a3a20e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85542205b2fcaebdfd9' +
  'e6cb6cbe441b1f0060923986c25b910445aedec907c12dfc1b5e4a205b2fcaebdfd9e6cb6cbe441b1f0060923986c25b910445aedec907c12dfc1b5e52200480' +
  '91bc7ddc283f77bfbf91d73c44da58c3df8a9cbc867405d8b7f3daada22f5a205421b4c31eae7bc682e6d1d4c3575aa03d1eb152189d59c8034627377665d014' +
  '6220e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b8556a20e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b' +
  '7852b8557214735dc3fc8bccfd7810bcc14db49234c1bce7758b12001a00229f0208c1541a480a20b7f270de82c5eb38828784923720a7c104f7224294bb52a6' +
  'e120c065f3572e02122408011220d45611ff960d47a62351181e3d7a1cfecac773681884ba04614c637c9c2c8166226708021214735dc3fc8bccfd7810bcc14d' +
  'b49234c1bce7758b1a0b08c6a7a6a40610e5fbb64e224014e4d751d449154878b9c310bfadc4ac93e0edb49fd40136799389d20307fc646ff4adf86f24f52661' +
  'aec75d64bdb09233a4c1100ad6af9980ea38a45dd79b212267080212140f2aef9d9269986686414dcb6f9dbc79514a66941a0b08c6a7a6a40610a8f1997d2240' +
  '54dcfb2339699a4a6fc56c036020f0133d3a24ddefaa4c22719434299d7876d71b7e6bb6806f22bb58edf26a614770b039fa6114e827f553322661ee6c0e4337'

/** A deterministic ed25519 test key: seed = [i, i+1, ..., i+31]. */
export function testKey(i: number): { seed: Uint8Array; pubKey: Uint8Array; address: Uint8Array } {
  const seed = Uint8Array.from({ length: 32 }, (_, k) => (i + k) & 0xff)
  const { publicKey } = ed25519FromSeed(seed)
  return { seed, pubKey: publicKey, address: validatorAddress(publicKey) }
}

export const CHAIN_ID = 'test-chain'

/** A chain of `n` validators with the given powers, their seeds indexed by address hex. */
export function testValidators(powers: bigint[]): { set: ValidatorSet; seeds: Map<string, Uint8Array> } {
  const keys = powers.map((_, i) => testKey(i * 7))
  const set = ValidatorSet.fromUpdates(keys.map((k, i) => ({ pubKey: k.pubKey, power: powers[i]! })))
  const seeds = new Map(keys.map((k) => [Buffer.from(k.address).toString('hex'), k.seed]))
  return { set, seeds }
}

/** A block at `height` with txs, a header filled as a proposer would, and the given last commit. */
export function makeTestBlock(height: number, set: ValidatorSet, lastCommit: Commit = emptyCommit(), txs: Uint8Array[] = []): Block {
  const block: Block = {
    header: {
      version: { block: 11n, app: 0n },
      chainId: CHAIN_ID,
      height,
      time: { seconds: 1_700_000_000 + height, nanos: 123_456_789 },
      lastBlockId: lastCommit.blockId,
      lastCommitHash: new Uint8Array(0),
      dataHash: new Uint8Array(0),
      validatorsHash: set.hash(),
      nextValidatorsHash: set.hash(),
      consensusHash: sha256(utf8ToBytes('params')),
      appHash: sha256(utf8ToBytes(`app${height}`)),
      lastResultsHash: E3B0,
      evidenceHash: new Uint8Array(0),
      proposerAddress: set.getProposer().address,
    },
    txs,
    evidence: [],
    lastCommit,
  }
  fillHeaderHashes(block)
  return block
}

/** A commit of `blockId` at `height` where the validators at `signers` sign COMMIT and the others are ABSENT. */
export function signCommit(
  set: ValidatorSet,
  seeds: Map<string, Uint8Array>,
  height: number,
  blockId: BlockID,
  signers?: number[],
): Commit {
  const commit: Commit = { height, round: 0, blockId, signatures: [] }
  set.validators.forEach((v, i) => {
    if (signers && !signers.includes(i)) {
      commit.signatures.push({
        blockIdFlag: BlockIDFlag.Absent,
        validatorAddress: new Uint8Array(0),
        timestamp: { seconds: -62135596800, nanos: 0 },
        signature: new Uint8Array(0),
      })
      return
    }
    const vote: Vote = {
      type: SignedMsgType.Precommit,
      height,
      round: 0,
      blockId,
      timestamp: { seconds: 1_700_000_100 + i, nanos: i },
      validatorAddress: v.address,
      validatorIndex: i,
      signature: new Uint8Array(0),
    }
    const signature = ed25519Sign(seeds.get(Buffer.from(v.address).toString('hex'))!, voteSignBytes(CHAIN_ID, vote))
    commit.signatures.push({ blockIdFlag: BlockIDFlag.Commit, validatorAddress: v.address, timestamp: vote.timestamp, signature })
  })
  return commit
}

export { makeBlockId }
