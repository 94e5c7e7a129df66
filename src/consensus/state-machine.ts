/**
 * The Tendermint state machine (Buchman, Kwon, Milosevic, "The latest gossip on BFT consensus",
 * Algorithm 1) with CometBFT v0.38's steps, timeouts, locking rules and events (`consensus/state.go`).
 * One validator is the same algorithm with a quorum of one.
 *
 * Every message that changes state — proposals, block parts, votes (ours and peers'), timeouts and
 * "txs available" — goes through ONE queue and ONE loop (`run`): an item is handled to the end (all its
 * awaits included) before the next one starts, so the round state never changes under a handler. Our own
 * messages are queued like peers' ones (`sendInternal`), written to the WAL with fsync, handed to
 * `onOwnMessage` (the reactor sends them to peers), then handled; peers' messages are written to the WAL
 * buffered, then handled.
 *
 * The state machine does not talk to peers: the reactor (reactor.ts) hands it peers' messages
 * (`receivePeerMessage`) — only those it can use now or may (early ones wait in the reactor) — and gossips
 * from its round state, which others read through `roundState`, a read-only view.
 *
 * Layout, in protocol order: updateToState → enterNewRound → enterPropose → enterPrevote →
 * enterPrevoteWait → enterPrecommit → enterPrecommitWait → enterCommit → finalizeCommit; then the handlers
 * of messages (setProposal, addProposalBlockPart, addVote) that lead into them.
 */
import type { BlockStore } from '../comet/block-store.js'
import { emptyCommit } from '../comet/commit.js'
import { decodeBlock } from '../comet/encoding.js'
import { isCompleteBlockId, isZeroBlockId, makeBlockId, zeroBlockId } from '../comet/part-set.js'
import type { Part } from '../comet/types.js'
import { proposalSignBytes } from '../comet/sign-bytes.js'
import { BLOCK_PART_SIZE_BYTES, SignedMsgType, type Block, type BlockID, type Commit, type Proposal, type Vote } from '../comet/types.js'
import type { ValidatorSet } from '../comet/validator-set.js'
import type { ConsensusConfig } from '../config/node-config.js'
import { ed25519Verify } from '../crypto/index.js'
import { bytesToUpperHex, equalBytes } from '../primitives/hex.js'
import type { TypedEmitter } from '../utils/events.js'
import { NodeError } from '../utils/errors.js'
import type { Logger } from '../utils/logger.js'
import { addMillis, compareTime, GO_ZERO_TIME, now, toNanos, type Timestamp } from '../utils/time.js'
import type { Mempool } from './mempool.js'
import type { BlockExecutor } from './block-executor.js'
import { blockHash, hashesTo } from './block-hash.js'
import { BlockParts } from './block-parts.js'
import { MAX_BLOCK_SIZE_BYTES, copyState, nextHeight, type ChainState } from './chain-state.js'
import type { ConsensusEvents, RoundStateEvent } from './events.js'
import type { ConflictingVoteReporter } from './evidence-pool.js'
import { HeightVoteSet, UnwantedRoundError } from './height-vote-set.js'
import { messageHeightRound, type ConsensusMessage } from './messages.js'
import { precommitTimeout, prevoteTimeout, proposeTimeout, waitForTxs } from './options.js'
import type { MineRun, MiningControl } from './mining-control.js'
import type { PrivValidator } from './privval.js'
import { RoundStep, roundStepName } from './round-step.js'
import type { RoundStateView } from './round-state-view.js'
import { TimeoutTicker, type TimeoutInfo } from './timeout-ticker.js'
import { ConflictingVoteError, VoteError, type VoteSet } from './vote-set.js'
import type { TimedWalMessage, Wal } from './wal.js'

/** Progress of a long WAL catch-up is logged every this many messages. */
const REPLAY_LOG_EVERY = 500
/** ed25519 signatures are 64 bytes. */
const MAX_SIGNATURE_BYTES = 64

/** A proposal that cannot be accepted (bad POL round, signature, size). */
export class ProposalError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ProposalError'
  }
}

/** A run of heights asked at a moment or on a chain where it cannot be made; nothing was changed. */
export class MineRefusedError extends NodeError {}

export interface ConsensusStateOptions {
  config: ConsensusConfig
  /** The latest committed state (after the handshake). */
  state: ChainState
  /** Precommits of the last block, rebuilt from the stored seen commit (undefined at genesis). */
  lastCommit: VoteSet | undefined
  blockExec: BlockExecutor
  /** Receives the conflicting votes of other validators (the evidence pool). */
  evidence: ConflictingVoteReporter
  blockStore: BlockStore
  mempool: Mempool
  /** Undefined for a node that follows without voting. */
  privValidator: PrivValidator | undefined
  /** Each of our own proposals, block parts and votes, once durable in the WAL (the reactor sends it to peers). */
  onOwnMessage: (msg: ConsensusMessage) => void
  wal: Wal
  events: TypedEmitter<ConsensusEvents>
  logger: Logger
  /** Told once when the loop stops on an unrecoverable error (`fatalError`). */
  onFatal?: (err: Error) => void
  /** A dev chain's mining settings (mining-control.ts); absent on every other chain. */
  mining?: MiningControl
}

/** Which parts of a block's part set are in (`dump_consensus_state`). */
export interface PartSetProgress {
  count: number
  total: number
  /** By part index. */
  have: boolean[]
}

/** The votes of one round, by validator index (undefined = not received). */
export interface RoundVotes {
  round: number
  prevotes: (Vote | undefined)[]
  precommits: (Vote | undefined)[]
}

/** A snapshot of the round state (CometBFT `consensus/types.RoundState`), for the consensus RPC. */
export interface RoundStateSummary {
  height: number
  round: number
  step: RoundStep
  /** When round 0 of this height starts (commit time + timeout_commit). */
  startTime: Timestamp
  /** When the last commit step was entered; Go's zero time before any. */
  commitTime: Timestamp
  /** The validators of `height` with the current round's proposer priorities. */
  validators: ValidatorSet
  proposal?: Proposal
  proposalBlock?: Block
  proposalBlockParts?: PartSetProgress
  /** -1 when not locked. */
  lockedRound: number
  lockedBlock?: Block
  lockedBlockParts?: PartSetProgress
  /** -1 when there is no valid block. */
  validRound: number
  validBlock?: Block
  validBlockParts?: PartSetProgress
  /** Votes of every tracked round of `height`. */
  votes: RoundVotes[]
  /** -1 until a commit round is known. */
  commitRound: number
  /** Precommits of the previous height, by validator index. */
  lastCommit?: (Vote | undefined)[]
  lastValidators?: ValidatorSet
  triggeredTimeoutPrecommit: boolean
}

type QueueItem =
  /** `written`: an own message already in the WAL, written with the one queued before it. */
  | { kind: 'msg'; msg: ConsensusMessage; peerId: string; written?: boolean }
  | { kind: 'timeout'; ti: TimeoutInfo }
  | { kind: 'txsAvailable' }
  | { kind: 'commitRetry'; height: number }
  | { kind: 'drained'; resolve: () => void }
  | { kind: 'mine'; run: MineRun; resolve: () => void; reject: (err: Error) => void }

export class ConsensusState {
  // ---- RoundState (CometBFT consensus/types/round_state.go); read from outside through `roundState` ----
  private height = 0
  private round = 0
  private step: RoundStep = RoundStep.NewHeight
  private startTime: Timestamp = now()
  private commitTime: Timestamp | undefined
  private validators!: ValidatorSet
  private proposal: Proposal | undefined
  private proposalBlock: Block | undefined
  private proposalBlockParts: BlockParts | undefined
  private lockedRound = -1
  private lockedBlock: Block | undefined
  private lockedBlockParts: BlockParts | undefined
  private validRound = -1
  private validBlock: Block | undefined
  private validBlockParts: BlockParts | undefined
  private votes!: HeightVoteSet
  private commitRound = -1
  private lastCommit: VoteSet | undefined
  private lastValidators!: ValidatorSet
  private triggeredTimeoutPrecommit = false
  /** The committed chain state this height builds on. */
  private state!: ChainState

  private readonly cfg: ConsensusConfig
  private readonly log: Logger
  private readonly ticker: TimeoutTicker
  private readonly internal: QueueItem[] = []
  private readonly external: QueueItem[] = []
  private wake: (() => void) | undefined
  private loop: Promise<void> | undefined
  private stopping = false
  private replayMode = false
  private proofBlockCache: { height: number; needed: boolean } | undefined
  /** The next attempt of a commit whose #ENDHEIGHT could not be written (finalizeCommit). */
  private commitRetryTimer: NodeJS.Timeout | undefined
  private fatal: Error | undefined

  constructor(private readonly opts: ConsensusStateOptions) {
    this.cfg = opts.config
    this.log = opts.logger
    this.ticker = new TimeoutTicker((ti) => this.enqueue({ kind: 'timeout', ti }, false))
    this.lastCommit = opts.lastCommit
    // As CometBFT's NewState (its WAL is not attached yet), the initial step is not logged.
    this.replayMode = true
    this.updateToState(opts.state)
    this.replayMode = false
  }

  // ===================================================================================================
  // Lifecycle and the one loop
  // ===================================================================================================

  /** Starts the receive loop and schedules round 0 (call after `catchupReplay`). */
  start(): void {
    if (this.loop !== undefined) return
    this.loop = this.run()
    this.scheduleRound0()
  }

  /** Lets the item being handled finish (a height being written completes), then stops timers. Idempotent. */
  async stop(): Promise<void> {
    this.stopping = true
    clearTimeout(this.commitRetryTimer)
    this.wake?.()
    await this.loop
    this.ticker.stop()
  }

  /** A peer's proposal, block part or vote (from the reactor). */
  receivePeerMessage(msg: ConsensusMessage, peerId: string): void {
    this.enqueue({ kind: 'msg', msg, peerId }, false)
  }

  /** The mempool has executable txs (CometBFT `TxsAvailable`). */
  notifyTxsAvailable(): void {
    this.enqueue({ kind: 'txsAvailable' }, false)
  }

  /**
   * Makes `run.blocks` heights at once (a dev chain: docs/dev-chain.md, "Mining"); resolves once the last
   * is committed. Refused unless we are the chain's one validator.
   */
  mine(run: MineRun): Promise<void> {
    if (this.stopping) return Promise.reject(new Error('consensus is stopping'))
    return new Promise((resolve, reject) => this.enqueue({ kind: 'mine', run, resolve, reject }, false))
  }

  /**
   * Resolves once every item queued before the call (peer messages, timeouts, txs-available notices) has
   * been handled, with the own messages they led to (those come first), or once the loop stops: the
   * point after which nothing happens without a new message, timeout or tx.
   */
  drained(): Promise<void> {
    if (this.stopping) return Promise.resolve()
    return new Promise((resolve) => this.enqueue({ kind: 'drained', resolve }, false))
  }

  get isRunning(): boolean {
    return this.loop !== undefined && !this.stopping && !this.fatal
  }

  /** Set when the loop stopped on an unrecoverable error (e.g. the height's batch could not be written). */
  get fatalError(): Error | undefined {
    return this.fatal
  }

  /** Where the state machine is, read-only (round-state-view.ts); take it when needed, do not keep it. */
  get roundState(): RoundStateView {
    return {
      height: this.height,
      round: this.round,
      step: this.step,
      proposal: this.proposal,
      proposalBlockParts: this.proposalBlockParts,
      votes: this.votes,
      commitRound: this.commitRound,
      lastCommit: this.lastCommit,
      state: this.state,
    }
  }

  private enqueue(item: QueueItem, internal: boolean): void {
    if (this.stopping) return
    ;(internal ? this.internal : this.external).push(item)
    const w = this.wake
    this.wake = undefined
    w?.()
  }

  /** Our own message: handled after the current item, before peers' messages. */
  private sendInternal(msg: ConsensusMessage): void {
    this.enqueue({ kind: 'msg', msg, peerId: '' }, true)
  }

  /** `receiveRoutine`. */
  private async run(): Promise<void> {
    while (!this.stopping) {
      const item = this.internal.shift() ?? this.external.shift()
      if (!item) {
        await new Promise<void>((resolve) => (this.wake = resolve))
        continue
      }
      try {
        await this.handleItem(item)
      } catch (err) {
        this.fatal = err instanceof Error ? err : new Error(String(err))
        this.log.error('consensus halted', { height: this.height, round: this.round, step: roundStepName(this.step), err: this.fatal })
        this.stopping = true
        this.opts.onFatal?.(this.fatal)
      }
    }
    await this.persistUnhandledOwnMessages()
    for (const item of this.external) {
      if (item.kind === 'drained') item.resolve()
      if (item.kind === 'mine') item.reject(new Error('consensus stopped before the blocks were made'))
    }
  }

  /**
   * The loop is ending (stop, or a fatal error) with own messages still queued: signed — the signer's state
   * already holds them — but not yet in the WAL. They are written now, not acted on, as a crash right after
   * their WAL write would leave them; the restart replays them. Dropped, they would leave the signer ahead
   * of the WAL: a restarted proposer could not sign its proposal again (another block from the mempool of
   * then), and would wait out the propose and precommit timeouts of round 0 before proposing anew.
   */
  private async persistUnhandledOwnMessages(): Promise<void> {
    const own = this.internal.splice(0).filter((item) => item.kind === 'msg' && item.peerId === '')
    for (const item of own) {
      if (item.kind !== 'msg' || item.written) continue
      try {
        await this.opts.wal.writeSync({ type: 'msgInfo', msg: item.msg, peerId: '' })
      } catch (err) {
        this.log.error('failed to write own message to the WAL; dropping it', { type: item.msg.type, err })
        return
      }
    }
  }

  private async handleItem(item: QueueItem): Promise<void> {
    switch (item.kind) {
      case 'msg':
        if (item.peerId === '') {
          // Own messages are durable before they are acted on (and before peers see them).
          try {
            await this.writeOwnMessages(item)
          } catch (err) {
            this.dropUnwrittenOwnMessage(item.msg, err)
            return
          }
          this.opts.onOwnMessage(item.msg)
        } else {
          this.opts.wal.write({ type: 'msgInfo', msg: item.msg, peerId: item.peerId })
        }
        await this.handleMsg(item.msg, item.peerId)
        return
      case 'timeout':
        this.opts.wal.write({ type: 'timeout', ...item.ti })
        await this.handleTimeout(item.ti)
        return
      case 'txsAvailable':
        await this.handleTxsAvailable()
        return
      case 'commitRetry':
        if (item.height === this.height && this.step === RoundStep.Commit) await this.tryFinalizeCommit(item.height)
        return
      case 'drained':
        item.resolve()
        return
      case 'mine':
        await this.mineRun(item.run).then(item.resolve, (err: unknown) => {
          const error = err instanceof Error ? err : new Error(String(err))
          item.reject(error)
          // A height that could not be written stops the node, as in finalizeCommit.
          if (!(err instanceof MineRefusedError)) throw error
        })
        return
    }
  }

  /**
   * Writes own message `item` to the WAL with one fsync together with the own messages queued behind it
   * (a proposal and its block parts), which are then marked written. Writing a queued message before the
   * one ahead of it is acted on keeps the file in the order the messages are handled: a crash between
   * leaves signed messages that the replay acts on in the same order, as it would have had the node
   * handled them before dying. Failing, nothing is marked: each queued message tries again in its turn.
   */
  private async writeOwnMessages(item: QueueItem & { kind: 'msg' }): Promise<void> {
    if (item.written) return
    const batch = [
      item,
      ...this.internal.filter((q): q is QueueItem & { kind: 'msg' } => q.kind === 'msg' && q.peerId === '' && !q.written),
    ]
    await this.opts.wal.writeSyncAll(batch.map((q) => ({ type: 'msgInfo', msg: q.msg, peerId: '' })))
    for (const q of batch) q.written = true
  }

  /**
   * `catchupReplay`: re-feed the WAL messages after `#ENDHEIGHT h-1` (0 at the initial height) into the
   * state machine, so a restarted node finishes the height it was in with the votes it already signed.
   * CometBFT refuses a WAL holding `#ENDHEIGHT h`; here the height's batch is written after that marker,
   * so a crash between the two leaves exactly that, and the height is finished by replaying it.
   */
  async catchupReplay(): Promise<void> {
    const csHeight = this.height
    const endHeight = csHeight === this.state.initialHeight ? 0 : csHeight - 1
    const msgs = await this.opts.wal.searchForEndHeight(endHeight)
    if (!msgs) {
      this.log.error('cannot replay height: WAL does not contain its #ENDHEIGHT; proceeding to start state anyway', {
        height: csHeight,
        endHeight,
      })
      return
    }
    if (msgs.length === 0) return
    this.log.info('catchup replay: replaying WAL messages', { height: csHeight, total: msgs.length })
    this.replayMode = true
    try {
      let replayed = 0
      for (const m of msgs) {
        await this.readReplayMessage(m, csHeight)
        replayed++
        if (replayed % REPLAY_LOG_EVERY === 0 || replayed === msgs.length)
          this.log.info('replaying WAL messages', { replayed, total: msgs.length })
      }
    } finally {
      this.replayMode = false
    }
  }

  private async readReplayMessage({ msg }: TimedWalMessage, csHeight: number): Promise<void> {
    switch (msg.type) {
      case 'roundState':
        if (msg.height === this.height && msg.round === this.round && msg.step !== roundStepName(this.step)) {
          this.log.debug('replay: round state differs', { wal: msg.step, current: roundStepName(this.step) })
        }
        return
      case 'msgInfo':
        if (msg.peerId === '') this.opts.onOwnMessage(msg.msg)
        await this.handleMsg(msg.msg, msg.peerId)
        return
      case 'timeout':
        await this.handleTimeout({ durationMs: msg.durationMs, height: msg.height, round: msg.round, step: msg.step })
        return
      case 'endHeight':
        if (msg.height === csHeight)
          this.log.info('replay: WAL has #ENDHEIGHT of the current height; finishing its commit', { height: csHeight })
        return
    }
  }

  // ===================================================================================================
  // Protocol, in order
  // ===================================================================================================

  /**
   * `updateToState`: a new height after a commit (or at start). LastCommit becomes the precommits that
   * decided the previous block; Locked and Valid values reset (paper line 54: reset and StartRound(0)); the step is
   * NewHeight until StartTime = commit time + timeout_commit.
   */
  private updateToState(state: ChainState): void {
    if (state.lastBlockHeight === 0) {
      this.lastCommit = undefined
    } else if (this.commitRound > -1 && this.votes) {
      const precommits = this.votes.precommits(this.commitRound)
      if (!precommits?.hasTwoThirdsMajority()) throw new Error('updateToState: expected +2/3 precommits for the committed round')
      this.lastCommit = precommits
    } else if (!this.lastCommit) {
      throw new Error(`updateToState: last commit of height ${state.lastBlockHeight} is missing`)
    }
    const height = nextHeight(state)
    this.height = height
    this.updateRoundStep(0, RoundStep.NewHeight)
    this.startTime = addMillis(this.commitTime ?? now(), this.cfg.timeoutCommit)
    this.validators = state.validators
    this.proposal = undefined
    this.proposalBlock = undefined
    this.proposalBlockParts = undefined
    this.lockedRound = -1
    this.lockedBlock = undefined
    this.lockedBlockParts = undefined
    this.validRound = -1
    this.validBlock = undefined
    this.validBlockParts = undefined
    this.votes = new HeightVoteSet(state.chainId, height, state.validators)
    this.commitRound = -1
    this.lastValidators = state.lastValidators
    this.triggeredTimeoutPrecommit = false
    this.state = state
    this.newStep()
  }

  /** `scheduleRound0`: NewHeight → NewRound at StartTime (this wait is the commit timeout). */
  private scheduleRound0(): void {
    const ms = Number((toNanos(this.startTime) - toNanos(now())) / 1_000_000n)
    this.scheduleTimeout(Math.max(0, ms), this.height, 0, RoundStep.NewHeight)
  }

  /**
   * enterNewRound(h, r): paper lines 11–21 `StartRound(r)` — reached from the NewHeight timeout (r = 0),
   * the precommit-wait timeout (paper 65–67), +2/3 votes of any kind for a higher round (round skip, paper
   * 55–56 as CometBFT implements it), or all precommits in with skip_timeout_commit. Rotates the proposer
   * (IncrementProposerPriority by the rounds skipped), then proposes — except at round 0 when waiting for
   * txs (WaitForTxs) and no proof block is needed.
   */
  private async enterNewRound(height: number, round: number): Promise<void> {
    if (this.height !== height || round < this.round || (this.round === round && this.step !== RoundStep.NewHeight)) return
    this.log.debug('entering new round', { height, round, current: `${this.height}/${this.round}/${roundStepName(this.step)}` })
    let validators = this.validators
    if (this.round < round) {
      validators = validators.copy()
      validators.incrementProposerPriority(round - this.round)
    }
    // No newStep for this step, but the NewRound event.
    this.updateRoundStep(round, RoundStep.NewRound)
    this.validators = validators
    if (round !== 0) {
      // Round 0 keeps a proposal that may have arrived during NewHeight.
      this.proposal = undefined
      this.proposalBlock = undefined
      this.proposalBlockParts = undefined
    }
    this.votes.setRound(round + 1) // track round+1 too, for round skipping
    this.triggeredTimeoutPrecommit = false
    const proposer = validators.getProposer()
    this.emit('NewRound', {
      ...this.roundStateEvent(),
      proposer: { address: proposer.address, index: validators.getByAddress(proposer.address)?.index ?? -1 },
    })

    if (round === 0 && this.miningHeld()) return
    const wait = waitForTxs(this.cfg) && round === 0 && !(await this.needProofBlock(height))
    if (wait && this.opts.mempool.size() === 0) {
      if (this.cfg.createEmptyBlocksInterval > 0)
        this.scheduleTimeout(this.cfg.createEmptyBlocksInterval, height, round, RoundStep.NewRound)
      return
    }
    await this.enterPropose(height, round)
  }

  /**
   * enterPropose(h, r): paper lines 14–21 — schedule OnTimeoutPropose (line 21) and, if we are the round's
   * proposer, propose validValue or a new block (lines 15–19). Reached from enterNewRound, from the
   * create-empty-blocks interval timeout, or when txs become available while waiting at round 0.
   */
  private async enterPropose(height: number, round: number): Promise<void> {
    if (this.height !== height || round < this.round || (this.round === round && RoundStep.Propose <= this.step)) return
    this.log.debug('entering propose step', { height, round })
    this.scheduleTimeout(proposeTimeout(this.cfg, round), height, round, RoundStep.Propose)
    const pv = this.opts.privValidator
    if (pv && this.validators.getByAddress(pv.address) && equalBytes(this.validators.getProposer().address, pv.address)) {
      this.log.debug('propose step; our turn to propose', { height, round, proposer: bytesToUpperHex(pv.address) })
      await this.decideProposal(height, round)
    }
    this.updateRoundStep(round, RoundStep.Propose)
    this.newStep()
    // With the whole proposal (and its POL) already here, prevote now; otherwise on completion or timeout.
    if (this.isProposalComplete()) await this.enterPrevote(height, this.round)
  }

  /** `defaultDecideProposal`: paper lines 15–19 — validValue if any, else a new block; sign; queue proposal and parts. */
  private async decideProposal(height: number, round: number): Promise<void> {
    const pv = this.opts.privValidator!
    // Flush the WAL so that a restart recomputes the same proposal (else the signer refuses). It runs
    // while the block is made: until the signature nothing is written to the WAL, so it covers the same.
    const flushed = this.opts.wal.flushAndSync()
    flushed.catch(() => undefined)
    let block: Block
    let parts: BlockParts
    if (this.validBlock && this.validBlockParts) {
      block = this.validBlock
      parts = this.validBlockParts
    } else {
      const created = await this.createProposalBlock(height)
      if (!created) return
      block = created
      parts = BlockParts.fromPartSet(makeBlockId(block).partSet)
    }
    try {
      await flushed
    } catch (err) {
      // Not proposing is safe; the propose timeout scheduled by enterPropose moves the round on.
      this.log.error('propose step; failed to flush the WAL before signing; not proposing this round', { height, round, err })
      return
    }
    const proposal: Proposal = {
      height,
      round,
      polRound: this.validRound,
      blockId: { hash: blockHash(block), partSetHeader: parts.header },
      timestamp: now(),
      signature: new Uint8Array(0),
    }
    let signed: Proposal
    try {
      signed = await pv.signProposal(this.state.chainId, proposal)
    } catch (err) {
      // CometBFT logs and does not propose; the propose timeout moves the round on. A restarted proposer
      // whose sign state holds another proposal for this height/round (signed before a crash that the WAL
      // did not record) lands here too: it cannot re-create that block, so it skips this round's proposal.
      if (!this.replayMode) this.log.error('propose step; failed signing proposal', { height, round, err })
      return
    }
    this.log.debug('signed proposal', { height, round, hash: bytesToUpperHex(signed.blockId.hash) })
    this.sendInternal({ type: 'proposal', proposal: signed })
    for (let i = 0; i < parts.total; i++) this.sendInternal({ type: 'blockPart', height, round, part: parts.getPart(i)! })
  }

  /** `createProposalBlock`: the last commit from LastCommit (empty at the initial height), then mempool + PrepareProposal. */
  private async createProposalBlock(height: number): Promise<Block | undefined> {
    const pv = this.opts.privValidator
    if (!pv) return undefined
    let lastCommit: Commit
    if (height === this.state.initialHeight) lastCommit = emptyCommit()
    else if (this.lastCommit?.hasTwoThirdsMajority()) lastCommit = this.lastCommit.makeCommit()
    else {
      this.log.error('propose step; cannot propose anything without commit for the previous block', { height })
      return undefined
    }
    try {
      return await this.opts.blockExec.createProposalBlock(this.state, height, lastCommit, pv.address)
    } catch (err) {
      this.log.error('unable to create proposal block', { height, err })
      return undefined
    }
  }

  /**
   * enterPrevote(h, r): paper lines 22–33 and 57–60 — reached when the proposal is complete while in
   * Propose, or on the propose timeout. v0.38: prevote the locked block if locked; nil without a
   * proposal block, for an invalid one, or when the app's ProcessProposal rejects it; else the block.
   */
  private async enterPrevote(height: number, round: number): Promise<void> {
    if (this.height !== height || round < this.round || (this.round === round && RoundStep.Prevote <= this.step)) return
    this.log.debug('entering prevote step', { height, round })
    await this.doPrevote(height, round)
    this.updateRoundStep(round, RoundStep.Prevote)
    this.newStep()
    // Once addVote sees +2/3 prevotes for anything we go to PrevoteWait.
  }

  private async doPrevote(height: number, round: number): Promise<void> {
    if (this.lockedBlock && this.lockedBlockParts) {
      this.log.debug('prevote step; already locked on a block; prevoting locked block', { height, round })
      await this.signAddVote(SignedMsgType.Prevote, { hash: blockHash(this.lockedBlock), partSetHeader: this.lockedBlockParts.header })
      return
    }
    if (!this.proposalBlock || !this.proposalBlockParts) {
      this.log.debug('prevote step: ProposalBlock is nil', { height, round })
      await this.signAddVote(SignedMsgType.Prevote, zeroBlockId())
      return
    }
    try {
      await this.opts.blockExec.validateBlock(this.state, this.proposalBlock)
    } catch (err) {
      this.log.error('prevote step: consensus deems this block invalid; prevoting nil', { height, round, err })
      await this.signAddVote(SignedMsgType.Prevote, zeroBlockId())
      return
    }
    // The app must accept the block too (ABCI ProcessProposal); rejection means prevote nil.
    const accepted = await this.opts.blockExec.processProposal(this.state, this.proposalBlock)
    if (!accepted) {
      this.log.error('prevote step: state machine rejected a proposed block; prevoting nil', { height, round })
      await this.signAddVote(SignedMsgType.Prevote, zeroBlockId())
      return
    }
    this.log.debug('prevote step: ProposalBlock is valid', { height, round })
    await this.signAddVote(SignedMsgType.Prevote, { hash: blockHash(this.proposalBlock), partSetHeader: this.proposalBlockParts.header })
  }

  /**
   * enterPrevoteWait(h, r): paper lines 34–35 — +2/3 prevotes for anything but no majority yet; wait
   * timeout_prevote(r) for more before precommitting.
   */
  private enterPrevoteWait(height: number, round: number): void {
    if (this.height !== height || round < this.round || (this.round === round && RoundStep.PrevoteWait <= this.step)) return
    if (!this.votes.prevotes(round)?.hasTwoThirdsAny())
      throw new Error(`entering prevote wait step (${height}/${round}), but prevotes does not have any +2/3 votes`)
    this.log.debug('entering prevote wait step', { height, round })
    this.scheduleTimeout(prevoteTimeout(this.cfg, round), height, round, RoundStep.PrevoteWait)
    this.updateRoundStep(round, RoundStep.PrevoteWait)
    this.newStep()
  }

  /**
   * enterPrecommit(h, r): paper lines 36–46 and 61–64 — +2/3 prevotes for a block or nil, or the
   * prevote-wait timeout. No polka → precommit nil. Nil polka → unlock (v0.38) and precommit nil. Polka
   * for our locked block → relock. Polka for the proposal block → lock and precommit it (38–41). Polka
   * for a block we do not have → unlock, fetch it, precommit nil.
   */
  private async enterPrecommit(height: number, round: number): Promise<void> {
    if (this.height !== height || round < this.round || (this.round === round && RoundStep.Precommit <= this.step)) return
    this.log.debug('entering precommit step', { height, round })
    await this.doPrecommit(height, round)
    this.updateRoundStep(round, RoundStep.Precommit)
    this.newStep()
  }

  private async doPrecommit(height: number, round: number): Promise<void> {
    const blockId = this.votes.prevotes(round)?.twoThirdsMajority()
    if (!blockId) {
      this.log.debug('precommit step; no +2/3 prevotes; precommitting nil', { height, round, locked: this.lockedBlock !== undefined })
      await this.signAddVote(SignedMsgType.Precommit, zeroBlockId())
      return
    }
    this.emit('Polka', this.roundStateEvent())
    const { polRound } = this.votes.polInfo()
    if (polRound < round) throw new Error(`this POLRound should be ${round} but got ${polRound}`)

    if (isZeroBlockId(blockId)) {
      if (this.lockedBlock) {
        this.log.debug('precommit step; +2/3 prevoted for nil; unlocking', { height, round })
        this.lockedRound = -1
        this.lockedBlock = undefined
        this.lockedBlockParts = undefined
        this.emit('Unlock', this.roundStateEvent())
      }
      await this.signAddVote(SignedMsgType.Precommit, zeroBlockId())
      return
    }
    if (hashesTo(this.lockedBlock, blockId.hash)) {
      this.log.debug('precommit step; +2/3 prevoted locked block; relocking', { height, round })
      this.lockedRound = round
      this.emit('Relock', this.roundStateEvent())
      await this.signAddVote(SignedMsgType.Precommit, blockId)
      return
    }
    if (this.proposalBlock && hashesTo(this.proposalBlock, blockId.hash)) {
      this.log.debug('precommit step; +2/3 prevoted proposal block; locking', { height, round, hash: bytesToUpperHex(blockId.hash) })
      // +2/3 prevoted it, so it must be valid; if not, more than 1/3 is faulty and we must stop.
      await this.opts.blockExec.validateBlock(this.state, this.proposalBlock)
      this.lockedRound = round
      this.lockedBlock = this.proposalBlock
      this.lockedBlockParts = this.proposalBlockParts
      this.emit('Lock', this.roundStateEvent())
      await this.signAddVote(SignedMsgType.Precommit, blockId)
      return
    }
    this.log.debug('precommit step; +2/3 prevotes for a block we do not have; voting nil', {
      height,
      round,
      hash: bytesToUpperHex(blockId.hash),
    })
    this.lockedRound = -1
    this.lockedBlock = undefined
    this.lockedBlockParts = undefined
    if (!this.proposalBlockParts?.hasHeader(blockId.partSetHeader)) {
      this.proposalBlock = undefined
      this.proposalBlockParts = BlockParts.fromHeader(blockId.partSetHeader)
    }
    this.emit('Unlock', this.roundStateEvent())
    await this.signAddVote(SignedMsgType.Precommit, zeroBlockId())
  }

  /**
   * enterPrecommitWait(h, r): paper lines 47–48 — +2/3 precommits for anything without a decision; wait
   * timeout_precommit(r), then the next round. As CometBFT, the step itself is not changed (we may still
   * prevote/precommit in this round); TriggeredTimeoutPrecommit guards re-entry.
   */
  private enterPrecommitWait(height: number, round: number): void {
    if (this.height !== height || round < this.round || (this.round === round && this.triggeredTimeoutPrecommit)) return
    if (!this.votes.precommits(round)?.hasTwoThirdsAny())
      throw new Error(`entering precommit wait step (${height}/${round}), but precommits does not have any +2/3 votes`)
    this.log.debug('entering precommit wait step', { height, round })
    this.scheduleTimeout(precommitTimeout(this.cfg, round), height, round, RoundStep.PrecommitWait)
    this.triggeredTimeoutPrecommit = true
    this.newStep()
  }

  /**
   * enterCommit(h, commitRound): paper lines 49–54 — +2/3 precommits for a block in some round. Use the
   * locked block if it is the one; otherwise set up to receive its parts (ValidBlock event). Finalize
   * as soon as we have the block.
   */
  private async enterCommit(height: number, commitRound: number): Promise<void> {
    if (this.height !== height || RoundStep.Commit <= this.step) return
    this.log.debug('entering commit step', { height, commitRound })
    const blockId = this.votes.precommits(commitRound)?.twoThirdsMajority()
    if (!blockId) throw new Error('RunActionCommit() expects +2/3 precommits')
    if (hashesTo(this.lockedBlock, blockId.hash)) {
      this.proposalBlock = this.lockedBlock
      this.proposalBlockParts = this.lockedBlockParts
    }
    if (!hashesTo(this.proposalBlock, blockId.hash) && !this.proposalBlockParts?.hasHeader(blockId.partSetHeader)) {
      this.log.info('commit is for a block we do not know about; set ProposalBlock=nil', { height, hash: bytesToUpperHex(blockId.hash) })
      this.proposalBlock = undefined
      this.proposalBlockParts = BlockParts.fromHeader(blockId.partSetHeader)
      this.emit('ValidBlock', this.roundStateEvent())
    }
    // Keep the round; commitRound points to the deciding precommits.
    this.updateRoundStep(this.round, RoundStep.Commit)
    this.commitRound = commitRound
    this.commitTime = now()
    this.newStep()
    await this.tryFinalizeCommit(height)
  }

  private async tryFinalizeCommit(height: number): Promise<void> {
    if (this.height !== height) throw new Error(`tryFinalizeCommit() cs.Height: ${this.height} vs height: ${height}`)
    const blockId = this.votes.precommits(this.commitRound)?.twoThirdsMajority()
    if (!blockId || isZeroBlockId(blockId)) {
      this.log.error('failed attempt to finalize commit; there was no +2/3 majority or +2/3 was for nil', { height })
      return
    }
    if (!hashesTo(this.proposalBlock, blockId.hash)) {
      this.log.debug('failed attempt to finalize commit; we do not have the commit block', { height, hash: bytesToUpperHex(blockId.hash) })
      return
    }
    await this.finalizeCommit(height)
  }

  /**
   * finalizeCommit(h): decide (paper line 51) — `#ENDHEIGHT h` to the WAL (fsync), then apply the block
   * (block-executor.ts: the engine's writes around the application's Commit), then move to h+1
   * (paper 52–54: reset, StartRound(0) after timeout_commit).
   */
  private async finalizeCommit(height: number): Promise<void> {
    if (this.height !== height || this.step !== RoundStep.Commit) return
    const precommits = this.votes.precommits(this.commitRound)
    const blockId = precommits?.twoThirdsMajority()
    const block = this.proposalBlock
    const parts = this.proposalBlockParts
    if (!precommits || !blockId) throw new Error('cannot finalize commit; commit does not have 2/3 majority')
    if (!block || !parts) throw new Error('cannot finalize commit; proposal block is missing')
    if (!parts.hasHeader(blockId.partSetHeader)) throw new Error('expected ProposalBlockParts header to be commit header')
    if (!hashesTo(block, blockId.hash)) throw new Error('cannot finalize commit; proposal block does not hash to commit hash')
    await this.opts.blockExec.validateBlock(this.state, block)
    this.log.info('finalizing commit of block', {
      height,
      hash: bytesToUpperHex(blockId.hash),
      root: bytesToUpperHex(block.header.appHash),
      txs: block.txs.length,
    })

    const seenCommit = precommits.makeCommit()
    try {
      await this.opts.wal.writeSync({ type: 'endHeight', height })
    } catch (err) {
      // CometBFT panics here ("check your file system and restart the node"); the decision stands, so the
      // commit is retried instead, every timeout_precommit(r), until the disk takes the marker. (Not through
      // the ticker: it ignores a second timeout for the step it last scheduled, as CometBFT's does.)
      const retryMs = precommitTimeout(this.cfg, this.round)
      this.log.error('failed to write #ENDHEIGHT to the WAL; retrying the commit', { height, retryMs, err })
      clearTimeout(this.commitRetryTimer)
      this.commitRetryTimer = setTimeout(() => this.enqueue({ kind: 'commitRetry', height }, false), retryMs)
      return
    }
    const next = await this.opts.blockExec.applyBlock(copyState(this.state), blockId, block, parts.byteSize, seenCommit)
    this.updateToState(next)
    this.scheduleRound0()
  }

  // ===================================================================================================
  // Messages
  // ===================================================================================================

  private async handleMsg(msg: ConsensusMessage, peerId: string): Promise<void> {
    switch (msg.type) {
      case 'proposal': {
        const p = msg.proposal
        try {
          this.setProposal(p, peerId)
        } catch (err) {
          if (!(err instanceof ProposalError)) throw err
          this.log.info('failed to set proposal', { height: p.height, round: p.round, peer: peerId, err })
        }
        return
      }
      case 'blockPart': {
        let added = false
        try {
          added = this.addProposalBlockPart(msg.height, msg.part)
        } catch (err) {
          // Parts of another round's block are expected when rounds move; only ours are worth a log.
          if (msg.round === this.round)
            this.log.info('failed to add block part', { height: msg.height, round: msg.round, peer: peerId, err })
          return
        }
        if (added && this.proposalBlockParts?.isComplete()) await this.handleCompleteProposal(msg.height)
        return
      }
      case 'vote':
        await this.tryAddVote(msg.vote, peerId)
        return
    }
  }

  /**
   * `handleTimeout`: a timeout for an older (height, round, step) is stale. Propose → prevote (paper
   * 57–60); PrevoteWait → precommit (61–64); PrecommitWait → precommit, then the next round (65–67).
   */
  private async handleTimeout(ti: TimeoutInfo): Promise<void> {
    if (ti.height !== this.height || ti.round < this.round || (ti.round === this.round && ti.step < this.step)) return
    switch (ti.step) {
      case RoundStep.NewHeight:
        await this.enterNewRound(ti.height, 0)
        return
      case RoundStep.NewRound:
        // The create-empty-blocks interval elapsed while waiting for txs.
        if (this.miningHeld()) return
        await this.enterPropose(ti.height, ti.round)
        return
      case RoundStep.Propose:
        this.emit('TimeoutPropose', this.roundStateEvent())
        await this.enterPrevote(ti.height, ti.round)
        return
      case RoundStep.PrevoteWait:
        this.emit('TimeoutWait', this.roundStateEvent())
        await this.enterPrecommit(ti.height, ti.round)
        return
      case RoundStep.PrecommitWait:
        this.emit('TimeoutWait', this.roundStateEvent())
        await this.enterPrecommit(ti.height, ti.round)
        await this.enterNewRound(ti.height, ti.round + 1)
        return
      default:
        throw new Error(`invalid timeout step: ${ti.step}`)
    }
  }

  /**
   * `handleTxsAvailable`: only round 0 waits for txs; NewHeight's timeout will see them in enterNewRound.
   * A notification queued at an earlier height whose txs were since committed is stale: proposing on it
   * would make an empty block without waiting (the pool is asked again, not trusted from the event).
   */
  private async handleTxsAvailable(): Promise<void> {
    if (this.round !== 0 || this.opts.mempool.size() === 0 || this.miningHeld()) return
    if (this.step === RoundStep.NewRound) await this.enterPropose(this.height, 0)
  }

  /** `defaultSetProposal`: one proposal per round, for our height/round, signed by the round's proposer. */
  private setProposal(proposal: Proposal, peerId: string): void {
    if (this.proposal) return
    if (proposal.height !== this.height || proposal.round !== this.round) return
    if (!Number.isInteger(proposal.polRound) || proposal.polRound < -1 || (proposal.polRound >= 0 && proposal.polRound >= proposal.round)) {
      throw new ProposalError('error invalid proposal POL round')
    }
    if (!isCompleteBlockId(proposal.blockId)) throw new ProposalError('expected a complete, non-empty BlockID')
    if (proposal.signature.length === 0 || proposal.signature.length > MAX_SIGNATURE_BYTES)
      throw new ProposalError('invalid proposal signature size')
    const proposer = this.validators.getProposer()
    // Our own proposal was signed by our signer a moment ago; peers' proposals are verified.
    if (peerId !== '' && !ed25519Verify(proposer.pubKey, proposalSignBytes(this.state.chainId, proposal), proposal.signature)) {
      throw new ProposalError('error invalid proposal signature')
    }
    const maxBytes =
      this.state.consensusParams.block.maxBytes === -1n ? MAX_BLOCK_SIZE_BYTES : Number(this.state.consensusParams.block.maxBytes)
    if (proposal.blockId.partSetHeader.total > Math.floor((maxBytes - 1) / BLOCK_PART_SIZE_BYTES) + 1)
      throw new ProposalError('proposal block has too many parts')
    this.proposal = proposal
    // Not replaced when already set (in Commit, or parts of a valid block being fetched).
    if (!this.proposalBlockParts) this.proposalBlockParts = BlockParts.fromHeader(proposal.blockId.partSetHeader)
    this.log.info('received proposal', {
      height: proposal.height,
      round: proposal.round,
      hash: bytesToUpperHex(proposal.blockId.hash),
      polRound: proposal.polRound,
      proposer: bytesToUpperHex(proposer.address),
    })
  }

  /** `addProposalBlockPart`: true when the part was new; decodes the block when the set completes. */
  private addProposalBlockPart(height: number, part: Part): boolean {
    // Blocks may be re-proposed in later rounds, so only the height must match.
    if (this.height !== height) return false
    const parts = this.proposalBlockParts
    if (!parts) return false
    const added = parts.addPart(part)
    const maxBytes =
      this.state.consensusParams.block.maxBytes === -1n ? MAX_BLOCK_SIZE_BYTES : Number(this.state.consensusParams.block.maxBytes)
    if (parts.byteSize > maxBytes)
      throw new Error(`total size of proposal block parts exceeds maximum block bytes (${parts.byteSize} > ${maxBytes})`)
    if (added && parts.isComplete()) {
      const block = decodeBlock(parts.assemble())
      this.proposalBlock = block
      this.log.info('received complete proposal block', { height: block.header.height, hash: bytesToUpperHex(blockHash(block)) })
      this.emit('CompleteProposal', { ...this.roundStateEvent(), blockId: { hash: blockHash(block), partSetHeader: parts.header } })
    }
    return added
  }

  /** `handleCompleteProposal`: update ValidBlock on a polka for it; prevote if still proposing; or finish a commit waiting for it. */
  private async handleCompleteProposal(height: number): Promise<void> {
    const prevotes = this.votes.prevotes(this.round)
    const blockId = prevotes?.twoThirdsMajority()
    if (blockId && !isZeroBlockId(blockId) && this.validRound < this.round) {
      if (hashesTo(this.proposalBlock, blockId.hash)) {
        this.log.debug('updating valid block to new proposal block', { height, round: this.round })
        this.validRound = this.round
        this.validBlock = this.proposalBlock
        this.validBlockParts = this.proposalBlockParts
      }
    }
    if (this.step <= RoundStep.Propose && this.isProposalComplete()) {
      await this.enterPrevote(height, this.round)
      if (blockId) await this.enterPrecommit(height, this.round)
    } else if (this.step === RoundStep.Commit) {
      await this.tryFinalizeCommit(height)
    }
  }

  /** Proposal and block here, and the POL round's +2/3 prevotes when the proposal claims one. */
  private isProposalComplete(): boolean {
    if (!this.proposal || !this.proposalBlock) return false
    if (this.proposal.polRound < 0) return true
    return this.votes.prevotes(this.proposal.polRound)?.hasTwoThirdsMajority() ?? false
  }

  /**
   * `tryAddVote`: invalid votes are logged and dropped; another validator's equivocation goes to the
   * evidence pool, which turns it into DuplicateVoteEvidence once the height is committed.
   */
  private async tryAddVote(vote: Vote, peerId: string): Promise<boolean> {
    try {
      return await this.addVote(vote, peerId)
    } catch (err) {
      // A round we do not track yet: the reactor keeps the vote until we get there.
      if (err instanceof UnwantedRoundError) return false
      if (err instanceof ConflictingVoteError) {
        const pv = this.opts.privValidator
        if (pv && equalBytes(vote.validatorAddress, pv.address)) {
          this.log.error('found conflicting vote from ourselves; did you unsafe_reset a validator?', {
            height: vote.height,
            round: vote.round,
            type: vote.type,
          })
        } else {
          this.opts.evidence.reportConflictingVotes(err.voteA, err.voteB)
          this.log.debug('found and sent conflicting votes to the evidence pool', {
            height: vote.height,
            round: vote.round,
            validator: bytesToUpperHex(vote.validatorAddress),
          })
        }
        return false
      }
      if (err instanceof VoteError) {
        this.log.info('failed attempting to add vote', { height: vote.height, round: vote.round, peer: peerId, err })
        return false
      }
      throw err
    }
  }

  /**
   * `addVote`: precommits of the previous height join LastCommit while in NewHeight; votes of our height
   * go to the HeightVoteSet and may trigger: unlock / ValidBlock on a polka (paper 36–43), a round skip on
   * +2/3 of a higher round (55–56), precommit (36/44), prevote wait (34), commit (49), precommit wait (47).
   */
  private async addVote(vote: Vote, peerId: string): Promise<boolean> {
    if (vote.height + 1 === this.height && vote.type === SignedMsgType.Precommit) {
      // A late precommit for the previous height, while we wait timeout_commit.
      if (this.step !== RoundStep.NewHeight || !this.lastCommit) return false
      const added = this.lastCommit.addVote(vote)
      if (!added) return false
      this.emit('Vote', { vote })
      if (this.cfg.skipTimeoutCommit && this.lastCommit.hasAll()) await this.enterNewRound(this.height, 0)
      return true
    }
    if (vote.height !== this.height) return false

    const height = this.height
    const added = this.votes.addVote(vote, peerId)
    if (!added) return false
    this.emit('Vote', { vote })

    if (vote.type === SignedMsgType.Prevote) {
      const prevotes = this.votes.prevotes(vote.round)!
      const blockId = prevotes.twoThirdsMajority()
      if (blockId) {
        // A polka. v0.38: unlock if LockedRound < vote.Round <= Round and it is for another block.
        if (this.lockedBlock && this.lockedRound < vote.round && vote.round <= this.round && !hashesTo(this.lockedBlock, blockId.hash)) {
          this.log.debug('unlocking because of POL', { lockedRound: this.lockedRound, polRound: vote.round })
          this.lockedRound = -1
          this.lockedBlock = undefined
          this.lockedBlockParts = undefined
          this.emit('Unlock', this.roundStateEvent())
        }
        // Paper 42–43: ValidBlock/ValidRound from a polka of the current round.
        if (!isZeroBlockId(blockId) && this.validRound < vote.round && vote.round === this.round) {
          if (hashesTo(this.proposalBlock, blockId.hash)) {
            this.log.debug('updating valid block because of POL', { validRound: this.validRound, polRound: vote.round })
            this.validRound = vote.round
            this.validBlock = this.proposalBlock
            this.validBlockParts = this.proposalBlockParts
          } else {
            this.log.debug('valid block we do not know about; set ProposalBlock=nil', { hash: bytesToUpperHex(blockId.hash) })
            this.proposalBlock = undefined
          }
          if (!this.proposalBlockParts?.hasHeader(blockId.partSetHeader))
            this.proposalBlockParts = BlockParts.fromHeader(blockId.partSetHeader)
          this.emit('ValidBlock', this.roundStateEvent())
        }
      }
      if (this.round < vote.round && prevotes.hasTwoThirdsAny()) {
        // Round skip: +2/3 of the power is already in a later round.
        await this.enterNewRound(height, vote.round)
      } else if (this.round === vote.round && RoundStep.Prevote <= this.step) {
        const maj = prevotes.twoThirdsMajority()
        if (maj && (this.isProposalComplete() || isZeroBlockId(maj))) await this.enterPrecommit(height, vote.round)
        else if (prevotes.hasTwoThirdsAny()) this.enterPrevoteWait(height, vote.round)
      } else if (this.proposal && this.proposal.polRound >= 0 && this.proposal.polRound === vote.round) {
        // The proposal's POL is now here: the proposal may be complete (paper 28).
        if (this.isProposalComplete()) await this.enterPrevote(height, this.round)
      }
      return true
    }

    const precommits = this.votes.precommits(vote.round)!
    const blockId = precommits.twoThirdsMajority()
    if (blockId) {
      // The majority may be of a higher round.
      await this.enterNewRound(height, vote.round)
      await this.enterPrecommit(height, vote.round)
      if (!isZeroBlockId(blockId)) {
        await this.enterCommit(height, vote.round)
        if (this.cfg.skipTimeoutCommit && precommits.hasAll()) await this.enterNewRound(this.height, 0)
      } else {
        this.enterPrecommitWait(height, vote.round)
      }
    } else if (this.round <= vote.round && precommits.hasTwoThirdsAny()) {
      await this.enterNewRound(height, vote.round)
      this.enterPrecommitWait(height, vote.round)
    }
    return true
  }

  /**
   * `signAddVote`: sign with the signer and queue our vote like any other. When the vote cannot be cast
   * (the WAL cannot be flushed, the signer fails to write its state, or refuses a conflict), the failure
   * is logged and the round goes on without it (`moveOnWithoutOurVote`).
   */
  private async signAddVote(type: typeof SignedMsgType.Prevote | typeof SignedMsgType.Precommit, blockId: BlockID): Promise<void> {
    const pv = this.opts.privValidator
    if (!pv) return
    const found = this.validators.getByAddress(pv.address)
    if (!found) return
    // Flush the WAL so that a restart recomputes the same vote (else the signer refuses).
    try {
      await this.opts.wal.flushAndSync()
    } catch (err) {
      this.log.error('failed to flush the WAL before signing a vote', { height: this.height, round: this.round, type, err })
      this.moveOnWithoutOurVote(type, this.height, this.round)
      return
    }
    const unsigned: Vote = {
      type,
      height: this.height,
      round: this.round,
      blockId,
      timestamp: this.voteTime(),
      validatorAddress: pv.address,
      validatorIndex: found.index,
      signature: new Uint8Array(0),
    }
    let vote: Vote
    try {
      vote = await pv.signVote(this.state.chainId, unsigned)
    } catch (err) {
      if (!this.replayMode) this.log.error('failed signing vote', { height: this.height, round: this.round, type, err })
      this.moveOnWithoutOurVote(type, this.height, this.round)
      return
    }
    this.sendInternal({ type: 'vote', vote })
    this.log.debug('signed and pushed vote', { height: this.height, round: this.round, type })
  }

  /**
   * Our vote of (height, round, type) could not be cast. CometBFT logs "failed signing vote" and waits for
   * the others' votes, which never come when we alone hold +2/3 of the power (a dev chain) or the others
   * are too few: the height stalls for good although the disk may work again a moment later. Instead the
   * step's wait timeout is scheduled as if +2/3 of any votes were in: a missing prevote leads, after
   * timeout_prevote(r), to the precommit step (nil without a polka, paper 61–64); a missing precommit,
   * after timeout_precommit(r), to round r + 1 (paper 65–67), whose new (height, round, step) the signer
   * can sign once its state file can be written. Timeouts only ever bring nil votes and new rounds, so
   * moving on early costs no safety; a node that still gets +2/3 from the others moves on sooner.
   */
  private moveOnWithoutOurVote(type: SignedMsgType, height: number, round: number): void {
    if (type === SignedMsgType.Prevote) this.scheduleTimeout(prevoteTimeout(this.cfg, round), height, round, RoundStep.PrevoteWait)
    else this.scheduleTimeout(precommitTimeout(this.cfg, round), height, round, RoundStep.PrecommitWait)
  }

  /**
   * Our own message was signed but the WAL could not hold it (CometBFT panics: "failed to write msg to
   * consensus WAL... check your file system and restart the node"). It is not acted on nor sent, as an own
   * message is only ever acted on once durable; a vote is treated as not cast (the round moves on, see
   * `moveOnWithoutOurVote`), a proposal as not made (the propose timeout moves the round on). A restart
   * recomputes the same vote or proposal and the signer hands back the same signature.
   */
  private dropUnwrittenOwnMessage(msg: ConsensusMessage, err: unknown): void {
    const { height, round } = messageHeightRound(msg)
    this.log.error('failed to write own message to the WAL; dropping it', { type: msg.type, height, round, err })
    if (msg.type === 'vote') this.moveOnWithoutOurVote(msg.vote.type, msg.vote.height, msg.vote.round)
  }

  /** `voteTime`: max(now, T + 1 ms) with T the locked block's time, else the proposal block's (BFT time). */
  private voteTime(): Timestamp {
    const t = now()
    const base = this.lockedBlock?.header.time ?? this.proposalBlock?.header.time
    if (!base) return t
    const min = addMillis(base, 1)
    return compareTime(t, min) > 0 ? t : min
  }

  /**
   * `needProofBlock`: the first height, or the previous block changed the app hash. A dev chain makes no
   * proof block after the first (mining-control.ts): a block per transaction, as Anvil and Hardhat.
   */
  private async needProofBlock(height: number): Promise<boolean> {
    if (height === this.state.initialHeight) return true
    if (this.opts.mining) return false
    if (this.proofBlockCache?.height === height) return this.proofBlockCache.needed
    const meta = await this.opts.blockStore.loadBlockMeta(height - 1)
    if (!meta) throw new Error(`needProofBlock: last block meta for height ${height - 1} not found`)
    const needed = !equalBytes(this.state.appHash, meta.header.appHash)
    this.proofBlockCache = { height, needed }
    return needed
  }

  // ===================================================================================================
  // A dev chain's mining on demand (mining-control.ts)
  // ===================================================================================================

  /** Automine is off and nothing wants a block: round 0 proposes only for a run asked with `mine`. */
  private miningHeld(): boolean {
    const mining = this.opts.mining
    return mining !== undefined && !mining.automine && !mining.blockWanted?.()
  }

  /**
   * Makes `run.blocks` heights in a row, between two rounds (round 0 of the current height, nothing
   * proposed yet). We are the one validator, so each height's decision is our block and our precommit:
   * the path of a normal round without the proposal and prevote messages, their WAL writes, the
   * signer's writes and a batch per height. Each block is still built by PrepareProposal (the pool's
   * transactions and the dev operations ride in the first), signed, applied, stored with its seen commit
   * and published like any other. The heights are written in one batch (`holdWrites`), each #ENDHEIGHT
   * goes to the WAL, synced once at the end, and the signer's state file is written once
   * (`deferStateWrites`): nobody else sees these signatures before the run is over.
   */
  private async mineRun(run: MineRun): Promise<void> {
    const pv = this.opts.privValidator
    if (!pv || this.validators.size !== 1 || !this.validators.getByAddress(pv.address))
      throw new MineRefusedError('mining on demand needs a chain whose one validator is this node')
    if (this.round !== 0 || this.step > RoundStep.NewRound || this.proposal)
      throw new MineRefusedError(`a round is in progress at height ${this.height} (round ${this.round}); try again`)
    // Durable in this order: the heights (one batch), the signer's state, the WAL's #ENDHEIGHT markers. A
    // crash before the batch leaves none of the run; after it, a signer's state or WAL that lags is safe
    // (the next signatures are for later heights; the WAL replays nothing for heights already stored).
    const make = async () => {
      this.opts.blockExec.holdWrites()
      try {
        await this.mineHeights(run, pv)
      } finally {
        await this.opts.blockExec.releaseWrites()
      }
    }
    await (pv.deferStateWrites ? pv.deferStateWrites(make) : make())
    await this.opts.wal.flushAndSync()
    this.scheduleRound0()
  }

  private async mineHeights(run: MineRun, pv: PrivValidator): Promise<void> {
    const { blockExec, wal } = this.opts
    for (let index = 0; index < run.blocks; index++) {
      await run.beforeBlock?.(index)
      const height = this.height
      const lastCommit = height === this.state.initialHeight ? emptyCommit() : this.lastCommit?.makeCommit()
      if (!lastCommit) throw new Error(`cannot mine height ${height} without the commit of the previous block`)
      // Not `validateBlock`: the block is ours, just built from the state, and checking it would mostly
      // verify the signature we have just made (the bulk of a run's time).
      const block = await blockExec.createProposalBlock(this.state, height, lastCommit, pv.address)
      const made = makeBlockId(block)
      const parts = BlockParts.fromPartSet(made.partSet)
      const blockId = made.blockId
      const earliest = addMillis(block.header.time, 1)
      const unsigned: Vote = {
        type: SignedMsgType.Precommit,
        height,
        round: 0,
        blockId,
        timestamp: compareTime(now(), earliest) > 0 ? now() : earliest,
        validatorAddress: pv.address,
        validatorIndex: 0,
        signature: new Uint8Array(0),
      }
      this.votes.addVote(await pv.signVote(this.state.chainId, unsigned), '')
      this.proposalBlock = block
      this.proposalBlockParts = parts
      this.updateRoundStep(0, RoundStep.Commit)
      this.commitRound = 0
      this.commitTime = now()
      wal.write({ type: 'endHeight', height })
      const seenCommit = this.votes.precommits(0)!.makeCommit()
      this.updateToState(await blockExec.applyBlock(copyState(this.state), blockId, block, parts.byteSize, seenCommit))
    }
  }

  // ===================================================================================================
  // Helpers
  // ===================================================================================================

  private updateRoundStep(round: number, step: RoundStep): void {
    this.round = round
    this.step = step
  }

  /** `newStep`: every step change goes to the WAL and out as NewRoundStep. */
  private newStep(): void {
    const rs = this.roundStateEvent()
    if (!this.replayMode) this.opts.wal.write({ type: 'roundState', ...rs })
    this.emit('NewRoundStep', rs)
  }

  private scheduleTimeout(durationMs: number, height: number, round: number, step: RoundStep): void {
    this.ticker.schedule({ durationMs, height, round, step })
  }

  private roundStateEvent(): RoundStateEvent {
    return { height: this.height, round: this.round, step: roundStepName(this.step) }
  }

  private emit<K extends keyof ConsensusEvents>(name: K, payload: ConsensusEvents[K]): void {
    try {
      this.opts.events.emit(name, payload)
    } catch (err) {
      this.log.error('event listener failed', { event: name, err })
    }
  }

  /** A snapshot of the round state. */
  getRoundState(): RoundStateSummary {
    const progress = (p: BlockParts | undefined): PartSetProgress | undefined =>
      p ? { count: p.count, total: p.total, have: p.bitArray() } : undefined
    const summary: RoundStateSummary = {
      height: this.height,
      round: this.round,
      step: this.step,
      startTime: this.startTime,
      commitTime: this.commitTime ?? GO_ZERO_TIME,
      validators: this.validators.copy(),
      lockedRound: this.lockedRound,
      validRound: this.validRound,
      votes: this.votes
        .trackedRounds()
        .map((round) => ({ round, prevotes: this.votes.prevotes(round)!.list(), precommits: this.votes.precommits(round)!.list() })),
      commitRound: this.commitRound,
      lastValidators: this.lastValidators.copy(),
      triggeredTimeoutPrecommit: this.triggeredTimeoutPrecommit,
    }
    if (this.proposal) summary.proposal = this.proposal
    if (this.proposalBlock) summary.proposalBlock = this.proposalBlock
    if (this.proposalBlockParts) summary.proposalBlockParts = progress(this.proposalBlockParts)!
    if (this.lockedBlock) summary.lockedBlock = this.lockedBlock
    if (this.lockedBlockParts) summary.lockedBlockParts = progress(this.lockedBlockParts)!
    if (this.validBlock) summary.validBlock = this.validBlock
    if (this.validBlockParts) summary.validBlockParts = progress(this.validBlockParts)!
    if (this.lastCommit) summary.lastCommit = this.lastCommit.list()
    return summary
  }
}
