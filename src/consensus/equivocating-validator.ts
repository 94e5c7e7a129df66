/**
 * A byzantine validator, for fault tests only (`nodectl start --unsafe-double-sign-at H`): for the first
 * vote it signs that `when` selects, it also signs a second vote of the same height, round and type for a
 * random block — with its raw key, bypassing the double-sign guard of `priv_validator_state.json` — and
 * sends it to its peers itself. Honest validators that receive both catch it as DuplicateVoteEvidence.
 */
import { voteSignBytes } from '../comet/sign-bytes.js'
import type { BlockID, Proposal, Vote } from '../comet/types.js'
import { ed25519Sign, randomBytes } from '../crypto/index.js'
import type { ValidatorKey } from '../keystore/validator-key.js'
import type { PrivValidator } from './privval.js'
import type { ConsensusTransport } from './transport.js'

/** A complete BlockID of random hashes: a block that does not exist. */
function randomBlockId(): BlockID {
  return { hash: randomBytes(32), partSetHeader: { total: 1, hash: randomBytes(32) } }
}

export class EquivocatingValidator implements PrivValidator {
  /** The conflicting vote it sent, once it did. */
  conflicting: Vote | undefined

  constructor(
    private readonly inner: PrivValidator,
    private readonly key: ValidatorKey,
    private readonly transport: () => ConsensusTransport,
    private readonly when: (vote: Vote) => boolean,
  ) {}

  get address(): Uint8Array {
    return this.inner.address
  }

  get pubKey(): Uint8Array {
    return this.inner.pubKey
  }

  async signVote(chainId: string, vote: Vote): Promise<Vote> {
    const signed = await this.inner.signVote(chainId, vote)
    if (!this.conflicting && this.when(signed)) {
      const other = { ...signed, blockId: randomBlockId() }
      this.conflicting = { ...other, signature: ed25519Sign(this.key.seed, voteSignBytes(chainId, other)) }
      const transport = this.transport()
      for (const peer of transport.peers()) transport.send(peer, { type: 'vote', vote: this.conflicting })
    }
    return signed
  }

  signProposal(chainId: string, proposal: Proposal): Promise<Proposal> {
    return this.inner.signProposal(chainId, proposal)
  }
}
