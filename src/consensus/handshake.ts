/**
 * Start-up handshake (CometBFT `consensus/replay.go Handshaker`): make the application, the block store
 * and the consensus state agree before consensus starts. At genesis the app gets InitChain (and may
 * replace the genesis validators) and the genesis state is saved; an app behind the store gets the
 * stored blocks replayed into it (FinalizeBlock + Commit each). Returns the state consensus starts from.
 */
import type { BlockStore } from '../comet/block-store.js'
import { hashTxResults } from '../comet/hash.js'
import { ValidatorSet } from '../comet/validator-set.js'
import type { Database } from '../db/database.js'
import { bytesToUpperHex, equalBytes } from '../primitives/hex.js'
import type { Logger } from '../utils/logger.js'
import type { Application, CommitInfo } from '../abci/application.js'
import { buildCommitInfo, misbehaviorOf } from './block-executor.js'
import { makeGenesisState, type ChainState, type ConsensusGenesis } from './chain-state.js'
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
      appStateBytes: genesis.appStateBytes,
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
  if (dirty) stateStore.stageSave(state)
  // The app's InitChain writes and the genesis state go in one batch.
  await db.commitStaged()

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
  // Block, commit and state of a height are written in one batch, so they cannot disagree.
  if (storeHeight !== state.lastBlockHeight)
    throw new Error(`block store height ${storeHeight} does not match state height ${state.lastBlockHeight}`)

  if (appHeight < storeHeight) appHash = await replayBlocks(opts, state, appHeight, storeHeight)
  assertAppHash(appHash, state)
  logger.info('completed ABCI handshake', { appHeight: storeHeight, appHash: bytesToUpperHex(appHash) })
  return state
}

/** Replays stored blocks appHeight+1..storeHeight into the app; returns the app hash after the last. */
async function replayBlocks(opts: HandshakeOptions, state: ChainState, appHeight: number, storeHeight: number): Promise<Uint8Array> {
  const { db, blockStore, stateStore, app, logger } = opts
  const every = opts.replayLogEvery ?? REPLAY_LOG_EVERY
  const total = storeHeight - appHeight
  logger.info('replaying blocks into the app', { from: appHeight + 1, to: storeHeight, total })
  let appHash: Uint8Array = new Uint8Array(0)
  let replayed = 0
  for (let h = appHeight + 1; h <= storeHeight; h++) {
    const block = await blockStore.loadBlock(h)
    const meta = await blockStore.loadBlockMeta(h)
    if (!block || !meta) throw new Error(`block ${h} is missing from the block store`)
    let decidedLastCommit: CommitInfo = { round: 0, votes: [] }
    if (h !== state.initialHeight) {
      const lastValidators = await stateStore.loadValidators(h - 1)
      if (!lastValidators) throw new Error(`validators of height ${h - 1} are missing from the state store`)
      decidedLastCommit = buildCommitInfo(block.lastCommit, lastValidators)
    }
    const res = await app.finalizeBlock({
      txs: block.txs,
      decidedLastCommit,
      misbehavior: misbehaviorOf(block.evidence),
      hash: meta.blockId.hash,
      height: h,
      time: block.header.time,
      nextValidatorsHash: block.header.nextValidatorsHash,
      proposerAddress: block.header.proposerAddress,
      // As committed live: the size the block store recorded for it.
      blockSize: meta.blockSize,
    })
    const expected = await stateStore.loadFinalizeBlockResponse(h)
    if (expected && !equalBytes(expected.appHash, res.appHash)) {
      db.discardStaged()
      throw new Error(
        `app hash mismatch replaying block ${h}: stored ${bytesToUpperHex(expected.appHash)}, app returned ${bytesToUpperHex(res.appHash)}`,
      )
    }
    await app.commit()
    await db.commitStaged()
    appHash = res.appHash
    replayed++
    if (replayed % every === 0 || replayed === total) logger.info('replaying blocks', { replayed, total })
  }
  return appHash
}

function assertAppHash(appHash: Uint8Array, state: ChainState): void {
  if (!equalBytes(appHash, state.appHash)) {
    throw new Error(
      `state.AppHash does not match AppHash after replay. Got ${bytesToUpperHex(appHash)}, expected ${bytesToUpperHex(state.appHash)}`,
    )
  }
}
