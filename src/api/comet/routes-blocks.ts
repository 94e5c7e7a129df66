/** Handlers of the block routes (CometBFT `rpc/core/blocks.go`). */
import { zeroBlockId } from '../../comet/part-set.js'
import type { Block, BlockID } from '../../comet/types.js'
import {
  encodeBlock,
  encodeBlockId,
  encodeBlockMeta,
  encodeBytes,
  encodeCommit,
  encodeConsensusParamUpdates,
  encodeEvent,
  encodeExecTxResult,
  encodeHeader,
  encodeInt64,
  encodeValidatorUpdate,
} from './json.js'
import { pageOf, resolveHeight, validatePage, validatePerPage, type RouteContext } from './route.js'
import type { Json, JsonObject } from './wire-json.js'

/** `blockchain` returns at most 20 metas (`BlockchainInfo` limit). */
export const BLOCKCHAIN_MAX_METAS = 20

/**
 * `filterMinMax`: negatives are errors; 0 means base / latest; max is capped at latest, min at base
 * and at max − 19, so at most 20 heights are returned.
 */
export function filterMinMax(base: number, height: number, min: bigint, max: bigint, limit = BLOCKCHAIN_MAX_METAS): [number, number] {
  if (min < 0n || max < 0n) throw new Error('heights must be non-negative')
  if (min === 0n) min = 1n
  if (max === 0n) max = BigInt(height)
  if (max > BigInt(height)) max = BigInt(height)
  if (min < BigInt(base)) min = BigInt(base)
  if (min < max - BigInt(limit) + 1n) min = max - BigInt(limit) + 1n
  if (min > max) throw new Error(`min height ${min} can't be greater than max height ${max}`)
  return [Number(min), Number(max)]
}

/** `blockchain`: metas of [minHeight, maxHeight], highest first. */
export async function getBlockchain(ctx: RouteContext, args: { minHeight: bigint; maxHeight: bigint }): Promise<Json> {
  const [base, latest] = await Promise.all([ctx.backend.baseHeight(), ctx.backend.latestHeight()])
  const [min, max] = filterMinMax(base, latest, args.minHeight, args.maxHeight)
  const metas: Json[] = []
  for (let h = max; h >= min; h--) {
    const meta = await ctx.backend.loadBlockMeta(h)
    metas.push(meta ? encodeBlockMeta(meta) : null)
  }
  return { last_height: encodeInt64(latest), block_metas: metas }
}

/** `{block_id, block}` as `block`, `block_by_hash` and `block_search` return it. */
export function encodeResultBlock(blockId: BlockID, block: Block | undefined): JsonObject {
  return { block_id: encodeBlockId(blockId), block: block ? encodeBlock(block) : null }
}

/** `block`: the block at a height (default latest) and its BlockID. */
export async function getBlock(ctx: RouteContext, args: { height: bigint | undefined }): Promise<Json> {
  const height = await resolveHeight(ctx, await ctx.backend.latestHeight(), args.height)
  const [block, meta] = await Promise.all([ctx.backend.loadBlock(height), ctx.backend.loadBlockMeta(height)])
  return encodeResultBlock(meta ? meta.blockId : zeroBlockId(), block)
}

/** `block_by_hash`: an unknown hash gives the zero BlockID and a null block, not an error. */
export async function getBlockByHash(ctx: RouteContext, args: { hash: Uint8Array }): Promise<Json> {
  const height = await ctx.backend.heightByHash(args.hash)
  const block = height === undefined ? undefined : await ctx.backend.loadBlock(height)
  const meta = block ? await ctx.backend.loadBlockMeta(block.header.height) : undefined
  if (!block || !meta) return encodeResultBlock(zeroBlockId(), undefined)
  return encodeResultBlock(meta.blockId, block)
}

/** `header`: the header at a height (default latest), or `{"header":null}`. */
export async function getHeader(ctx: RouteContext, args: { height: bigint | undefined }): Promise<Json> {
  const height = await resolveHeight(ctx, await ctx.backend.latestHeight(), args.height)
  const meta = await ctx.backend.loadBlockMeta(height)
  return { header: meta ? encodeHeader(meta.header) : null }
}

/** `header_by_hash`: unknown → `{"header":null}`. */
export async function getHeaderByHash(ctx: RouteContext, args: { hash: Uint8Array }): Promise<Json> {
  const height = await ctx.backend.heightByHash(args.hash)
  const meta = height === undefined ? undefined : await ctx.backend.loadBlockMeta(height)
  return { header: meta ? encodeHeader(meta.header) : null }
}

/**
 * `commit`: signed header of a height. At the latest height the next block does not exist yet, so
 * the commit this node saw is returned with `canonical:false`; earlier heights get the canonical one.
 */
export async function getCommit(ctx: RouteContext, args: { height: bigint | undefined }): Promise<Json> {
  const latest = await ctx.backend.latestHeight()
  const height = await resolveHeight(ctx, latest, args.height)
  const meta = await ctx.backend.loadBlockMeta(height)
  if (!meta) return null
  const canonical = height !== latest
  const commit = canonical ? await ctx.backend.loadBlockCommit(height) : await ctx.backend.loadSeenCommit(height)
  return { signed_header: { header: encodeHeader(meta.header), commit: commit ? encodeCommit(commit) : null }, canonical }
}

/** `block_results`: the stored FinalizeBlock response (app_hash in base64 here). */
export async function getBlockResults(ctx: RouteContext, args: { height: bigint | undefined }): Promise<Json> {
  const height = await resolveHeight(ctx, await ctx.backend.latestHeight(), args.height)
  const r = await ctx.backend.loadFinalizeBlockResults(height)
  if (!r) throw new Error(`could not find results for height #${height}`)
  // Nil slices after protobuf decoding are `null`, never `[]`.
  return {
    height: encodeInt64(height),
    txs_results: r.txResults.length === 0 ? null : r.txResults.map(encodeExecTxResult),
    finalize_block_events: r.events.length === 0 ? null : r.events.map((e) => encodeEvent(e)),
    validator_updates: r.validatorUpdates.length === 0 ? null : r.validatorUpdates.map(encodeValidatorUpdate),
    consensus_param_updates: encodeConsensusParamUpdates(r.consensusParamUpdates),
    app_hash: encodeBytes(r.appHash),
  }
}

/** `block_search`: blocks whose FinalizeBlock events match; default order newest first. */
export async function searchBlocks(
  ctx: RouteContext,
  args: { query: string; page: bigint | undefined; per_page: bigint | undefined; order_by: string },
): Promise<Json> {
  const info = await ctx.backend.nodeInfo()
  if (!info.txIndex) throw new Error('block indexing is disabled')
  const heights = [...(await ctx.backend.searchBlocks(args.query))]
  switch (args.order_by) {
    case 'desc':
    case '':
      heights.sort((a, b) => b - a)
      break
    case 'asc':
      heights.sort((a, b) => a - b)
      break
    default:
      throw new Error('expected order_by to be either `asc` or `desc` or empty')
  }
  const perPage = validatePerPage(args.per_page)
  const page = validatePage(args.page, perPage, heights.length)
  const blocks: Json[] = []
  for (const h of pageOf(heights, page, perPage)) {
    const [block, meta] = await Promise.all([ctx.backend.loadBlock(h), ctx.backend.loadBlockMeta(h)])
    if (block && meta) blocks.push(encodeResultBlock(meta.blockId, block))
  }
  return { blocks, total_count: encodeInt64(heights.length) }
}
