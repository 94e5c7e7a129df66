import { describe, expect, it } from 'vitest'
import { sha256 } from '../../../src/crypto/index.js'
import { bytesToHex, bytesToUpperHex, hexToBytes, utf8ToBytes } from '../../../src/primitives/hex.js'
import { parseRfc3339 } from '../../../src/utils/time.js'
import { encodeCommitSig } from '../../../src/comet/encoding.js'
import {
  fillHeaderHashes,
  hashCommit,
  hashConsensusParams,
  hashData,
  hashEvidence,
  hashHeader,
  hashTxResults,
  hashTx,
} from '../../../src/comet/hash.js'
import { leafHash, merkleRoot } from '../../../src/comet/merkle.js'
import { absentCommitSig, emptyCommit } from '../../../src/comet/commit.js'
import type { Header } from '../../../src/comet/types.js'
import type { ConsensusParams, ExecTxResult } from '../../../src/abci/types.js'
import { realBlock } from './fixtures.js'

const hex = (b: Uint8Array): string => bytesToHex(b).slice(2)
const E3B0 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'

function testHeader(): Header {
  const h = (s: string): Uint8Array => sha256(utf8ToBytes(s))
  return {
    version: { block: 1n, app: 2n },
    chainId: 'chainId',
    height: 3,
    time: parseRfc3339('2019-10-13T16:14:44Z'),
    lastBlockId: { hash: new Uint8Array(32), partSetHeader: { total: 6, hash: new Uint8Array(32) } },
    lastCommitHash: h('last_commit_hash'),
    dataHash: h('data_hash'),
    validatorsHash: h('validators_hash'),
    nextValidatorsHash: h('next_validators_hash'),
    consensusHash: h('consensus_hash'),
    appHash: h('app_hash'),
    lastResultsHash: h('last_results_hash'),
    evidenceHash: h('evidence_hash'),
    proposerAddress: h('proposer_address').slice(0, 20),
  }
}

function params(maxBytes: bigint, maxGas: bigint): ConsensusParams {
  return {
    block: { maxBytes, maxGas },
    evidence: { maxAgeNumBlocks: 100000n, maxAgeDurationNs: 172800000000000n, maxBytes: 1048576n },
    validator: { pubKeyTypes: ['ed25519'] },
    version: { app: 0n },
    abci: { voteExtensionsEnableHeight: 0n },
  }
}

describe('hashHeader', () => {
  it('CometBFT TestHeaderHash vector', () => {
    expect(bytesToUpperHex(hashHeader(testHeader()))).toBe('F740121F553B5418C3EFBD343C2DBFE9E007BB67B0D020A0741374BAB65242A4')
  })

  it('is empty when validatorsHash is empty', () => {
    expect(hashHeader({ ...testHeader(), validatorsHash: new Uint8Array(0) })).toHaveLength(0)
  })

  it('real block 10818 hashes to 97EA6238…', () => {
    expect(bytesToUpperHex(hashHeader(realBlock().header))).toBe('97EA623844694395542AA9FEC7155D9601C2C3914E32CF9B83595DCCFB4AA153')
  })
})

describe('other hashes', () => {
  it('real block last_commit hash', () => {
    expect(bytesToUpperHex(hashCommit(realBlock().lastCommit))).toBe('A5253ABF9ED8F0217F5B5FACFC3B6DB6E14D0FB8CFF8366D0D818914DD712F0A')
  })

  it('empty commit, data, evidence and results hash to SHA256("")', () => {
    expect(hex(hashCommit(emptyCommit()))).toBe(E3B0)
    expect(hex(hashData([]))).toBe(E3B0)
    expect(hex(hashEvidence([]))).toBe(E3B0)
    expect(hex(hashTxResults([]))).toBe(E3B0)
  })

  it('ABSENT commit sig encoding', () => {
    expect(hex(encodeCommitSig(absentCommitSig()))).toBe('08011a0b088092b8c398feffffff01')
  })

  it('default consensus params hash 048091BC… (seen in real chain headers)', () => {
    expect(bytesToUpperHex(hashConsensusParams(params(22020096n, -1n)))).toBe(
      '048091BC7DDC283F77BFBF91D73C44DA58C3DF8A9CBC867405D8B7F3DAADA22F',
    )
    expect(hashConsensusParams(params(22020096n, -1n))).toEqual(sha256(hexToBytes('088080c00a10ffffffffffffffffff01')))
  })

  it('data hash leaves are tx hashes', () => {
    const txs = [utf8ToBytes('a'), utf8ToBytes('bc')]
    expect(hashTx(txs[0]!)).toEqual(sha256(txs[0]!))
    expect(hashData(txs)).toEqual(merkleRoot(txs.map((t) => sha256(t))))
  })

  it('tx results keep only code, data, gas_wanted, gas_used', () => {
    const r: ExecTxResult = {
      code: 0,
      data: new Uint8Array(0),
      log: 'x',
      info: 'y',
      gasWanted: 0n,
      gasUsed: 0n,
      events: [{ type: 't', attributes: [] }],
      codespace: 'z',
    }
    expect(hex(hashTxResults([r]))).toBe('6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d')
    const r2 = { ...r, code: 1, data: Uint8Array.of(0xaa), gasWanted: 21000n, gasUsed: 21000n }
    expect(hashTxResults([r2])).toEqual(leafHash(hexToBytes('080112' + '01aa' + '28' + '88a401' + '30' + '88a401')))
  })

  it('fillHeaderHashes sets data, last commit and evidence hashes', () => {
    const block = realBlock()
    block.header.dataHash = new Uint8Array(0)
    block.header.lastCommitHash = new Uint8Array(0)
    block.header.evidenceHash = new Uint8Array(0)
    fillHeaderHashes(block)
    expect(bytesToUpperHex(hashHeader(block.header))).toBe('97EA623844694395542AA9FEC7155D9601C2C3914E32CF9B83595DCCFB4AA153')
  })
})
