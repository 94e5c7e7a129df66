/** Handlers of the consensus and evidence routes (CometBFT `rpc/core/{consensus,evidence}.go`). */
import { sha256 } from '../../crypto/index.js'
import { bytesToBase64 } from '../../primitives/hex.js'
import { encodeEvidence as encodeEvidenceProto } from '../../comet/encoding.js'
import type { DuplicateVoteEvidence } from '../../comet/types.js'
import { validateEvidenceBasic } from '../../consensus/evidence.js'
import { encodeConsensusParams, encodeInt64, encodeValidator } from './json.js'
import { encodePeerState, encodeRoundState, encodeRoundStateSimple } from './json-round-state.js'
import { latestUncommittedHeight, pageOf, resolveHeight, validatePage, validatePerPage, validatorsOf, type RouteContext } from './route.js'
import type { Json } from './wire-json.js'

/**
 * `validators`: the set of a height (default: the next height's, `latestUncommittedHeight`), in
 * canonical order (voting power desc, address asc), paginated.
 */
export async function getValidators(
  ctx: RouteContext,
  args: { height: bigint | undefined; page: bigint | undefined; per_page: bigint | undefined },
): Promise<Json> {
  const height = await resolveHeight(ctx, await latestUncommittedHeight(ctx), args.height)
  const set = await ctx.backend.loadValidators(height)
  if (!set) throw new Error(`could not find validator set for height #${height}`)
  const all = validatorsOf(set)
  const perPage = validatePerPage(args.per_page)
  const page = validatePage(args.page, perPage, all.length)
  const shown = pageOf(all, page, perPage)
  return {
    block_height: encodeInt64(height),
    validators: shown.map(encodeValidator),
    count: encodeInt64(shown.length),
    total: encodeInt64(all.length),
  }
}

/** `consensus_params`: the params in force at a height (default: the next height). */
export async function getConsensusParams(ctx: RouteContext, args: { height: bigint | undefined }): Promise<Json> {
  const height = await resolveHeight(ctx, await latestUncommittedHeight(ctx), args.height)
  const params = await ctx.backend.loadConsensusParams(height)
  if (!params) throw new Error(`could not find consensus params for height #${height}`)
  return { block_height: encodeInt64(height), consensus_params: encodeConsensusParams(params) }
}

/** `consensus_state` (UNSTABLE): height/round/step, proposal hashes, votes per round, proposer. */
export async function getConsensusState(ctx: RouteContext): Promise<Json> {
  return { round_state: encodeRoundStateSimple(await ctx.backend.roundState()) }
}

/** `dump_consensus_state` (UNSTABLE): the full round state and each peer's consensus state. */
export async function dumpConsensusState(ctx: RouteContext): Promise<Json> {
  const [rs, peers] = await Promise.all([ctx.backend.roundState(), ctx.backend.peers()])
  return {
    round_state: encodeRoundState(rs),
    peers: peers.map((p) => ({
      node_address: `${p.nodeInfo.id}@${p.remoteIp}`,
      peer_state: p.roundState ? encodePeerState(p.roundState, rs.validators.size) : {},
    })),
  }
}

/** `broadcast_evidence`: validates and adds evidence to the pool; returns its hash (SHA-256 of its protobuf), base64. */
export async function broadcastEvidence(ctx: RouteContext, args: { evidence: DuplicateVoteEvidence | undefined }): Promise<Json> {
  const ev = args.evidence
  if (!ev) throw new Error('no evidence was provided')
  try {
    validateEvidenceBasic(ev)
  } catch (err) {
    throw new Error(`evidence.ValidateBasic failed: ${(err as Error).message}`)
  }
  try {
    await ctx.backend.addEvidence(ev)
  } catch (err) {
    throw new Error(`failed to add evidence: ${(err as Error).message}`)
  }
  return { hash: bytesToBase64(sha256(encodeEvidenceProto(ev))) }
}
