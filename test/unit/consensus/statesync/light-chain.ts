/** A chain of signed light blocks for the state-sync tests: `n` heights, one validator set, a distinct app hash per height. */
import { sha256 } from '../../../../src/crypto/index.js'
import type { ConsensusParams } from '../../../../src/abci/types.js'
import { hashConsensusParams } from '../../../../src/comet/hash.js'
import type { ValidatorSet } from '../../../../src/comet/validator-set.js'
import { makeGenesisState, type ChainState } from '../../../../src/consensus/chain-state.js'
import type { LightBlockSource } from '../../../../src/consensus/statesync/light-state-provider.js'
import type { LightBlock } from '../../../../src/consensus/statesync/light-verify.js'
import { utf8ToBytes } from '../../../../src/primitives/hex.js'
import type { Timestamp } from '../../../../src/utils/time.js'
import { CHAIN_ID, makeBlockId, makeTestBlock, signCommit, testValidators } from '../../comet/fixtures.js'
import { defaultParams } from '../helpers.js'

export interface LightChain {
  blocks: Map<number, LightBlock>
  set: ValidatorSet
  params: ConsensusParams
  source: LightBlockSource
  /** A moment within a week of the chain's blocks. */
  now: Timestamp
}

/** The app hash the chain's header `height` carries. */
export function appHashAt(height: number): Uint8Array {
  return sha256(utf8ToBytes(`app ${height}`))
}

export function makeLightChain(n: number, powers: bigint[] = [10n, 10n, 10n, 10n]): LightChain {
  const { set, seeds } = testValidators(powers)
  const params = defaultParams()
  const blocks = new Map<number, LightBlock>()
  for (let h = 1; h <= n; h++) {
    const block = makeTestBlock(h, set)
    block.header.appHash = appHashAt(h)
    block.header.consensusHash = hashConsensusParams(params)
    const { blockId } = makeBlockId(block)
    blocks.set(h, { header: block.header, commit: signCommit(set, seeds, h, blockId), validators: set })
  }
  const source: LightBlockSource = {
    lightBlock: async (height) => {
      const b = blocks.get(height)
      if (!b) throw new Error(`no light block ${height}`)
      return b
    },
    consensusParams: async () => params,
  }
  return { blocks, set, params, source, now: { seconds: 1_700_000_000 + n + 60, nanos: 0 } }
}

/** The genesis state of `chain` (no validators, no app state): where a state-synced node starts from. */
export function lightChainGenesis(chain: LightChain): ChainState {
  return makeGenesisState({
    genesisTime: { seconds: 1_700_000_000, nanos: 0 },
    chainId: CHAIN_ID,
    initialHeight: 1,
    consensusParams: chain.params,
    validators: [],
    appHash: new Uint8Array(0),
    appStateBytes: () => new Uint8Array(0),
  })
}
