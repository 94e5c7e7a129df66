/**
 * A CometBackend double over three real blocks (real header hashes, part sets and signed commits from
 * src/comet/), their FinalizeBlock results, a small mempool and a consensus snapshot.
 */
import { hashTx } from '../../../../src/comet/hash.js'
import { makeBlockId } from '../../../../src/comet/part-set.js'
import type { BlockMeta } from '../../../../src/comet/block-store.js'
import { SignedMsgType, type Block, type Commit, type DuplicateVoteEvidence, type Vote } from '../../../../src/comet/types.js'
import type { ConsensusParams, TxResult } from '../../../../src/abci/types.js'
import type { ValidatorSet } from '../../../../src/comet/validator-set.js'
import { RoundStep } from '../../../../src/consensus/round-step.js'
import { bytesToUpperHex, equalBytes, hexToBytes, utf8ToBytes } from '../../../../src/primitives/hex.js'
import type { CheckTxResponse, FinalizeBlockResponse, InfoResponse, QueryResponse } from '../../../../src/abci/application.js'
import type { RoundStateSummary } from '../../../../src/consensus/state-machine.js'
import type { AbciQueryRequest, CometBackend, CometNodeInfo, CometPeer } from '../../../../src/api/comet/backend.js'
import { encodeGenesisDoc } from '../../../../src/api/comet/json.js'
import { stringifyJson } from '../../../../src/api/comet/wire-json.js'
import { emptyCommit } from '../../../../src/comet/commit.js'
import { CHAIN_ID, makeTestBlock, signCommit, testValidators } from '../../comet/fixtures.js'

export interface StoredHeight {
  block: Block
  meta: BlockMeta
  seen: Commit
  results: FinalizeBlockResponse
}

export const PARAMS: ConsensusParams = {
  block: { maxBytes: 22_020_096n, maxGas: 30_000_000n },
  evidence: { maxAgeNumBlocks: 100_000n, maxAgeDurationNs: 172_800_000_000_000n, maxBytes: 1_048_576n },
  validator: { pubKeyTypes: ['ed25519'] },
  version: { app: 0n },
  abci: { voteExtensionsEnableHeight: 0n },
}

/** The genesis text: app_state carries a number beyond 2^53 that must survive byte for byte. */
export const APP_STATE_JSON = '{ "evm": { "big": 123456789012345678901234567890, "note": "<a&b>" } }'

/** Txs per height: 1 → one tx, 2 → three txs (proofs with aunts), 3 → one tx. */
export const TXS: Record<number, Uint8Array[]> = {
  1: [utf8ToBytes('tx-1-a')],
  2: [utf8ToBytes('tx-2-a'), utf8ToBytes('tx-2-b'), utf8ToBytes('tx-2-c')],
  3: [utf8ToBytes('tx-3-a')],
}

function execResult(tx: Uint8Array, i: number): FinalizeBlockResponse['txResults'][number] {
  return {
    code: 0,
    data: i === 0 ? new Uint8Array(0) : utf8ToBytes(`ret-${i}`),
    log: '',
    info: '',
    gasWanted: 21000n,
    gasUsed: 21000n,
    events: [
      {
        type: 'ethereum_tx',
        attributes: [
          { key: 'ethereumTxHash', value: '0x' + bytesToUpperHex(hashTx(tx)).toLowerCase(), index: true },
          { key: 'txIndex', value: String(i), index: true },
        ],
      },
    ],
    codespace: '',
  }
}

/** Options of the double. */
export interface FakeOptions {
  catchingUp?: boolean
  txIndex?: boolean
}

/** The double; fields are public so tests can reach the data they compare with. */
export class FakeBackend implements CometBackend {
  readonly set: ValidatorSet
  readonly seeds: Map<string, Uint8Array>
  readonly heights = new Map<number, StoredHeight>()
  readonly mempool: Uint8Array[] = [utf8ToBytes('pending-1'), utf8ToBytes('pending-22')]
  readonly seenTxs = new Set<string>()
  readonly evidence: DuplicateVoteEvidence[] = []
  /** Txs that broadcast_tx_commit should see included, by hash hex. */
  private readonly waiters = new Map<string, (r: TxResult) => void>()
  catchingUp: boolean
  txIndex: boolean

  constructor(opts: FakeOptions = {}) {
    this.catchingUp = opts.catchingUp ?? false
    this.txIndex = opts.txIndex ?? true
    const { set, seeds } = testValidators([10n, 10n])
    this.set = set
    this.seeds = seeds
    let last: Commit = emptyCommit()
    for (let h = 1; h <= 3; h++) {
      const block = makeTestBlock(h, set, last, TXS[h]!)
      const { blockId, bytes } = makeBlockId(block)
      // Height 1's commit has validator #1 ABSENT, to show an absent signature.
      const seen = signCommit(set, seeds, h, blockId, h === 1 ? [0] : undefined)
      const results: FinalizeBlockResponse = {
        txResults: block.txs.map(execResult),
        events:
          h === 1
            ? []
            : [
                { type: 'block_bloom', attributes: [{ key: 'bloom', value: '0x00', index: true }] },
                { type: 'empty_event', attributes: [] },
              ],
        validatorUpdates: h === 2 ? [{ pubKey: set.validators[0]!.pubKey, power: 20n }] : [],
        consensusParamUpdates: h === 3 ? { block: { maxBytes: 1_000_000n, maxGas: 40_000_000n } } : undefined,
        appHash: hexToBytes('AB'.repeat(32)),
      }
      this.heights.set(h, {
        block,
        meta: { blockId, blockSize: bytes.length, header: block.header, numTxs: block.txs.length },
        seen,
        results,
      })
      last = seen
    }
  }

  stored(h: number): StoredHeight {
    return this.heights.get(h)!
  }

  nodeInfo(): CometNodeInfo {
    return {
      protocolVersion: { p2p: 8n, block: 11n, app: 0n },
      id: '5576458aef205977e18fd50b274e9b5d9014525a',
      listenAddr: 'tcp://0.0.0.0:26656',
      network: CHAIN_ID,
      version: '0.38.25',
      channels: hexToBytes('40202122233038606100'),
      moniker: 'node0',
      txIndex: this.txIndex,
      rpcAddress: 'tcp://127.0.0.1:26657',
    }
  }
  validatorKey(): { address: Uint8Array; pubKey: Uint8Array } {
    const v = this.set.validators[0]!
    return { address: v.address, pubKey: v.pubKey }
  }
  isCatchingUp(): boolean {
    return this.catchingUp
  }
  p2pListeners(): { listening: boolean; listeners: string[] } {
    return { listening: true, listeners: ['Listener(@127.0.0.1:26656)'] }
  }
  peers(): CometPeer[] {
    return []
  }
  baseHeight(): number {
    return 1
  }
  latestHeight(): number {
    return 3
  }
  loadBlock(h: number): Block | undefined {
    return this.heights.get(h)?.block
  }
  loadBlockMeta(h: number): BlockMeta | undefined {
    return this.heights.get(h)?.meta
  }
  heightByHash(hash: Uint8Array): number | undefined {
    for (const [h, s] of this.heights) if (equalBytes(s.meta.blockId.hash, hash)) return h
    return undefined
  }
  loadBlockCommit(h: number): Commit | undefined {
    return this.heights.get(h + 1)?.block.lastCommit
  }
  loadSeenCommit(h: number): Commit | undefined {
    return this.heights.get(h)?.seen
  }
  loadFinalizeBlockResults(h: number): FinalizeBlockResponse | undefined {
    return this.heights.get(h)?.results
  }
  loadValidators(h: number): ValidatorSet | undefined {
    return h >= 1 && h <= 4 ? this.set : undefined
  }
  loadConsensusParams(h: number): ConsensusParams | undefined {
    return h >= 1 && h <= 4 ? PARAMS : undefined
  }
  genesisJson(): string {
    return stringifyJson(
      encodeGenesisDoc({
        genesisTime: { seconds: 1_700_000_000, nanos: 500_000_000 },
        chainId: CHAIN_ID,
        initialHeight: 1,
        consensusParams: PARAMS,
        validators: this.set.validators.map((v, i) => ({ address: v.address, pubKey: v.pubKey, power: v.votingPower, name: `val${i}` })),
        appHash: new Uint8Array(0),
        appStateJson: APP_STATE_JSON,
      }),
    )
  }
  getTx(hash: Uint8Array): TxResult | undefined {
    for (const [h, s] of this.heights) {
      const index = s.block.txs.findIndex((tx) => equalBytes(hashTx(tx), hash))
      if (index >= 0) return { height: h, index, tx: s.block.txs[index]!, result: s.results.txResults[index]! }
    }
    return undefined
  }
  searchTxs(query: string): TxResult[] {
    // A stand-in for the query engine: `tx.height=N` only.
    const m = /^tx\.height\s*=\s*(\d+)$/.exec(query)
    if (!m) throw new Error(`failed to parse query: unsupported query ${JSON.stringify(query)}`)
    const s = this.heights.get(Number(m[1]))
    return s
      ? s.block.txs.map((tx, index) => ({ height: s.block.header.height, index, tx, result: s.results.txResults[index]! })).reverse()
      : []
  }
  searchBlocks(query: string): number[] {
    if (query !== 'block_bloom.bloom EXISTS') throw new Error('not implemented')
    return [2, 3]
  }
  mempoolSize(): { count: number; bytes: number } {
    return { count: this.mempool.length, bytes: this.mempool.reduce((n, tx) => n + tx.length, 0) }
  }
  unconfirmedTxs(max: number): Uint8Array[] {
    return this.mempool.slice(0, max)
  }
  broadcastTx(tx: Uint8Array): CheckTxResponse {
    const key = bytesToUpperHex(tx)
    if (this.seenTxs.has(key)) throw new Error('tx already exists in cache')
    this.seenTxs.add(key)
    const text = Buffer.from(tx).toString('utf8')
    if (text.startsWith('bad'))
      return { code: 5, data: new Uint8Array(0), log: 'insufficient funds', gasWanted: 0n, gasUsed: 0n, events: [], codespace: 'evm' }
    if (text.startsWith('commit')) {
      // Included in "block 4" shortly after.
      setTimeout(() => this.waiters.get(bytesToUpperHex(hashTx(tx)))?.({ height: 4, index: 0, tx, result: execResult(tx, 0) }), 30)
    }
    return { code: 0, data: new Uint8Array([0xab, 0xcd]), log: '', gasWanted: 21000n, gasUsed: 0n, events: [], codespace: '' }
  }
  waitForTx(hash: Uint8Array, signal: AbortSignal): Promise<TxResult> {
    return new Promise((resolve, reject) => {
      const key = bytesToUpperHex(hash)
      this.waiters.set(key, resolve)
      signal.addEventListener('abort', () => {
        this.waiters.delete(key)
        reject(new Error('aborted'))
      })
    })
  }
  checkTx(tx: Uint8Array): CheckTxResponse {
    return {
      code: tx.length === 0 ? 1 : 0,
      data: new Uint8Array(0),
      log: tx.length === 0 ? 'empty tx' : '',
      info: '',
      gasWanted: 5n,
      gasUsed: 3n,
      events: [{ type: 'check', attributes: [{ key: 'k', value: 'v', index: false }] }],
      codespace: '',
    }
  }
  abciInfo(): InfoResponse {
    return { data: 'nodectl', version: '0.1.0', appVersion: 0n, lastBlockHeight: 3, lastBlockAppHash: hexToBytes('AB'.repeat(32)) }
  }
  abciQuery(req: AbciQueryRequest): QueryResponse {
    return {
      code: 0,
      log: '',
      info: req.path,
      index: 0n,
      key: req.data,
      value: utf8ToBytes('value'),
      height: req.height === 0n ? 3 : Number(req.height),
      codespace: '',
    }
  }
  roundState(): RoundStateSummary {
    const s3 = this.stored(3)
    const vote = (i: number, type: typeof SignedMsgType.Prevote | typeof SignedMsgType.Precommit): Vote => ({
      type,
      height: 4,
      round: 0,
      blockId: s3.meta.blockId,
      timestamp: { seconds: 1_700_000_010, nanos: 5 },
      validatorAddress: this.set.validators[i]!.address,
      validatorIndex: i,
      signature: new Uint8Array(64).fill(7),
    })
    return {
      height: 4,
      round: 0,
      step: RoundStep.Prevote,
      startTime: { seconds: 1_700_000_004, nanos: 0 },
      commitTime: { seconds: 1_700_000_003, nanos: 0 },
      validators: this.set,
      proposalBlock: s3.block,
      proposalBlockParts: { count: 1, total: 1, have: [true] },
      lockedRound: -1,
      validRound: -1,
      votes: [{ round: 0, prevotes: [vote(0, SignedMsgType.Prevote), undefined], precommits: [undefined, undefined] }],
      commitRound: -1,
      lastCommit: [vote(0, SignedMsgType.Precommit), vote(1, SignedMsgType.Precommit)],
      lastValidators: this.set,
      triggeredTimeoutPrecommit: false,
    }
  }
  addEvidence(ev: DuplicateVoteEvidence): void {
    if (ev.voteA.height > 3) throw new Error('evidence from the future')
    this.evidence.push(ev)
  }
}
