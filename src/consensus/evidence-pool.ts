/**
 * The evidence pool (CometBFT v0.38 `evidence/pool.go`, `evidence/verify.go`): DuplicateVoteEvidence from
 * `broadcast_evidence` and from the engine's own conflicting votes is verified against the stored chain,
 * kept pending (persisted, so it survives a restart) until a block commits it, and remembered as committed
 * so it is never accepted twice. Proposals take pending evidence within `evidence.max_bytes`; a received
 * block's evidence is checked with the same rules (`checkEvidence`).
 */
import type { BlockStore } from '../comet/block-store.js'
import { blockIdKey } from '../comet/part-set.js'
import type { DuplicateVoteEvidence, Vote } from '../comet/types.js'
import type { Database } from '../db/database.js'
import type { WriteStage } from '../db/write-stage.js'
import { bytesToUpperHex } from '../primitives/hex.js'
import type { Logger } from '../utils/logger.js'
import { compareTime, formatRfc3339Nano, fromNanos, toNanos, type Timestamp } from '../utils/time.js'
import type { ChainState } from './chain-state.js'
import {
  InvalidEvidenceError,
  evidenceListEntrySize,
  expiredMessage,
  isEvidenceExpired,
  newDuplicateVoteEvidence,
  validateEvidenceBasic,
  verifyDuplicateVote,
} from './evidence.js'
import { EvidenceStore, evidenceRecord, type EvidenceRecord } from './evidence-store.js'
import type { StateStore } from './state-store.js'

/**
 * Conflicting vote pairs held until their height is committed. CometBFT's buffer is unbounded; a
 * validator re-gossiping many distinct equivocations must not grow ours without limit.
 */
const MAX_BUFFERED_CONFLICTS = 1000
/** CometBFT schedules the next prune one second after the oldest pending evidence expires. */
const PRUNE_SLACK_NS = 1_000_000_000n

/** What the state machine needs from the pool (CometBFT consensus `evidencePool`). */
export interface ConflictingVoteReporter {
  /** Two signed votes of one validator for the same height/round/type; the first is the one held. */
  reportConflictingVotes(voteA: Vote, voteB: Vote): void
}

export interface EvidencePoolOptions {
  db: Database
  blockStore: BlockStore
  /** Validator sets by height. */
  stateStore: StateStore
  /** The latest committed state (after the handshake). */
  state: ChainState
  logger: Logger
  /** Called with each evidence that becomes pending (the p2p layer gossips it). */
  onPending?: (ev: DuplicateVoteEvidence) => void
}

export class EvidencePool implements ConflictingVoteReporter {
  private state: ChainState
  private readonly store: EvidenceStore
  private readonly log: Logger
  /** Pending evidence by record id (height ‖ hash, so sorting the ids gives CometBFT's order). */
  private readonly pending = new Map<string, EvidenceRecord>()
  private buffer: { voteA: Vote; voteB: Vote }[] = []
  private bufferKeys = new Set<string>()
  /** Nothing expires before this height and time (`pruningHeight`, `pruningTime`). */
  private pruningHeight = 0
  private pruningTime: Timestamp = { seconds: 0, nanos: 0 }

  private constructor(private readonly opts: EvidencePoolOptions) {
    this.state = opts.state
    this.store = new EvidenceStore(opts.db)
    this.log = opts.logger
  }

  /** `NewPool`: loads the pending evidence kept on disk and prunes what expired meanwhile. */
  static async open(opts: EvidencePoolOptions): Promise<EvidencePool> {
    const pool = new EvidencePool(opts)
    for (const r of await pool.store.loadPending()) {
      // A pending record written just before its block's batch may outlive it: it is committed, not pending.
      if (await pool.store.isCommitted(r)) await pool.store.deletePending(r)
      else pool.pending.set(r.id, r)
    }
    await pool.removeExpired()
    return pool
  }

  /** Number of pending evidence. */
  get size(): number {
    return this.pending.size
  }

  /** Every pending evidence, oldest first. */
  pendingList(): DuplicateVoteEvidence[] {
    return this.sortedPending().map((r) => r.ev)
  }

  /**
   * `AddEvidence` (broadcast_evidence): already pending is a no-op; already committed is refused
   * (CometBFT ignores it silently; a second broadcast of committed evidence is reported here); otherwise
   * verified, persisted and kept for the next proposals. Throws InvalidEvidenceError with the reason.
   */
  async add(ev: DuplicateVoteEvidence): Promise<void> {
    const r = evidenceRecord(ev)
    if (this.pending.has(r.id)) return
    if (await this.store.isCommitted(r)) throw new InvalidEvidenceError('evidence was already committed')
    try {
      await this.verify(ev)
    } catch (err) {
      throw new InvalidEvidenceError((err as Error).message)
    }
    // The block committing it may have been written while we verified.
    if (this.pending.has(r.id)) return
    if (await this.store.isCommitted(r)) throw new InvalidEvidenceError('evidence was already committed')
    await this.addPending(r)
    this.log.info('verified new evidence of byzantine behavior', logFields(ev))
  }

  /** `ReportConflictingVotes`: held, unverified, until their height is committed (`update`). */
  reportConflictingVotes(voteA: Vote, voteB: Vote): void {
    const [k1, k2] = [blockIdKey(voteA.blockId), blockIdKey(voteB.blockId)].sort()
    const key = `${voteA.height}/${voteA.round}/${voteA.type}/${bytesToUpperHex(voteA.validatorAddress)}/${k1}/${k2}`
    if (this.bufferKeys.has(key) || this.buffer.length >= MAX_BUFFERED_CONFLICTS) return
    this.bufferKeys.add(key)
    this.buffer.push({ voteA, voteB })
  }

  /**
   * `PendingEvidence(maxBytes)`: pending evidence, oldest first, while the evidence list stays within
   * `maxBytes` (-1 = no cap); `size` is the list's protobuf size (what `MaxDataBytes` subtracts).
   */
  pendingEvidence(maxBytes: number): { evidence: DuplicateVoteEvidence[]; size: number } {
    const evidence: DuplicateVoteEvidence[] = []
    let size = 0
    if (this.pending.size === 0) return { evidence, size }
    for (const r of this.sortedPending()) {
      const next = size + evidenceListEntrySize(r.bytes.length)
      if (maxBytes !== -1 && next > maxBytes) break
      size = next
      evidence.push(r.ev)
    }
    return { evidence, size }
  }

  /**
   * `CheckEvidence`: every evidence of a proposed block is pending (verified before) or verifies now
   * and becomes pending, none is committed already, and none appears twice.
   */
  async checkEvidence(list: DuplicateVoteEvidence[]): Promise<void> {
    const seen = new Set<string>()
    for (const ev of list) {
      const r = evidenceRecord(ev)
      if (!this.pending.has(r.id)) {
        if (await this.store.isCommitted(r)) throw new InvalidEvidenceError('evidence was already committed')
        await this.verify(ev)
        try {
          await this.addPending(r)
        } catch (err) {
          this.log.error("can't add evidence to pending list", { err, ...logFields(ev) })
        }
        this.log.info('check evidence: verified evidence of byzantine behavior', logFields(ev))
      }
      if (seen.has(r.id)) throw new InvalidEvidenceError('duplicate evidence')
      seen.add(r.id)
    }
  }

  /** Stages the move of a block's evidence from pending to committed into the engine's stage. */
  stageCommitted(stage: WriteStage, evidence: DuplicateVoteEvidence[], blockHeight: number): void {
    for (const ev of evidence) this.store.stageCommitted(stage, evidenceRecord(ev), blockHeight)
  }

  /**
   * A dev chain's revert (`ConsensusEngine.rewind`): the chain is back at `state`. A dev chain has one
   * validator and so no evidence; what is pending was about the removed heights and is dropped.
   */
  rewind(state: ChainState): void {
    this.state = state
    this.pending.clear()
  }

  /**
   * `Update` after a block was committed (its batch written): the buffered conflicting votes become
   * evidence (their heights are now committed, so the block time is known), the committed evidence
   * leaves the pending set, and expired evidence is pruned.
   */
  async update(state: ChainState, committed: DuplicateVoteEvidence[]): Promise<void> {
    if (state.lastBlockHeight <= this.state.lastBlockHeight) {
      throw new Error(
        `failed EvidencePool.Update new state height is less than or equal to previous state height: ${state.lastBlockHeight} <= ${this.state.lastBlockHeight}`,
      )
    }
    await this.processConsensusBuffer(state)
    this.state = state
    for (const ev of committed) this.pending.delete(evidenceRecord(ev).id)
    if (this.pending.size > 0 && state.lastBlockHeight > this.pruningHeight && compareTime(state.lastBlockTime, this.pruningTime) > 0) {
      // The block is committed already: a failed prune is retried at the next height, never fatal.
      await this.removeExpired().catch((err: unknown) => this.log.error('unable to prune expired evidence', { err }))
    }
  }

  /**
   * `verify`: the shape, the block at the evidence height exists and its time is the evidence's
   * timestamp, not expired (both age limits passed), and `VerifyDuplicateVote` against that height's set.
   */
  private async verify(ev: DuplicateVoteEvidence): Promise<void> {
    validateEvidenceBasic(ev)
    const { state } = this
    const height = ev.voteA.height
    const meta = height <= state.lastBlockHeight ? await this.opts.blockStore.loadBlockMeta(height) : undefined
    if (!meta) throw new Error(`don't have header #${height}`)
    const evTime = meta.header.time
    if (compareTime(ev.timestamp, evTime) !== 0) {
      throw new Error(
        `evidence has a different time to the block it is associated with (${formatRfc3339Nano(ev.timestamp)} != ${formatRfc3339Nano(evTime)})`,
      )
    }
    const params = state.consensusParams.evidence
    if (isEvidenceExpired(state.lastBlockHeight, state.lastBlockTime, height, evTime, params))
      throw new Error(expiredMessage(ev, state.lastBlockHeight, state.lastBlockTime, params))
    const valSet = await this.opts.stateStore.loadValidators(height)
    if (!valSet) throw new Error(`could not find validator set for height #${height}`)
    verifyDuplicateVote(ev, state.chainId, valSet)
  }

  /** `processConsensusBuffer`: evidence from the votes reported since the last height, with that height's time and set. */
  private async processConsensusBuffer(state: ChainState): Promise<void> {
    if (this.buffer.length === 0) return
    const buffered = this.buffer
    this.buffer = []
    this.bufferKeys = new Set()
    for (const { voteA, voteB } of buffered) {
      try {
        let ev: DuplicateVoteEvidence
        if (voteA.height === state.lastBlockHeight) {
          ev = newDuplicateVoteEvidence(voteA, voteB, state.lastBlockTime, state.lastValidators)
        } else if (voteA.height < state.lastBlockHeight) {
          const valSet = await this.opts.stateStore.loadValidators(voteA.height)
          const meta = await this.opts.blockStore.loadBlockMeta(voteA.height)
          if (!valSet || !meta) {
            this.log.error('failed to load validator set or block time for conflicting votes', { height: voteA.height })
            continue
          }
          ev = newDuplicateVoteEvidence(voteA, voteB, meta.header.time, valSet)
        } else {
          this.log.error('inbound duplicate votes from consensus are of a greater height than current state', {
            height: voteA.height,
            lastBlockHeight: state.lastBlockHeight,
          })
          continue
        }
        const r = evidenceRecord(ev)
        if (this.pending.has(r.id) || (await this.store.isCommitted(r))) continue
        await this.addPending(r)
        this.log.info('verified new evidence of byzantine behavior', logFields(ev))
      } catch (err) {
        this.log.error('error in generating evidence from votes', { height: voteA.height, err })
      }
    }
  }

  /**
   * `removeExpiredPendingEvidence`: drops expired evidence, oldest first, up to the first that is still
   * valid, and records when that one expires (the next time pruning is worth a look).
   */
  private async removeExpired(): Promise<void> {
    const { lastBlockHeight, lastBlockTime, consensusParams } = this.state
    const params = consensusParams.evidence
    for (const r of this.sortedPending()) {
      if (!isEvidenceExpired(lastBlockHeight, lastBlockTime, r.ev.voteA.height, r.ev.timestamp, params)) {
        this.pruningHeight = r.ev.voteA.height + Number(params.maxAgeNumBlocks) + 1
        this.pruningTime = fromNanos(toNanos(r.ev.timestamp) + params.maxAgeDurationNs + PRUNE_SLACK_NS)
        return
      }
      this.pending.delete(r.id)
      await this.store.deletePending(r)
      this.log.info('pruned expired evidence', logFields(r.ev))
    }
    this.pruningHeight = lastBlockHeight
    this.pruningTime = lastBlockTime
  }

  private async addPending(r: EvidenceRecord): Promise<void> {
    this.pending.set(r.id, r)
    try {
      await this.store.savePending(r)
    } catch (err) {
      this.pending.delete(r.id)
      throw new Error(`can't add evidence to pending list: ${(err as Error).message}`)
    }
    try {
      this.opts.onPending?.(r.ev)
    } catch (err) {
      this.log.error('pending evidence listener failed', { err })
    }
  }

  private sortedPending(): EvidenceRecord[] {
    return [...this.pending.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  }
}

/** Log context of one evidence. */
function logFields(ev: DuplicateVoteEvidence): Record<string, unknown> {
  return { height: ev.voteA.height, round: ev.voteA.round, type: ev.voteA.type, validator: bytesToUpperHex(ev.voteA.validatorAddress) }
}
