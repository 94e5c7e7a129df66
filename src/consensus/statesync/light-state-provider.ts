/**
 * What state sync trusts, and how it gets it (CometBFT `statesync/stateprovider.go`): the header at the
 * operator's trust height whose hash is the trust hash is the root of trust; every other header is verified
 * from it by the light client (light-verify.ts), the nearest verified one first, bisecting when too few of
 * its validators signed. From the verified headers at H, H+1 and H+2 come the app hash a snapshot of height
 * H must restore (header H+1's), the commit of H, and the chain state after H.
 */
import type { ConsensusParams } from '../../abci/types.js'
import { hashConsensusParams, hashHeader } from '../../comet/hash.js'
import type { Commit } from '../../comet/types.js'
import { bytesToUpperHex, equalBytes } from '../../primitives/hex.js'
import { now, type Timestamp } from '../../utils/time.js'
import type { ChainState } from '../chain-state.js'
import {
  type LightBlock,
  LightVerificationError,
  NotEnoughTrustError,
  TrustExpiredError,
  verifyLightBlock,
  verifySelfConsistent,
} from './light-verify.js'

/** Where light blocks come from (the `rpc_servers`, rpc-light-source.ts). */
export interface LightBlockSource {
  /** The signed header and validator set of `height`; rejects when no server has it. */
  lightBlock(height: number): Promise<LightBlock>
  /** The consensus params in force at `height`. */
  consensusParams(height: number): Promise<ConsensusParams>
}

/** The operator's root of trust (`[statesync] trust_height`, `trust_hash`, `trust_period`). */
export interface StateSyncTrust {
  height: number
  hash: Uint8Array
  periodMs: number
}

/** The trust options do not name a header the servers have: the operator must fix the configuration. */
export class TrustOptionsError extends Error {
  override name = 'TrustOptionsError'
}

export class LightStateProvider {
  /** Verified light blocks by height, the trusted one included. */
  private readonly verified = new Map<number, LightBlock>()

  constructor(
    private readonly source: LightBlockSource,
    private readonly chainId: string,
    private readonly trust: StateSyncTrust,
    private readonly clock: () => Timestamp = now,
  ) {}

  /** The lowest height a snapshot may have: the trusted one (earlier headers are not verified backwards). */
  get trustHeight(): number {
    return this.trust.height
  }

  /** The app hash a snapshot of `height` must restore: header `height + 1`'s (H+2 is checked now too, as the state needs it). */
  async appHash(height: number): Promise<Uint8Array> {
    const [next] = await Promise.all([this.verifiedBlock(height + 1), this.verifiedBlock(height + 2)])
    return next.header.appHash
  }

  /** The verified commit of block `height`. */
  async commit(height: number): Promise<Commit> {
    return (await this.verifiedBlock(height)).commit
  }

  /**
   * The chain state after block `height` (CometBFT `State`): `initial` gives the chain id and initial height;
   * validators of H, H+1 and H+2 and header H+1's app hash, results hash and app version come from the light
   * blocks, the params of H+1 from a server, checked against header H+1's consensus hash.
   */
  async state(height: number, initial: ChainState): Promise<ChainState> {
    const [last, current, next] = await Promise.all([height, height + 1, height + 2].map((h) => this.verifiedBlock(h)))
    const params = await this.source.consensusParams(height + 1)
    if (!equalBytes(hashConsensusParams(params), current!.header.consensusHash)) {
      throw new LightVerificationError(`consensus params of height ${height + 1} do not match header ${height + 1}'s consensus hash`)
    }
    return {
      chainId: initial.chainId,
      initialHeight: initial.initialHeight,
      lastBlockHeight: height,
      lastBlockId: last!.commit.blockId,
      lastBlockTime: last!.header.time,
      lastValidators: last!.validators.copy(),
      validators: current!.validators.copy(),
      nextValidators: next!.validators.copy(),
      lastHeightValidatorsChanged: height + 2,
      consensusParams: params,
      lastHeightConsensusParamsChanged: height + 1,
      lastResultsHash: current!.header.lastResultsHash,
      appHash: current!.header.appHash,
      appVersion: current!.header.version.app,
    }
  }

  /** Light block `height`, verified from the nearest verified one below it (bisecting when needed). */
  async verifiedBlock(height: number): Promise<LightBlock> {
    const known = this.verified.get(height)
    if (known) return known
    if (height < this.trust.height) {
      throw new TrustOptionsError(`height ${height} is below [statesync] trust_height ${this.trust.height}: choose an earlier trust height`)
    }
    let trusted = await this.trustedBlock()
    for (const [h, block] of this.verified) if (h < height && h > trusted.header.height) trusted = block
    const pending = [await this.source.lightBlock(height)]
    while (pending.length > 0) {
      const candidate = pending[pending.length - 1]!
      try {
        verifyLightBlock(trusted, candidate, { chainId: this.chainId, trustPeriodMs: this.trust.periodMs, now: this.clock() })
      } catch (err) {
        const pivot = Math.floor((trusted.header.height + candidate.header.height) / 2)
        if (!(err instanceof NotEnoughTrustError) || pivot <= trusted.header.height) throw err
        pending.push(await this.source.lightBlock(pivot))
        continue
      }
      this.verified.set(candidate.header.height, candidate)
      trusted = candidate
      pending.pop()
    }
    return this.verified.get(height)!
  }

  /** The header at the trust height, checked against the trust hash and the trusting period. */
  private async trustedBlock(): Promise<LightBlock> {
    const known = this.verified.get(this.trust.height)
    if (known) return known
    const { height, hash, periodMs } = this.trust
    const block = await this.source.lightBlock(height)
    const actual = hashHeader(block.header)
    if (!equalBytes(actual, hash)) {
      throw new TrustOptionsError(
        `[statesync] trust_hash ${bytesToUpperHex(hash)} is not the hash of the header at trust_height ${height} (${bytesToUpperHex(actual)})`,
      )
    }
    verifySelfConsistent(block, this.chainId)
    const expiry = block.header.time.seconds * 1000 + periodMs
    if (expiry <= this.clock().seconds * 1000) {
      throw new TrustExpiredError(`the header at trust_height ${height} is older than trust_period: set a recent trust height and hash`)
    }
    this.verified.set(height, block)
    return block
  }
}
