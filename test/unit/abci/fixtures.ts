/** One value of every ABCI request and response, with every field set to something other than its default. */
import { MisbehaviorType } from '../../../src/abci/application.js'
import { BlockIDFlag, type ConsensusParams } from '../../../src/abci/types.js'
import {
  ApplySnapshotChunkResult,
  OfferSnapshotResult,
  type RequestPayloads,
  type ResponsePayloads,
  VerdictStatus,
} from '../../../src/abci/wire/messages.js'

const bytes = (...b: number[]): Uint8Array => new Uint8Array(b)
const time = { seconds: 1_700_000_000, nanos: 123_456_789 }

const params: ConsensusParams = {
  block: { maxBytes: 22_020_096n, maxGas: -1n },
  evidence: { maxAgeNumBlocks: 100_000n, maxAgeDurationNs: 172_800_000_000_123n, maxBytes: 1_048_576n },
  validator: { pubKeyTypes: ['ed25519', 'secp256k1'] },
  version: { app: 7n },
  abci: { voteExtensionsEnableHeight: 12n },
}

const validatorUpdate = { pubKey: new Uint8Array(32).fill(0xab), power: 10n }

const commit = {
  round: 2,
  votes: [
    { validatorAddress: new Uint8Array(20).fill(1), power: 10n, blockIdFlag: BlockIDFlag.Commit },
    { validatorAddress: new Uint8Array(20).fill(2), power: 5n, blockIdFlag: BlockIDFlag.Nil },
    { validatorAddress: new Uint8Array(20).fill(3), power: 1n, blockIdFlag: BlockIDFlag.Absent },
  ],
}

const misbehavior = [
  {
    type: MisbehaviorType.DuplicateVote,
    validator: { address: new Uint8Array(20).fill(2), power: 5n },
    height: 41,
    time,
    totalVotingPower: 16n,
  },
]

const block = {
  txs: [bytes(1, 2, 3), bytes(), bytes(0xff)],
  misbehavior,
  hash: new Uint8Array(32).fill(0xcd),
  height: 42,
  time,
  nextValidatorsHash: new Uint8Array(32).fill(0xef),
  proposerAddress: new Uint8Array(20).fill(1),
}

/** PrepareProposal runs before the block exists, so it has no hash. */
function withoutHash<T extends { hash: Uint8Array }>({ hash: _, ...rest }: T): Omit<T, 'hash'> {
  return rest
}

const event = {
  type: 'ethereum_tx',
  attributes: [
    { key: 'ethereumTxHash', value: '0xabc', index: true },
    { key: 'txIndex', value: '0', index: false },
  ],
}

const txResult = {
  code: 3,
  data: bytes(9, 8),
  log: 'nonce too low',
  info: 'detail',
  gasWanted: 21_000n,
  gasUsed: 20_000n,
  events: [event],
  codespace: 'evm',
}

const snapshot = { height: 1000n, format: 1, chunks: 3, hash: bytes(4, 5), metadata: bytes(6) }

export const REQUESTS: { [M in keyof RequestPayloads]: RequestPayloads[M] } = {
  echo: { message: 'hello' },
  flush: {},
  info: { version: '0.38.25', blockVersion: 11n, p2pVersion: 8n, abciVersion: '2.0.0' },
  initChain: {
    time,
    chainId: 'nodectl-1',
    consensusParams: params,
    validators: [validatorUpdate],
    appStateBytes: new TextEncoder().encode('{"alloc":{}}'),
    initialHeight: 5,
  },
  query: { data: bytes(1), path: '/store/key', height: 9, prove: true },
  checkTx: { tx: bytes(0xf8, 0x6b), type: 'recheck' },
  commit: {},
  listSnapshots: {},
  offerSnapshot: { snapshot, appHash: bytes(7, 7) },
  loadSnapshotChunk: { height: 1000n, format: 1, chunk: 2 },
  applySnapshotChunk: { index: 2, chunk: bytes(1, 1), sender: 'peer1' },
  prepareProposal: { maxTxBytes: 1_048_576, ...withoutHash(block), localLastCommit: commit },
  processProposal: { ...block, proposedLastCommit: commit },
  extendVote: { ...block, proposedLastCommit: commit },
  verifyVoteExtension: { hash: bytes(1), validatorAddress: bytes(2), height: 42, voteExtension: bytes(3) },
  finalizeBlock: { ...block, decidedLastCommit: commit },
}

export const RESPONSES: { [M in keyof ResponsePayloads]: ResponsePayloads[M] } = {
  exception: { error: 'state root mismatch' },
  echo: { message: 'hello' },
  flush: {},
  info: { data: 'nodectl', version: '0.1.0', appVersion: 1n, lastBlockHeight: 42, lastBlockAppHash: bytes(0xaa) },
  initChain: { validators: [validatorUpdate], appHash: bytes(0xbb) },
  query: {
    code: 1,
    log: 'not found',
    info: 'i',
    index: -1n,
    key: bytes(1),
    value: bytes(2),
    proofOps: [{ type: 'ics23', key: bytes(3), data: bytes(4) }],
    height: 41,
    codespace: 'app',
  },
  checkTx: txResult,
  commit: { retainHeight: 10 },
  listSnapshots: { snapshots: [snapshot, { ...snapshot, height: 2000n }] },
  offerSnapshot: { result: OfferSnapshotResult.RejectFormat },
  loadSnapshotChunk: { chunk: bytes(5, 6) },
  applySnapshotChunk: { result: ApplySnapshotChunkResult.Retry, refetchChunks: [1, 300], rejectSenders: ['peer1', 'peer2'] },
  prepareProposal: { txs: [bytes(1), bytes()] },
  processProposal: { status: VerdictStatus.Reject },
  extendVote: { voteExtension: bytes(8) },
  verifyVoteExtension: { status: VerdictStatus.Accept },
  finalizeBlock: {
    events: [{ type: 'block', attributes: [{ key: 'k', value: 'v', index: true }] }],
    txResults: [txResult, { ...txResult, code: 0, log: '' }],
    validatorUpdates: [validatorUpdate, { ...validatorUpdate, power: 0n }],
    consensusParamUpdates: params,
    appHash: new Uint8Array(32).fill(0x11),
  },
}
