/**
 * Builds, validates and applies blocks against the chain state (CometBFT `state/execution.go` and
 * `state/validation.go`). Applying a height is one atomic database batch: the app's writes, the block,
 * its commit, the FinalizeBlock response and the new state are staged, then written by ONE
 * `db.commitStaged()`; only then is the mempool updated and are the block events emitted.
 */
import type { BlockStore } from '../chain/comet/block-store.js'
import { fillHeaderHashes, hashCommit, hashConsensusParams, hashData, hashEvidence } from '../chain/comet/hash.js'
import { blockIdEquals } from '../chain/comet/part-set.js'
import { BLOCK_PROTOCOL_VERSION, type Block, type BlockID, type Commit, type Validator } from '../chain/comet/types.js'
import { medianTime, validatorAddress, type ValidatorSet } from '../chain/comet/validator-set.js'
import type { Database } from '../db/database.js'
import { bytesToUpperHex, equalBytes } from '../primitives/hex.js'
import type { TypedEmitter } from '../utils/events.js'
import type { Logger } from '../utils/logger.js'
import { compareTime, formatRfc3339Nano } from '../utils/time.js'
import type { Application, CommitInfo, FinalizeBlockResponse, Mempool } from './application.js'
import { blockHash } from './block-hash.js'
import { MAX_BLOCK_SIZE_BYTES, updateState, type ChainState } from './chain-state.js'
import type { ConsensusEvents } from './events.js'
import type { StateStore } from './state-store.js'

/** CometBFT `MaxHeaderBytes`: soft maximum of an encoded header. */
const MAX_HEADER_BYTES = 626
/** CometBFT `MaxOverheadForBlock`: block encoding overhead besides the header, commit and txs. */
const MAX_OVERHEAD_FOR_BLOCK = 11
/** CometBFT `MaxCommitOverheadBytes` and `MaxCommitSigBytes` (+3 bytes of repeated-field overhead per sig). */
const MAX_COMMIT_OVERHEAD_BYTES = 94
const MAX_COMMIT_SIG_BYTES = 109
const COMMIT_SIG_PROTO_OVERHEAD = 3
/** Proposer addresses are 20 bytes. */
const ADDRESS_BYTES = 20

/** `types.MaxDataBytes`: room for txs in a block of `maxBytes` with `valCount` commit signatures. */
export function maxDataBytes(maxBytes: number, evidenceBytes: number, valCount: number): number {
  const commitBytes = MAX_COMMIT_OVERHEAD_BYTES + (MAX_COMMIT_SIG_BYTES + COMMIT_SIG_PROTO_OVERHEAD) * valCount
  const n = maxBytes - MAX_OVERHEAD_FOR_BLOCK - MAX_HEADER_BYTES - commitBytes - evidenceBytes
  if (n < 0) throw new Error(`negative MaxDataBytes: block.MaxBytes ${maxBytes} is too small for ${valCount} validators`)
  return n
}

/** Protobuf size of `Data{txs}` (`ComputeProtoSizeForTxs`). */
export function txsProtoSize(txs: Uint8Array[]): number {
  let n = 0
  for (const tx of txs) n += 1 + uvarintSize(tx.length) + tx.length
  return n
}

function uvarintSize(n: number): number {
  let size = 1
  while (n >= 0x80) {
    n = Math.floor(n / 0x80)
    size++
  }
  return size
}

/** ABCI `CommitInfo` of a commit signed by `validators` (one entry per validator, in set order). */
export function buildCommitInfo(commit: Commit, validators: ValidatorSet): CommitInfo {
  if (commit.signatures.length === 0) return { round: commit.round, votes: [] }
  if (commit.signatures.length !== validators.size) {
    throw new Error(`commit size (${commit.signatures.length}) doesn't match validator set length (${validators.size}) at height ${commit.height}`)
  }
  return {
    round: commit.round,
    votes: validators.validators.map((v, i) => ({ validatorAddress: v.address, power: v.votingPower, blockIdFlag: commit.signatures[i]!.blockIdFlag })),
  }
}

/**
 * `state.MakeBlock`: header from the state (version {11, app}, chain id, time = genesis time at the initial
 * height else MedianTime(lastCommit, lastValidators), last block id, validator/consensus/app/results
 * hashes, proposer), then the derived hashes (data, last commit, evidence).
 */
export function makeBlock(state: ChainState, height: number, txs: Uint8Array[], lastCommit: Commit, proposerAddress: Uint8Array): Block {
  const time = height === state.initialHeight ? state.lastBlockTime : medianTime(lastCommit, state.lastValidators)
  const empty = new Uint8Array(0)
  const block: Block = {
    header: {
      version: { block: BLOCK_PROTOCOL_VERSION, app: state.appVersion },
      chainId: state.chainId,
      height,
      time,
      lastBlockId: state.lastBlockId,
      lastCommitHash: empty,
      dataHash: empty,
      validatorsHash: state.validators.hash(),
      nextValidatorsHash: state.nextValidators.hash(),
      consensusHash: hashConsensusParams(state.consensusParams),
      appHash: state.appHash,
      lastResultsHash: state.lastResultsHash,
      evidenceHash: empty,
      proposerAddress,
    },
    txs,
    evidence: [],
    lastCommit,
  }
  fillHeaderHashes(block)
  return block
}

/**
 * Stages index entries of a height into its atomic batch (the kv event indexer): called after
 * FinalizeBlock and before `db.commitStaged()`, so the index is written with the block or not at all.
 * It must only stage (`db.stagePut`), never write or throw for the application's data.
 */
export interface BlockIndexHook {
  stageBlock(block: Block, response: FinalizeBlockResponse): void | Promise<void>
}

export interface BlockExecutorOptions {
  db: Database
  blockStore: BlockStore
  stateStore: StateStore
  app: Application
  mempool: Mempool
  events: TypedEmitter<ConsensusEvents>
  logger: Logger
  /** Optional indexer staged into each height's batch (`[tx_index] indexer = "kv"`). */
  indexer?: BlockIndexHook
}

export class BlockExecutor {
  /** CometBFT caches the last block that passed validation (validation verifies the whole last commit). */
  private lastValidated: { hash: Uint8Array; stateHeight: number } | undefined

  constructor(private readonly opts: BlockExecutorOptions) {}

  /**
   * `CreateProposalBlock`: reap the mempool within the byte and gas limits, let the app reorder/replace
   * in PrepareProposal, and build the block from what it returns.
   */
  async createProposalBlock(state: ChainState, height: number, lastCommit: Commit, proposerAddress: Uint8Array): Promise<Block> {
    const unlimited = state.consensusParams.block.maxBytes === -1n
    const maxBytes = unlimited ? MAX_BLOCK_SIZE_BYTES : Number(state.consensusParams.block.maxBytes)
    const maxData = maxDataBytes(maxBytes, 0, state.validators.size)
    const txs = this.opts.mempool.reapMaxBytesMaxGas(unlimited ? -1 : maxData, state.consensusParams.block.maxGas)
    const draft = makeBlock(state, height, txs, lastCommit, proposerAddress)
    const localLastCommit = height === state.initialHeight ? { round: 0, votes: [] } : buildCommitInfo(lastCommit, state.lastValidators)
    const prepared = await this.opts.app.prepareProposal({
      maxTxBytes: maxData,
      txs,
      localLastCommit,
      height,
      time: draft.header.time,
      nextValidatorsHash: draft.header.nextValidatorsHash,
      proposerAddress,
    })
    const size = txsProtoSize(prepared.txs)
    if (size > maxData) throw new Error(`transaction data size exceeds maximum ${maxData}: PrepareProposal returned ${size} bytes`)
    return makeBlock(state, height, prepared.txs, lastCommit, proposerAddress)
  }

  /** `ValidateBlock`: throws with CometBFT's reason when the block cannot follow `state`. */
  validateBlock(state: ChainState, block: Block): void {
    const hash = blockHash(block)
    const cached = this.lastValidated
    if (cached && cached.stateHeight === state.lastBlockHeight && equalBytes(cached.hash, hash)) return
    validateBlockAgainstState(state, block)
    this.lastValidated = { hash, stateHeight: state.lastBlockHeight }
  }

  /** ABCI ProcessProposal for a block that passed validation. */
  async processProposal(state: ChainState, block: Block): Promise<boolean> {
    const res = await this.opts.app.processProposal({
      txs: block.txs,
      proposedLastCommit: this.lastCommitInfo(state, block),
      hash: blockHash(block),
      height: block.header.height,
      time: block.header.time,
      nextValidatorsHash: block.header.nextValidatorsHash,
      proposerAddress: block.header.proposerAddress,
    })
    return res.accept
  }

  /**
   * Applies a decided, validated block (the caller has already written `#ENDHEIGHT` to the WAL):
   * FinalizeBlock → updateState → stage block + seen commit, response and state → app Commit → ONE
   * atomic batch → mempool update → events. Returns the new state. A failure discards the staged
   * writes and throws (the node must stop: the height is not applied).
   */
  async applyBlock(state: ChainState, blockId: BlockID, block: Block, blockSize: number, seenCommit: Commit): Promise<ChainState> {
    const { db, app, blockStore, stateStore, mempool, logger } = this.opts
    const height = block.header.height
    let response: FinalizeBlockResponse
    let next: ChainState
    try {
      response = await app.finalizeBlock({
        txs: block.txs,
        decidedLastCommit: this.lastCommitInfo(state, block),
        hash: blockId.hash,
        height,
        time: block.header.time,
        nextValidatorsHash: block.header.nextValidatorsHash,
        proposerAddress: block.header.proposerAddress,
      })
      if (response.txResults.length !== block.txs.length) {
        throw new Error(`expected tx results length to match size of transactions in block. Expected ${block.txs.length}, got ${response.txResults.length}`)
      }
      next = updateState(state, blockId, block.header, response)
      blockStore.saveBlock(block, blockId, blockSize, seenCommit)
      stateStore.stageFinalizeBlockResponse(height, response)
      stateStore.stageSave(next)
      await this.opts.indexer?.stageBlock(block, response)
      await app.commit()
      await db.commitStaged()
    } catch (err) {
      db.discardStaged()
      // The block store counted the staged block; forget it.
      await blockStore.open()
      throw err
    }
    logger.info('committed block', { height, txs: block.txs.length, hash: bytesToUpperHex(blockId.hash), appHash: bytesToUpperHex(response.appHash) })
    await mempool.update(height, block.txs, response.txResults)
    this.fireEvents(block, blockId, response)
    return next
  }

  /** The decided last commit as ABCI CommitInfo (empty at the initial height). */
  lastCommitInfo(state: ChainState, block: Block): CommitInfo {
    if (block.header.height === state.initialHeight) return { round: 0, votes: [] }
    return buildCommitInfo(block.lastCommit, state.lastValidators)
  }

  private fireEvents(block: Block, blockId: BlockID, response: FinalizeBlockResponse): void {
    const height = block.header.height
    this.emit('NewBlock', { block, blockId, response })
    this.emit('NewBlockHeader', { header: block.header })
    this.emit('NewBlockEvents', { height, events: response.events, numTxs: block.txs.length })
    block.txs.forEach((tx, index) => this.emit('Tx', { height, index, tx, result: response.txResults[index]! }))
    if (response.validatorUpdates.length > 0) {
      const validatorUpdates: Validator[] = response.validatorUpdates.map((u) => ({
        address: validatorAddress(u.pubKey),
        pubKey: u.pubKey,
        votingPower: u.power,
        proposerPriority: 0n,
      }))
      this.emit('ValidatorSetUpdates', { validatorUpdates })
    }
  }

  /** A throwing listener must not break consensus. */
  private emit<K extends keyof ConsensusEvents>(name: K, payload: ConsensusEvents[K]): void {
    try {
      this.opts.events.emit(name, payload)
    } catch (err) {
      this.opts.logger.error('event listener failed', { event: name, err })
    }
  }
}

/** `state/validation.go validateBlock` (plus the hash checks of `Block.ValidateBasic`). */
export function validateBlockAgainstState(state: ChainState, block: Block): void {
  const h = block.header
  if (h.version.block !== BLOCK_PROTOCOL_VERSION || h.version.app !== state.appVersion) {
    throw new Error(`wrong Block.Header.Version. Expected {${BLOCK_PROTOCOL_VERSION} ${state.appVersion}}, got {${h.version.block} ${h.version.app}}`)
  }
  if (h.chainId !== state.chainId) throw new Error(`wrong Block.Header.ChainID. Expected ${state.chainId}, got ${h.chainId}`)
  if (state.lastBlockHeight === 0 && h.height !== state.initialHeight) {
    throw new Error(`wrong Block.Header.Height. Expected ${state.initialHeight} for initial block, got ${h.height}`)
  }
  if (state.lastBlockHeight > 0 && h.height !== state.lastBlockHeight + 1) {
    throw new Error(`wrong Block.Header.Height. Expected ${state.lastBlockHeight + 1}, got ${h.height}`)
  }
  if (!blockIdEquals(h.lastBlockId, state.lastBlockId)) throw new Error('wrong Block.Header.LastBlockID')
  if (!equalBytes(h.appHash, state.appHash)) throw new Error(`wrong Block.Header.AppHash. Expected ${bytesToUpperHex(state.appHash)}, got ${bytesToUpperHex(h.appHash)}`)
  if (!equalBytes(h.consensusHash, hashConsensusParams(state.consensusParams))) throw new Error('wrong Block.Header.ConsensusHash')
  if (!equalBytes(h.lastResultsHash, state.lastResultsHash)) throw new Error('wrong Block.Header.LastResultsHash')
  if (!equalBytes(h.validatorsHash, state.validators.hash())) throw new Error('wrong Block.Header.ValidatorsHash')
  if (!equalBytes(h.nextValidatorsHash, state.nextValidators.hash())) throw new Error('wrong Block.Header.NextValidatorsHash')
  // Block.ValidateBasic: the derived hashes bind txs, last commit and evidence to the header hash.
  if (!equalBytes(h.lastCommitHash, hashCommit(block.lastCommit))) throw new Error('wrong Header.LastCommitHash')
  if (!equalBytes(h.dataHash, hashData(block.txs))) throw new Error('wrong Header.DataHash')
  if (!equalBytes(h.evidenceHash, hashEvidence(block.evidence))) throw new Error('wrong Header.EvidenceHash')
  if (h.proposerAddress.length !== ADDRESS_BYTES) throw new Error(`invalid ProposerAddress length; got: ${h.proposerAddress.length}, expected: ${ADDRESS_BYTES}`)
  if (h.height === state.initialHeight) {
    if (block.lastCommit.signatures.length !== 0) throw new Error("initial block can't have LastCommit signatures")
  } else {
    state.lastValidators.verifyCommit(state.chainId, state.lastBlockId, h.height - 1, block.lastCommit)
  }
  if (!state.validators.getByAddress(h.proposerAddress)) throw new Error(`block.Header.ProposerAddress ${bytesToUpperHex(h.proposerAddress)} is not a validator`)
  if (h.height > state.initialHeight) {
    if (compareTime(h.time, state.lastBlockTime) <= 0) {
      throw new Error(`block time ${formatRfc3339Nano(h.time)} not greater than last block time ${formatRfc3339Nano(state.lastBlockTime)}`)
    }
    const median = medianTime(block.lastCommit, state.lastValidators)
    if (compareTime(h.time, median) !== 0) throw new Error(`invalid block time. Expected ${formatRfc3339Nano(median)}, got ${formatRfc3339Nano(h.time)}`)
  } else if (h.height === state.initialHeight) {
    if (compareTime(h.time, state.lastBlockTime) !== 0) {
      throw new Error(`block time ${formatRfc3339Nano(h.time)} is not equal to genesis time ${formatRfc3339Nano(state.lastBlockTime)}`)
    }
  } else {
    throw new Error(`block height ${h.height} lower than initial height ${state.initialHeight}`)
  }
  // No evidence pool yet: a block carrying evidence cannot be verified, so it is not accepted.
  if (block.evidence.length > 0) throw new Error('block evidence is not supported by this node yet')
}
