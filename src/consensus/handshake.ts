/**
 * Start-up handshake (CometBFT `consensus/replay.go Handshaker`): make the application, the block store
 * and the consensus state agree before consensus starts. Returns the state consensus starts from.
 *
 * While the application reports height 0 it gets InitChain (and may replace the genesis validators);
 * the genesis state is saved by the engine. Then, as CometBFT's `ReplayBlocks`, every point a crash
 * can leave between the writes of a height (block-executor.ts `applyBlock`) is healed:
 * - store = state, app behind: the stored blocks the app lacks are replayed into it (FinalizeBlock +
 *   Commit each, checked against the stored FinalizeBlock responses);
 * - store = state + 1 (block and response written, state not), app at the state height or below: the
 *   app gets the missing blocks, the last one applied as live (its response saved, Commit, state saved);
 * - store = state + 1, app at the store height (the app committed, the state was not saved): the
 *   state is updated from the stored FinalizeBlock response, without running the block again.
 * Whatever the path, the app hash it ends with must be the state's.
 */
import type { BlockStore } from '../comet/block-store.js'
import { hashTxResults } from '../comet/hash.js'
import { ValidatorSet } from '../comet/validator-set.js'
import type { Database } from '../db/database.js'
import type { WriteStage } from '../db/write-stage.js'
import { bytesToUpperHex, equalBytes } from '../primitives/hex.js'
import type { Logger } from '../utils/logger.js'
import type { Application, CommitInfo, FinalizeBlockResponse } from '../abci/application.js'
import { buildCommitInfo, misbehaviorOf } from './block-executor.js'
import { makeGenesisState, updateState, type ChainState, type ConsensusGenesis } from './chain-state.js'
import { EvidenceStore, evidenceRecord } from './evidence-store.js'
import type { StateStore } from './state-store.js'

/** Block replay progress is logged every this many blocks. */
const REPLAY_LOG_EVERY = 200

export interface HandshakeOptions {
  genesis: ConsensusGenesis
  db: Database
  blockStore: BlockStore
  stateStore: StateStore
  app: Application
  logger: Logger
  /** Progress log interval in blocks (default 200). */
  replayLogEvery?: number
}

export async function handshake(opts: HandshakeOptions): Promise<ChainState> {
  const { genesis, db, blockStore, stateStore, app, logger } = opts
  const stage = db.createStage()
  const stored = await stateStore.load()
  let state = stored ?? makeGenesisState(genesis)
  if (stored && stored.chainId !== genesis.chainId)
    throw new Error(`state chain id ${stored.chainId} does not match genesis chain id ${genesis.chainId}`)

  const info = await app.info()
  const appHeight = info.lastBlockHeight
  let appHash = info.lastBlockAppHash
  logger.info('ABCI handshake app info', {
    height: appHeight,
    hash: bytesToUpperHex(appHash),
    version: info.version,
    appVersion: info.appVersion,
  })

  let dirty = !stored
  if (state.appVersion !== info.appVersion) {
    state = { ...state, appVersion: info.appVersion }
    dirty = true
  }

  if (appHeight === 0) {
    const res = await app.initChain({
      time: genesis.genesisTime,
      chainId: genesis.chainId,
      consensusParams: genesis.consensusParams,
      validators: genesis.validators,
      // Made only if the application reads it (ConsensusGenesis.appStateBytes).
      get appStateBytes() {
        return genesis.appStateBytes()
      },
      initialHeight: state.initialHeight,
    })
    appHash = res.appHash.length > 0 ? res.appHash : state.appHash
    if (state.lastBlockHeight === 0) {
      // Keep the genesis app hash when the app returns none.
      if (res.appHash.length > 0) state = { ...state, appHash: res.appHash }
      if (res.validators.length > 0) {
        state = {
          ...state,
          validators: ValidatorSet.fromUpdates(res.validators),
          nextValidators: ValidatorSet.fromUpdates(res.validators).copyIncrementProposerPriority(1),
        }
      } else if (genesis.validators.length === 0) {
        throw new Error('validator set is nil in genesis and still empty after InitChain')
      }
      // The empty results hash (RFC 6962 empty tree), as CometBFT sets right after InitChain.
      state = { ...state, lastResultsHash: hashTxResults([]) }
      dirty = true
    }
  }
  // The genesis state is the engine's to write; InitChain's writes are the app's (its first Commit writes them).
  if (dirty) {
    stateStore.save(stage, state)
    await stage.write()
  }

  const storeHeight = blockStore.height()
  const storeBase = blockStore.base()
  if (storeHeight === 0) {
    assertAppHash(appHash, state)
    return state
  }
  if (appHeight === 0 && state.initialHeight < storeBase)
    throw new Error(`app block height ${appHeight} is too low for the block store base ${storeBase}`)
  if (appHeight > 0 && appHeight < storeBase - 1)
    throw new Error(`app block height ${appHeight} is too low for the block store base ${storeBase}`)
  if (storeHeight < appHeight) throw new Error(`app block height (${appHeight}) is higher than the block store (${storeHeight})`)
  const stateHeight = state.lastBlockHeight
  // The engine writes the block before the state of a height, so the store is at the state or one ahead.
  if (storeHeight !== stateHeight && storeHeight !== stateHeight + 1)
    throw new Error(`block store height ${storeHeight} does not match state height ${stateHeight}`)

  if (storeHeight === stateHeight) {
    if (appHeight < storeHeight) appHash = await replayBlocks(opts, state.initialHeight, appHeight, storeHeight)
  } else {
    if (appHeight < stateHeight) appHash = await replayBlocks(opts, state.initialHeight, appHeight, stateHeight)
    const appHasIt = appHeight === storeHeight
    state = await applyStoredBlock(opts, stage, state, storeHeight, appHasIt)
    // An app that had the block keeps the hash it reported; else it has just returned the state's.
    if (!appHasIt) appHash = state.appHash
  }
  assertAppHash(appHash, state)
  logger.info('completed ABCI handshake', { appHeight: storeHeight, appHash: bytesToUpperHex(appHash) })
  return state
}

/** Replays stored blocks appHeight+1..toHeight into the app; returns the app hash after the last. */
async function replayBlocks(opts: HandshakeOptions, initialHeight: number, appHeight: number, toHeight: number): Promise<Uint8Array> {
  const every = opts.replayLogEvery ?? REPLAY_LOG_EVERY
  const total = toHeight - appHeight
  opts.logger.info('replaying blocks into the app', { from: appHeight + 1, to: toHeight, total })
  let appHash: Uint8Array = new Uint8Array(0)
  let replayed = 0
  for (let h = appHeight + 1; h <= toHeight; h++) {
    const { response } = await replayBlock(opts, initialHeight, h)
    await opts.app.commit()
    appHash = response.appHash
    replayed++
    if (replayed % every === 0 || replayed === total) opts.logger.info('replaying blocks', { replayed, total })
  }
  return appHash
}

/**
 * The block of `height`, stored with its response but whose state was not saved: updates and saves the
 * state. `appHasIt`: the app committed the block already, so the stored response stands for it (CometBFT's
 * mock replay); else the block runs in the app (its response saved when missing) and is committed.
 */
async function applyStoredBlock(
  opts: HandshakeOptions,
  stage: WriteStage,
  state: ChainState,
  height: number,
  appHasIt: boolean,
): Promise<ChainState> {
  const { blockStore, stateStore, app, logger } = opts
  let response: FinalizeBlockResponse
  if (appHasIt) {
    logger.info('updating the state from the stored FinalizeBlock response', { height })
    const stored = await stateStore.loadFinalizeBlockResponse(height)
    if (!stored) throw new Error(`the FinalizeBlock response of block ${height} is missing from the state store`)
    response = stored
  } else {
    logger.info('replaying the last stored block into the app', { height })
    const replayed = await replayBlock(opts, state.initialHeight, height)
    response = replayed.response
    if (!replayed.stored) await stateStore.saveFinalizeBlockResponse(stage, height, response)
    await stage.write()
    await app.commit()
  }
  const block = await blockStore.loadBlock(height)
  const meta = await blockStore.loadBlockMeta(height)
  if (!block || !meta) throw new Error(`block ${height} is missing from the block store`)
  const next = updateState(state, meta.blockId, block.header, response)
  stateStore.save(stage, next)
  const evidence = new EvidenceStore(opts.db)
  for (const ev of block.evidence) evidence.stageCommitted(stage, evidenceRecord(ev), height)
  await stage.write()
  return next
}

/**
 * Runs stored block `height` in the app (FinalizeBlock, as it ran live), checked against the stored
 * response when there is one. The caller commits it.
 */
async function replayBlock(
  opts: HandshakeOptions,
  initialHeight: number,
  height: number,
): Promise<{ response: FinalizeBlockResponse; stored: boolean }> {
  const { blockStore, stateStore, app } = opts
  const block = await blockStore.loadBlock(height)
  const meta = await blockStore.loadBlockMeta(height)
  if (!block || !meta) throw new Error(`block ${height} is missing from the block store`)
  let decidedLastCommit: CommitInfo = { round: 0, votes: [] }
  if (height !== initialHeight) {
    const lastValidators = await stateStore.loadValidators(height - 1)
    if (!lastValidators) throw new Error(`validators of height ${height - 1} are missing from the state store`)
    decidedLastCommit = buildCommitInfo(block.lastCommit, lastValidators)
  }
  const response = await app.finalizeBlock({
    txs: block.txs,
    decidedLastCommit,
    misbehavior: misbehaviorOf(block.evidence),
    hash: meta.blockId.hash,
    height,
    time: block.header.time,
    nextValidatorsHash: block.header.nextValidatorsHash,
    proposerAddress: block.header.proposerAddress,
    // As committed live: the size the block store recorded for it.
    blockSize: meta.blockSize,
  })
  const expected = await stateStore.loadFinalizeBlockResponse(height)
  if (expected && !equalBytes(expected.appHash, response.appHash)) {
    throw new Error(
      `app hash mismatch replaying block ${height}: stored ${bytesToUpperHex(expected.appHash)}, app returned ${bytesToUpperHex(response.appHash)}`,
    )
  }
  return { response, stored: expected !== undefined }
}

function assertAppHash(appHash: Uint8Array, state: ChainState): void {
  if (!equalBytes(appHash, state.appHash)) {
    throw new Error(
      `state.AppHash does not match AppHash after replay. Got ${bytesToUpperHex(appHash)}, expected ${bytesToUpperHex(state.appHash)}`,
    )
  }
}
