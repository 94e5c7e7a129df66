/**
 * `state/validation.go validateBlock`: whether a block can follow the chain state (header fields, the
 * derived hashes, the last commit, the proposer, BFT time, the evidence's size). The evidence itself is
 * verified by the evidence pool (`CheckEvidence`) in `BlockExecutor.validateBlock`.
 */
import { hashCommit, hashConsensusParams, hashData, hashEvidence } from '../comet/hash.js'
import { blockIdEquals } from '../comet/part-set.js'
import { BLOCK_PROTOCOL_VERSION, type Block } from '../comet/types.js'
import { medianTime } from '../comet/validator-set.js'
import { bytesToUpperHex, equalBytes } from '../primitives/hex.js'
import { compareTime, formatRfc3339Nano } from '../utils/time.js'
import type { ChainState } from './chain-state.js'
import { evidenceListSize } from './evidence.js'

/** Proposer addresses are 20 bytes. */
const ADDRESS_BYTES = 20

/** `state/validation.go validateBlock` (plus the hash checks of `Block.ValidateBasic`). */
export function validateBlockAgainstState(state: ChainState, block: Block): void {
  const h = block.header
  if (h.version.block !== BLOCK_PROTOCOL_VERSION || h.version.app !== state.appVersion) {
    throw new Error(
      `wrong Block.Header.Version. Expected {${BLOCK_PROTOCOL_VERSION} ${state.appVersion}}, got {${h.version.block} ${h.version.app}}`,
    )
  }
  if (h.chainId !== state.chainId) throw new Error(`wrong Block.Header.ChainID. Expected ${state.chainId}, got ${h.chainId}`)
  if (state.lastBlockHeight === 0 && h.height !== state.initialHeight) {
    throw new Error(`wrong Block.Header.Height. Expected ${state.initialHeight} for initial block, got ${h.height}`)
  }
  if (state.lastBlockHeight > 0 && h.height !== state.lastBlockHeight + 1) {
    throw new Error(`wrong Block.Header.Height. Expected ${state.lastBlockHeight + 1}, got ${h.height}`)
  }
  if (!blockIdEquals(h.lastBlockId, state.lastBlockId)) throw new Error('wrong Block.Header.LastBlockID')
  if (!equalBytes(h.appHash, state.appHash))
    throw new Error(`wrong Block.Header.AppHash. Expected ${bytesToUpperHex(state.appHash)}, got ${bytesToUpperHex(h.appHash)}`)
  if (!equalBytes(h.consensusHash, hashConsensusParams(state.consensusParams))) throw new Error('wrong Block.Header.ConsensusHash')
  if (!equalBytes(h.lastResultsHash, state.lastResultsHash)) throw new Error('wrong Block.Header.LastResultsHash')
  if (!equalBytes(h.validatorsHash, state.validators.hash())) throw new Error('wrong Block.Header.ValidatorsHash')
  if (!equalBytes(h.nextValidatorsHash, state.nextValidators.hash())) throw new Error('wrong Block.Header.NextValidatorsHash')
  // Block.ValidateBasic: the derived hashes bind txs, last commit and evidence to the header hash.
  if (!equalBytes(h.lastCommitHash, hashCommit(block.lastCommit))) throw new Error('wrong Header.LastCommitHash')
  if (!equalBytes(h.dataHash, hashData(block.txs))) throw new Error('wrong Header.DataHash')
  if (!equalBytes(h.evidenceHash, hashEvidence(block.evidence))) throw new Error('wrong Header.EvidenceHash')
  if (h.proposerAddress.length !== ADDRESS_BYTES)
    throw new Error(`invalid ProposerAddress length; got: ${h.proposerAddress.length}, expected: ${ADDRESS_BYTES}`)
  if (h.height === state.initialHeight) {
    if (block.lastCommit.signatures.length !== 0) throw new Error("initial block can't have LastCommit signatures")
  } else {
    state.lastValidators.verifyCommit(state.chainId, state.lastBlockId, h.height - 1, block.lastCommit)
  }
  if (!state.validators.getByAddress(h.proposerAddress))
    throw new Error(`block.Header.ProposerAddress ${bytesToUpperHex(h.proposerAddress)} is not a validator`)
  if (h.height > state.initialHeight) {
    if (compareTime(h.time, state.lastBlockTime) <= 0) {
      throw new Error(`block time ${formatRfc3339Nano(h.time)} not greater than last block time ${formatRfc3339Nano(state.lastBlockTime)}`)
    }
    const median = medianTime(block.lastCommit, state.lastValidators)
    if (compareTime(h.time, median) !== 0)
      throw new Error(`invalid block time. Expected ${formatRfc3339Nano(median)}, got ${formatRfc3339Nano(h.time)}`)
  } else if (h.height === state.initialHeight) {
    if (compareTime(h.time, state.lastBlockTime) !== 0) {
      throw new Error(`block time ${formatRfc3339Nano(h.time)} is not equal to genesis time ${formatRfc3339Nano(state.lastBlockTime)}`)
    }
  } else {
    throw new Error(`block height ${h.height} lower than initial height ${state.initialHeight}`)
  }
  // The evidence itself is checked against the pool (`CheckEvidence`) by BlockExecutor.validateBlock.
  if (block.evidence.length > 0) {
    const max = state.consensusParams.evidence.maxBytes
    const got = evidenceListSize(block.evidence)
    if (BigInt(got) > max) throw new Error(`Too much evidence: Max ${max}, got ${got}`)
  }
}
