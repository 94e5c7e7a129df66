/**
 * Builds, validates and applies blocks against the chain state (CometBFT `state/execution.go`; the
 * checks of `state/validation.go` are in validate-block.ts). Blocks carry the pool's pending evidence
 * and are checked against it.
 *
 * Applying a height (`applyBlock`), each side writes its own data in its own atomic batch, in
 * CometBFT's order:
 * 1. FinalizeBlock: the application computes the results and the app hash; it writes nothing.
 * 2. The engine writes the block with its seen commit, the FinalizeBlock response and the height's
 *    event index (CometBFT saves the block before execution and the response right after it).
 * 3. The application's Commit writes the application's height (its own batch) under the mempool lock.
 * 4. The engine writes the new chain state and the block's evidence as committed.
 * A crash between any two of these is healed at start-up by the handshake (handshake.ts). Only after
 * step 4 is the height published: first the application's view of it (`onCommitted`, which newHeads
 * and log subscribers wait for), then, once the mempool is updated and the evidence pool told, the
 * consensus events, in `fireEvents`' order. The application's view goes out before the mempool update
 * (which reads every pooled sender's account at the new state) because nothing it shows depends on the
 * pool, and admissions wait for the mempool lock, held until the update is done, as in CometBFT.
 */
import { uvarintSize } from '../comet/proto.js'
import type { BlockStore } from '../comet/block-store.js'
import { fillHeaderHashes, hashConsensusParams } from '../comet/hash.js'
import {
  BLOCK_PROTOCOL_VERSION,
  type Block,
  type BlockID,
  type Commit,
  type DuplicateVoteEvidence,
  type Validator,
} from '../comet/types.js'
import { medianTime, validatorAddress, type ValidatorSet } from '../comet/validator-set.js'
import type { Database } from '../db/database.js'
import { WriteStage } from '../db/write-stage.js'
import { bytesToUpperHex, equalBytes } from '../primitives/hex.js'
import type { TypedEmitter } from '../utils/events.js'
import type { Logger } from '../utils/logger.js'
import type { Application, CommitInfo, FinalizeBlockResponse, Misbehavior } from '../abci/application.js'
import type { Mempool } from './mempool.js'
import type { BlockIndexHook } from './block-index-hook.js'
import { BlockPruner } from './block-pruner.js'
import { blockHash } from './block-hash.js'
import { MAX_BLOCK_SIZE_BYTES, updateState, type ChainState } from './chain-state.js'
import type { ConsensusEvents } from './events.js'
import { evidenceMisbehavior } from './evidence.js'
import type { EvidencePool } from './evidence-pool.js'
import type { StateStore } from './state-store.js'
import { validateBlockAgainstState } from './validate-block.js'
import { EventLoopYield } from '../utils/event-loop-yield.js'

/** CometBFT `MaxHeaderBytes`: soft maximum of an encoded header. */
const MAX_HEADER_BYTES = 626
/** CometBFT `MaxOverheadForBlock`: block encoding overhead besides the header, commit and txs. */
const MAX_OVERHEAD_FOR_BLOCK = 11
/** CometBFT `MaxCommitOverheadBytes` and `MaxCommitSigBytes` (+3 bytes of repeated-field overhead per sig). */
const MAX_COMMIT_OVERHEAD_BYTES = 94
const MAX_COMMIT_SIG_BYTES = 109
const COMMIT_SIG_PROTO_OVERHEAD = 3

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

/** ABCI `CommitInfo` of a commit signed by `validators` (one entry per validator, in set order). */
export function buildCommitInfo(commit: Commit, validators: ValidatorSet): CommitInfo {
  if (commit.signatures.length === 0) return { round: commit.round, votes: [] }
  if (commit.signatures.length !== validators.size) {
    throw new Error(
      `commit size (${commit.signatures.length}) doesn't match validator set length (${validators.size}) at height ${commit.height}`,
    )
  }
  return {
    round: commit.round,
    votes: validators.validators.map((v, i) => ({
      validatorAddress: v.address,
      power: v.votingPower,
      blockIdFlag: commit.signatures[i]!.blockIdFlag,
    })),
  }
}

/**
 * `state.MakeBlock`: header from the state (version {11, app}, chain id, time = genesis time at the initial
 * height else MedianTime(lastCommit, lastValidators), last block id, validator/consensus/app/results
 * hashes, proposer), then the derived hashes (data, last commit, evidence).
 */
export function makeBlock(
  state: ChainState,
  height: number,
  txs: Uint8Array[],
  lastCommit: Commit,
  evidence: DuplicateVoteEvidence[],
  proposerAddress: Uint8Array,
): Block {
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
    evidence,
    lastCommit,
  }
  fillHeaderHashes(block)
  return block
}

export interface BlockExecutorOptions {
  db: Database
  blockStore: BlockStore
  stateStore: StateStore
  app: Application
  mempool: Mempool
  events: TypedEmitter<ConsensusEvents>
  /** Pending evidence for proposals; checks and records the evidence of blocks. */
  evidencePool: EvidencePool
  logger: Logger
  /** Optional indexer staged with each height's block (`[tx_index] indexer = "kv"`). */
  indexer?: BlockIndexHook
  /**
   * Called with each height once both sides have written it, before its consensus events: where the
   * node publishes the application's view of the height, so every surface hears of it in one order.
   */
  onCommitted?: (height: number) => void
}

export class BlockExecutor {
  /** CometBFT caches the last block that passed validation (validation verifies the whole last commit). */
  private lastValidated: { hash: Uint8Array; stateHeight: number } | undefined
  /** The engine's writes of the height being applied. */
  private readonly stage: WriteStage
  /** Prunes the stores below the application's retain height, in the background. */
  readonly pruner: BlockPruner

  constructor(private readonly opts: BlockExecutorOptions) {
    this.stage = opts.db.createStage()
    this.pruner = new BlockPruner({
      db: opts.db,
      blockStore: opts.blockStore,
      stateStore: opts.stateStore,
      logger: opts.logger,
      ...(opts.indexer ? { indexer: opts.indexer } : {}),
    })
  }

  /** Lets a pruning batch in progress finish; none starts afterwards. */
  close(): Promise<void> {
    return this.pruner.close()
  }

  /**
   * `CreateProposalBlock`: take pending evidence within `evidence.max_bytes`, reap the mempool within
   * the byte (what the evidence leaves) and gas limits, let the app reorder/replace in PrepareProposal,
   * and build the block from what it returns.
   */
  async createProposalBlock(state: ChainState, height: number, lastCommit: Commit, proposerAddress: Uint8Array): Promise<Block> {
    const unlimited = state.consensusParams.block.maxBytes === -1n
    const maxBytes = unlimited ? MAX_BLOCK_SIZE_BYTES : Number(state.consensusParams.block.maxBytes)
    const { evidence, size: evidenceBytes } = this.opts.evidencePool.pendingEvidence(Number(state.consensusParams.evidence.maxBytes))
    const maxData = maxDataBytes(maxBytes, evidenceBytes, state.validators.size)
    const txs = this.opts.mempool.reapMaxBytesMaxGas(unlimited ? -1 : maxData, state.consensusParams.block.maxGas)
    const draft = makeBlock(state, height, txs, lastCommit, evidence, proposerAddress)
    const localLastCommit = height === state.initialHeight ? { round: 0, votes: [] } : buildCommitInfo(lastCommit, state.lastValidators)
    const prepared = await this.opts.app.prepareProposal({
      maxTxBytes: maxData,
      txs,
      localLastCommit,
      misbehavior: misbehaviorOf(evidence),
      height,
      time: draft.header.time,
      nextValidatorsHash: draft.header.nextValidatorsHash,
      proposerAddress,
    })
    const size = txsProtoSize(prepared.txs)
    if (size > maxData) throw new Error(`transaction data size exceeds maximum ${maxData}: PrepareProposal returned ${size} bytes`)
    // The same txs (an application that keeps the pool's choice): the draft is the block.
    if (prepared.txs.length === txs.length && prepared.txs.every((tx, i) => tx === txs[i])) return draft
    return makeBlock(state, height, prepared.txs, lastCommit, evidence, proposerAddress)
  }

  /** Keeps every stage's writes in memory until `releaseWrites` (`Database.holdWrites`): a dev chain's run of heights. */
  holdWrites(): void {
    this.opts.db.holdWrites()
  }

  /** Writes what `holdWrites` kept, in one atomic batch. */
  releaseWrites(): Promise<void> {
    return this.opts.db.releaseWrites()
  }

  /** `ValidateBlock`: throws with CometBFT's reason when the block cannot follow `state` or its evidence is not valid. */
  async validateBlock(state: ChainState, block: Block): Promise<void> {
    const hash = blockHash(block)
    const cached = this.lastValidated
    if (cached && cached.stateHeight === state.lastBlockHeight && equalBytes(cached.hash, hash)) return
    validateBlockAgainstState(state, block)
    if (block.evidence.length > 0) await this.opts.evidencePool.checkEvidence(block.evidence)
    this.lastValidated = { hash, stateHeight: state.lastBlockHeight }
  }

  /** ABCI ProcessProposal for a block that passed validation. */
  async processProposal(state: ChainState, block: Block): Promise<boolean> {
    const res = await this.opts.app.processProposal({
      txs: block.txs,
      proposedLastCommit: this.lastCommitInfo(state, block),
      misbehavior: misbehaviorOf(block.evidence),
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
   * FinalizeBlock → updateState → write block + seen commit, response and index → mempool locked → app
   * Commit (the app's write) → write state and the block's evidence as committed → mempool update,
   * unlocked → evidence pool update → events → pruning below the app's retain height, in the
   * background (CometBFT prunes after Commit too). Returns the new state. A failure throws (the node must
   * stop: the height is not applied); what was written by then is healed by the handshake at restart.
   */
  async applyBlock(state: ChainState, blockId: BlockID, block: Block, blockSize: number, seenCommit: Commit): Promise<ChainState> {
    const { app, blockStore, stateStore, mempool, evidencePool, logger } = this.opts
    const { stage } = this
    const height = block.header.height
    let response: FinalizeBlockResponse
    let next: ChainState
    let unlock: (() => void) | undefined
    let retainHeight = 0
    // Started with the block's execution: it hands the loop over afterwards only when the block held it long.
    const turns = new EventLoopYield(1)
    try {
      response = await app.finalizeBlock({
        txs: block.txs,
        decidedLastCommit: this.lastCommitInfo(state, block),
        misbehavior: misbehaviorOf(block.evidence),
        hash: blockId.hash,
        height,
        time: block.header.time,
        nextValidatorsHash: block.header.nextValidatorsHash,
        proposerAddress: block.header.proposerAddress,
        blockSize,
      })
      if (response.txResults.length !== block.txs.length) {
        throw new Error(
          `expected tx results length to match size of transactions in block. Expected ${block.txs.length}, got ${response.txResults.length}`,
        )
      }
      // Admissions and reads waiting since the block began executing go first, when it held the loop
      // YIELD_EVERY_MS or more; nothing is staged yet. After a short block the head goes out first.
      await turns.poll()
      next = updateState(state, blockId, block.header, response)
      // A large block's results and index entries take tens of milliseconds to encode: they are staged
      // a slice at a time, handing the event loop over between slices, into a stage no read looks at,
      // then moved into the engine's with the block at once, so readers see all of the height or none.
      const scratch = WriteStage.scratch()
      await stateStore.saveFinalizeBlockResponse(scratch, height, response)
      await this.opts.indexer?.stageBlock(scratch, block, response)
      blockStore.saveBlock(stage, block, blockId, blockSize, seenCommit)
      stage.absorb(scratch)
      await stage.write()
    } catch (err) {
      stage.discard()
      // The block store counted the staged block; forget it.
      await blockStore.open()
      throw err
    }
    try {
      unlock = await mempool.lock()
      ;({ retainHeight } = await app.commit())
      stateStore.save(stage, next)
      evidencePool.stageCommitted(stage, block.evidence, height)
      await stage.write()
    } catch (err) {
      unlock?.()
      stage.discard()
      throw err
    }
    logger.info('committed block', {
      height,
      txs: block.txs.length,
      hash: bytesToUpperHex(blockId.hash),
      appHash: bytesToUpperHex(response.appHash),
    })
    this.publishCommitted(height)
    try {
      await mempool.update(height, block.txs, response.txResults)
    } finally {
      unlock()
    }
    await evidencePool.update(next, block.evidence)
    this.fireEvents(block, blockId, response)
    this.pruner.prune(retainHeight, next)
    return next
  }

  /** The decided last commit as ABCI CommitInfo (empty at the initial height). */
  lastCommitInfo(state: ChainState, block: Block): CommitInfo {
    if (block.header.height === state.initialHeight) return { round: 0, votes: [] }
    return buildCommitInfo(block.lastCommit, state.lastValidators)
  }

  /**
   * The application's view of a height both sides have written (`onCommitted`: the EVM block for
   * newHeads, log subscriptions and filters), as soon as it is written.
   */
  private publishCommitted(height: number): void {
    try {
      this.opts.onCommitted?.(height)
    } catch (err) {
      this.opts.logger.error('event listener failed', { event: 'committed', height, err })
    }
  }

  /**
   * Publishes a height's consensus events, after the mempool update, in this order: NewBlock,
   * NewBlockHeader, NewBlockEvents, NewEvidence (one per evidence), Tx (one per tx, in block order),
   * ValidatorSetUpdates.
   */
  private fireEvents(block: Block, blockId: BlockID, response: FinalizeBlockResponse): void {
    const height = block.header.height
    this.emit('NewBlock', { block, blockId, response })
    this.emit('NewBlockHeader', { header: block.header })
    this.emit('NewBlockEvents', { height, events: response.events, numTxs: block.txs.length })
    for (const evidence of block.evidence) this.emit('NewEvidence', { height, evidence })
    block.txs.forEach((tx, index) => {
      this.emit('Tx', { height, index, tx, result: response.txResults[index]! })
    })
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

/** The ABCI `Misbehavior` list of a block's evidence (`EvidenceList.ToABCI`). */
export function misbehaviorOf(evidence: DuplicateVoteEvidence[]): Misbehavior[] {
  return evidence.map(evidenceMisbehavior)
}
