/** Handlers of the transaction and mempool routes (CometBFT `rpc/core/{tx,mempool}.go`). */
import { bytesToBase64, bytesToUpperHex } from '../../primitives/hex.js'
import { hashTx } from '../../comet/hash.js'
import { merkleProofs } from '../../comet/merkle.js'
import type { TxResult } from '../../abci/types.js'
import type { CheckTxResponse } from '../../abci/application.js'
import { cometErrorOf } from './errors.js'
import { emptyExecTxResult } from './json-abci.js'
import { encodeCheckTx, encodeExecTxResult, encodeHexBytes, encodeInt64, encodeTxProof } from './json.js'
import { pageOf, validatePage, validatePerPage, type RouteContext } from './route.js'
import type { Json, JsonObject } from './wire-json.js'

/** `maxQueryLength` of tx_search and subscribe (rpc/core/events.go). */
export const MAX_QUERY_LENGTH = 512

/** The Merkle proof of the tx at `index` of the block at `height` against its data hash (leaves = SHA-256 of each tx). */
async function proveTx(ctx: RouteContext, height: number, index: number): Promise<JsonObject | undefined> {
  const block = await ctx.backend.loadBlock(height)
  if (!block || index >= block.txs.length) return undefined
  const { root, proofs } = merkleProofs(block.txs.map(hashTx))
  return encodeTxProof(root, block.txs[index]!, proofs[index]!)
}

/** `ResultTx`: hash, height, index, tx_result, tx, and `proof` only when asked for. */
async function encodeResultTx(ctx: RouteContext, r: TxResult, prove: boolean): Promise<JsonObject> {
  return {
    hash: encodeHexBytes(hashTx(r.tx)),
    height: encodeInt64(r.height),
    index: r.index,
    tx_result: encodeExecTxResult(r.result),
    tx: bytesToBase64(r.tx),
    proof: prove ? await proveTx(ctx, r.height, r.index) : undefined,
  }
}

async function requireTxIndex(ctx: RouteContext): Promise<void> {
  if (!(await ctx.backend.nodeInfo()).txIndex) throw new Error('transaction indexing is disabled')
}

/** `tx`: an indexed tx by its consensus hash (SHA-256), with an optional inclusion proof. */
export async function getTx(ctx: RouteContext, args: { hash: Uint8Array; prove: boolean }): Promise<Json> {
  await requireTxIndex(ctx)
  const r = await ctx.backend.getTx(args.hash)
  if (!r) throw new Error(`tx (${bytesToUpperHex(args.hash)}) not found`)
  return { ...(await encodeResultTx(ctx, r, args.prove)), hash: encodeHexBytes(args.hash) }
}

/** `tx_search`: txs matching an event query, sorted by (height, index), then paginated. */
export async function searchTxs(
  ctx: RouteContext,
  args: { query: string; prove: boolean; page: bigint | undefined; per_page: bigint | undefined; order_by: string },
): Promise<Json> {
  await requireTxIndex(ctx)
  if (args.query.length > MAX_QUERY_LENGTH) throw new Error('maximum query length exceeded')
  const results = [...(await ctx.backend.searchTxs(args.query))]
  const asc = (a: TxResult, b: TxResult): number => a.height - b.height || a.index - b.index
  switch (args.order_by) {
    case 'desc':
      results.sort((a, b) => asc(b, a))
      break
    case 'asc':
    case '':
      results.sort(asc)
      break
    default:
      throw new Error('expected order_by to be either `asc` or `desc` or empty')
  }
  const perPage = validatePerPage(args.per_page)
  const page = validatePage(args.page, perPage, results.length)
  const txs: Json[] = []
  for (const r of pageOf(results, page, perPage)) txs.push(await encodeResultTx(ctx, r, args.prove))
  return { txs, total_count: encodeInt64(results.length) }
}

/**
 * `unconfirmed_txs`: up to `limit` (default 30, max 100) of the mempool's txs; `n_txs` is how many are
 * listed, `total` and `total_bytes` cover all of them, as in CometBFT (so n_txs = total when total ≤ limit).
 */
export async function getUnconfirmedTxs(ctx: RouteContext, args: { limit: bigint | undefined }): Promise<Json> {
  const limit = validatePerPage(args.limit)
  const [txs, size] = await Promise.all([ctx.backend.unconfirmedTxs(limit), ctx.backend.mempoolSize()])
  return {
    n_txs: encodeInt64(txs.length),
    total: encodeInt64(size.count),
    total_bytes: encodeInt64(size.bytes),
    txs: txs.map((tx) => bytesToBase64(tx)),
  }
}

/** `num_unconfirmed_txs`: counts only (`txs` is null); `n_txs` = `total`, as CometBFT's. */
export async function getNumUnconfirmedTxs(ctx: RouteContext): Promise<Json> {
  const size = await ctx.backend.mempoolSize()
  return { n_txs: encodeInt64(size.count), total: encodeInt64(size.count), total_bytes: encodeInt64(size.bytes), txs: null }
}

/** `check_tx`: the application's CheckTx only; the result object is flat. */
export async function checkTx(ctx: RouteContext, args: { tx: Uint8Array }): Promise<Json> {
  return encodeCheckTx(await ctx.backend.checkTx(args.tx))
}

/**
 * `broadcast_tx_async`: submits to the mempool and answers without the CheckTx result. Mempool
 * errors (duplicate, too large, full) are still errors, as in CometBFT where they are synchronous.
 */
export async function broadcastTxAsync(ctx: RouteContext, args: { tx: Uint8Array }): Promise<Json> {
  await ctx.backend.broadcastTx(args.tx)
  return { code: 0, data: '', log: '', codespace: '', hash: encodeHexBytes(hashTx(args.tx)) }
}

/** `broadcast_tx_sync`: waits for CheckTx; a rejection by the app is a success with code ≠ 0. `data` is HexBytes here. */
export async function broadcastTxSync(ctx: RouteContext, args: { tx: Uint8Array }): Promise<Json> {
  const r = await ctx.backend.broadcastTx(args.tx)
  return { code: r.code, data: encodeHexBytes(r.data), log: r.log, codespace: r.codespace, hash: encodeHexBytes(hashTx(args.tx)) }
}

/**
 * `broadcast_tx_commit`: waits for CheckTx, then for the block that includes the tx, at most
 * `timeout_broadcast_tx_commit`. It subscribes before submitting so the inclusion cannot be missed.
 */
export async function broadcastTxCommit(ctx: RouteContext, args: { tx: Uint8Array }): Promise<Json> {
  const hash = hashTx(args.tx)
  const stop = new AbortController()
  let rejectClosed: (err: Error) => void = () => undefined
  const closed = new Promise<never>((_, reject) => (rejectClosed = reject))
  closed.catch(() => undefined)
  const onClose = (): void => rejectClosed(new Error('txSub was canceled (reason: CometBFT exited)'))
  if (ctx.signal.aborted) onClose()
  else ctx.signal.addEventListener('abort', onClose, { once: true })
  const included = ctx.backend.waitForTx(hash, stop.signal)
  included.catch(() => undefined)
  let timer: NodeJS.Timeout | undefined
  try {
    let check: CheckTxResponse
    try {
      check = await ctx.backend.broadcastTx(args.tx)
    } catch (err) {
      throw new Error(`error on broadcastTxCommit: ${cometErrorOf(err).data}`)
    }
    const base = {
      check_tx: encodeCheckTx(check),
      tx_result: encodeExecTxResult(emptyExecTxResult()),
      hash: encodeHexBytes(hash),
      height: '0',
    }
    if (check.code !== 0) return base
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error('timed out waiting for tx to be included in a block')),
        ctx.options.timeoutBroadcastTxCommit,
      )
    })
    const r = await Promise.race([included, timeout, closed])
    return { ...base, tx_result: encodeExecTxResult(r.result), height: encodeInt64(r.height) }
  } finally {
    clearTimeout(timer)
    stop.abort()
    ctx.signal.removeEventListener('abort', onClose)
  }
}
