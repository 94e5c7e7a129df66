/**
 * Block sync (CometBFT `blocksync/`): a node behind its peers fetches committed blocks with their commits,
 * verifies each commit against the validator set of its height (`VerifyCommit`: +2/3 of the power signed
 * this very block id), validates the block against the state and applies it — the same `applyBlock` as
 * consensus, so a synced height is stored exactly as a decided one. Fetches run ahead of the applied
 * height in a window; application is in order. Transport-free: peers are reached through `BlockSyncSource`
 * (p2p/block-sync-protocol.ts over libp2p, an in-memory source in tests).
 */
import { decodeBlock } from '../comet/encoding.js'
import { hashHeader } from '../comet/hash.js'
import { makePartSet } from '../comet/part-set.js'
import type { Block, BlockID, Commit } from '../comet/types.js'
import { verifyCommit } from '../comet/verify-commit.js'
import type { Logger } from '../utils/logger.js'
import type { BlockExecutor } from './block-executor.js'
import { nextHeight, type ChainState } from './chain-state.js'

/** A block as a peer serves it: its encoded bytes and a commit for it. */
export interface FetchedBlock {
  blockBytes: Uint8Array
  commit: Commit
  /** The peer that served it (reported when it does not verify). */
  peerId: string
}

/** How block sync reaches peers. */
export interface BlockSyncSource {
  /** The highest committed height any connected peer reports (0 without peers). */
  maxPeerHeight(): number
  /** Calls `listener` with a peer's height whenever a peer reports one; returns the unsubscribe function. */
  onPeerHeight(listener: (height: number, peerId: string) => void): () => void
  /** Block `height` with its commit from a peer that reports having it; rejects when none answers. */
  fetchBlock(height: number, signal: AbortSignal): Promise<FetchedBlock>
  /** A peer served a block or commit that does not verify: drop it. */
  reportInvalid(peerId: string, reason: string): void
}

/** Progress of a running sync, for logs, `eth_syncing` and the CLI. */
export interface SyncProgress {
  /** Height the sync started from (the last block committed before it). */
  startHeight: number
  /** Last block applied. */
  height: number
  /** Highest height peers report. */
  target: number
  /** Blocks applied per second over the whole sync so far. */
  blocksPerSecond: number
}

export interface BlockSyncOptions {
  source: BlockSyncSource
  blockExec: BlockExecutor
  logger: Logger
  /** Called after each applied block. */
  onProgress?: (progress: SyncProgress) => void
}

/** Blocks requested ahead of the one being applied (CometBFT keeps up to 600 in flight; a few dozen keep a LAN busy). */
const FETCH_WINDOW = 32
/** Attempts for one height before the sync gives up (peers gone or all failing); consensus resumes meanwhile. */
const MAX_ATTEMPTS = 5

interface VerifiedBlock {
  block: Block
  blockId: BlockID
  size: number
  commit: Commit
}

/** Thrown when a fetched block or commit does not verify; the block is fetched again (from another peer). */
class InvalidBlockError extends Error {}

export class BlockSyncer {
  constructor(private readonly opts: BlockSyncOptions) {}

  /**
   * Applies blocks from `state` up to the highest height peers report (which may grow meanwhile) and
   * returns the state after the last one. Stops early, returning what it reached, when `signal` aborts
   * or a height cannot be fetched after several attempts.
   */
  async run(initial: ChainState, signal: AbortSignal): Promise<ChainState> {
    const { source, logger } = this.opts
    let state = initial
    const startHeight = state.lastBlockHeight
    const started = performance.now()
    const inFlight = new Map<number, Promise<FetchedBlock>>()
    const controller = new AbortController()
    const onAbort = (): void => controller.abort()
    signal.addEventListener('abort', onAbort)
    const fetch = (height: number): Promise<FetchedBlock> => {
      const p = source.fetchBlock(height, controller.signal)
      p.catch(() => {}) // awaited in order below; an early rejection is not unhandled
      return p
    }
    try {
      for (;;) {
        const height = nextHeight(state)
        const target = source.maxPeerHeight()
        if (signal.aborted || height > target) return state
        for (let h = height; h < height + FETCH_WINDOW && h <= target; h++) if (!inFlight.has(h)) inFlight.set(h, fetch(h))
        let verified: VerifiedBlock | undefined
        for (let attempt = 1; attempt <= MAX_ATTEMPTS && !verified && !signal.aborted; attempt++) {
          let fetched: FetchedBlock | undefined
          try {
            fetched = await inFlight.get(height)!
            verified = await this.verify(state, fetched)
          } catch (err) {
            if (signal.aborted) return state
            if (err instanceof InvalidBlockError && fetched) source.reportInvalid(fetched.peerId, err.message)
            logger.debug('block sync: no valid block yet', { height, attempt, error: (err as Error).message })
            inFlight.set(height, fetch(height))
          }
        }
        inFlight.delete(height)
        if (!verified) {
          if (!signal.aborted) logger.warn('block sync: cannot get a valid block from peers; resuming consensus', { height })
          return state
        }
        // A failure to apply a verified block is the node's own (disk, application): it propagates and stops the node.
        const { block, blockId, size, commit } = verified
        state = await this.opts.blockExec.applyBlock(state, blockId, block, size, commit)
        const seconds = (performance.now() - started) / 1000
        this.opts.onProgress?.({
          startHeight,
          height: state.lastBlockHeight,
          target: Math.max(target, source.maxPeerHeight()),
          blocksPerSecond: seconds > 0 ? (state.lastBlockHeight - startHeight) / seconds : 0,
        })
      }
    } finally {
      signal.removeEventListener('abort', onAbort)
      controller.abort()
    }
  }

  /** Decodes the block and checks it and its commit against `state`; throws InvalidBlockError when they do not verify. */
  private async verify(state: ChainState, fetched: FetchedBlock): Promise<VerifiedBlock> {
    const height = nextHeight(state)
    try {
      const block = decodeBlock(fetched.blockBytes)
      if (block.header.height !== height) throw new Error(`peer sent block ${block.header.height} for height ${height}`)
      const blockId: BlockID = { hash: hashHeader(block.header), partSetHeader: makePartSet(fetched.blockBytes).header }
      verifyCommit(state.validators, state.chainId, blockId, height, fetched.commit)
      await this.opts.blockExec.validateBlock(state, block)
      return { block, blockId, size: fetched.blockBytes.length, commit: fetched.commit }
    } catch (err) {
      throw new InvalidBlockError(`block ${height}: ${(err as Error).message}`)
    }
  }
}
