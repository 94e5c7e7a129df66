import { describe, expect, it } from 'vitest'
import { hashHeader } from '../../../../src/comet/hash.js'
import { LightStateProvider, TrustOptionsError } from '../../../../src/consensus/statesync/light-state-provider.js'
import { LightVerificationError, TrustExpiredError, verifyLightBlock } from '../../../../src/consensus/statesync/light-verify.js'
import { ValidatorSet } from '../../../../src/comet/validator-set.js'
import { CHAIN_ID, makeBlockId, makeTestBlock, signCommit, testKey } from '../../comet/fixtures.js'
import { appHashAt, lightChainGenesis, makeLightChain } from './light-chain.js'

const WEEK_MS = 7 * 24 * 3600_000

describe('light-client verification', () => {
  it('verifies the next header and one many heights on from a trusted one', () => {
    const chain = makeLightChain(50)
    const opts = { chainId: CHAIN_ID, trustPeriodMs: WEEK_MS, now: chain.now }
    expect(() => verifyLightBlock(chain.blocks.get(10)!, chain.blocks.get(11)!, opts)).not.toThrow()
    expect(() => verifyLightBlock(chain.blocks.get(10)!, chain.blocks.get(50)!, opts)).not.toThrow()
  })

  it('refuses a header signed by validators the trusted ones do not know', () => {
    const chain = makeLightChain(20)
    const keys = [100, 101, 102].map(testKey)
    const other = ValidatorSet.fromUpdates(keys.map((k) => ({ pubKey: k.pubKey, power: 10n })))
    const seeds = new Map(keys.map((k) => [Buffer.from(k.address).toString('hex'), k.seed]))
    const forged = makeTestBlock(20, other)
    const { blockId } = makeBlockId(forged)
    const block = { header: forged.header, commit: signCommit(other, seeds, 20, blockId), validators: other }
    expect(() => verifyLightBlock(chain.blocks.get(10)!, block, { chainId: CHAIN_ID, trustPeriodMs: WEEK_MS, now: chain.now })).toThrow(
      /not enough of the trusted validators signed/,
    )
  })

  it('refuses a header whose commit is for another block, and any header once the trusted one expired', () => {
    const chain = makeLightChain(20)
    const opts = { chainId: CHAIN_ID, trustPeriodMs: WEEK_MS, now: chain.now }
    const tampered = { ...chain.blocks.get(15)!, header: { ...chain.blocks.get(15)!.header, appHash: appHashAt(99) } }
    expect(() => verifyLightBlock(chain.blocks.get(10)!, tampered, opts)).toThrow(LightVerificationError)
    expect(() => verifyLightBlock(chain.blocks.get(10)!, chain.blocks.get(15)!, { ...opts, trustPeriodMs: 1000 })).toThrow(
      TrustExpiredError,
    )
  })
})

describe('LightStateProvider', () => {
  const trustOf = (chain: ReturnType<typeof makeLightChain>, height: number) => ({
    height,
    hash: hashHeader(chain.blocks.get(height)!.header),
    periodMs: WEEK_MS,
  })

  it('gives header H+1 app hash for a snapshot of H, the commit of H and the state after H', async () => {
    const chain = makeLightChain(40)
    const light = new LightStateProvider(chain.source, CHAIN_ID, trustOf(chain, 5), () => chain.now)
    expect(await light.appHash(30)).toEqual(appHashAt(31))
    expect((await light.commit(30)).height).toBe(30)
    const genesis = lightChainGenesis(chain)
    const state = await light.state(30, genesis)
    expect(state.lastBlockHeight).toBe(30)
    expect(state.appHash).toEqual(appHashAt(31))
    expect(state.lastBlockId.hash).toEqual(hashHeader(chain.blocks.get(30)!.header))
    expect(state.validators.hash()).toEqual(chain.set.hash())
    expect(state.consensusParams).toEqual(chain.params)
  })

  it('names the setting to fix for a wrong trust hash, an expired trust period and a height below the trusted one', async () => {
    const chain = makeLightChain(20)
    const wrong = new LightStateProvider(chain.source, CHAIN_ID, { ...trustOf(chain, 5), hash: hashHeader(chain.blocks.get(6)!.header) })
    await expect(wrong.appHash(10)).rejects.toThrow(/trust_hash .* is not the hash of the header at trust_height 5/)
    await expect(wrong.appHash(10)).rejects.toBeInstanceOf(TrustOptionsError)
    const expired = new LightStateProvider(chain.source, CHAIN_ID, { ...trustOf(chain, 5), periodMs: 1000 }, () => chain.now)
    await expect(expired.appHash(10)).rejects.toBeInstanceOf(TrustExpiredError)
    const later = new LightStateProvider(chain.source, CHAIN_ID, trustOf(chain, 12), () => chain.now)
    await expect(later.appHash(8)).rejects.toThrow(/below \[statesync\] trust_height 12/)
  })
})
