/**
 * The fees of a transaction the CLI signs, chosen as cast chooses them: `--gas-price` is the gas price
 * of a legacy transaction or the fee cap (max fee per gas) of an EIP-1559 one, `--priority-gas-price`
 * its tip, `--legacy` asks for a legacy transaction where the chain has a base fee. What is not given
 * is filled as geth's eth_sendTransaction fills it. A `--nonce` naming one of the sender's pending
 * transactions, with no fee given, replaces it: each fee is raised to at least the pool's replacement
 * minimum above the old one, so the node accepts it instead of answering `replacement transaction
 * underpriced`.
 */
import type { HttpRpcClient } from '../rpc/client/index.js'

/**
 * How much more a replacement must pay on both fee cap and tip, in percent: geth's default
 * `txpool.pricebump` and our `[mempool] price_bump` default. A node configured higher refuses the
 * automatic bump as underpriced; give the fees then.
 */
export const REPLACEMENT_BUMP_PERCENT = 10n
/** geth's fee cap when it fills a tx (`transaction_args.go`): tip + 2 × base fee, room for six full blocks of +12.5 %. */
const BASE_FEE_HEADROOM = 2n

/** The fees the user gave (wei). */
export interface FeeRequest {
  /** `--gas-price`: legacy gas price, or EIP-1559 fee cap. */
  gasPrice?: bigint | undefined
  /** `--priority-gas-price`: EIP-1559 tip. */
  priorityFee?: bigint | undefined
  /** `--legacy`: a legacy transaction even where the chain has a base fee. */
  legacy?: boolean | undefined
}

/** The fees to sign with. */
export type Fees = { type: 'legacy'; gasPrice: bigint } | { type: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }

/** A pending transaction being replaced: its hash and the fees the new one must beat. */
export interface ReplacedTx {
  hash: string
  /** Fee cap (gas price for a legacy one), wei. */
  maxFeePerGas: bigint
  /** Tip (gas price for a legacy one), wei. */
  maxPriorityFeePerGas: bigint
}

/** The smallest fee the pool accepts in place of `fee`: {@link REPLACEMENT_BUMP_PERCENT} more, rounded up, and strictly more. */
export function bumpFee(fee: bigint): bigint {
  const bumped = (fee * (100n + REPLACEMENT_BUMP_PERCENT) + 99n) / 100n
  return bumped > fee ? bumped : fee + 1n
}

const max = (a: bigint, b: bigint): bigint => (a > b ? a : b)

/** The fields of eth_getPendingTransactions entries read here. */
interface PendingTxJson {
  hash: string
  from: string
  nonce: string
  gasPrice?: string
  maxFeePerGas?: string
  maxPriorityFeePerGas?: string
}

/** The sender's pending transaction with `nonce`, if the node's pool holds one (eth_getPendingTransactions). */
export async function findPendingTx(client: HttpRpcClient, from: string, nonce: bigint): Promise<ReplacedTx | undefined> {
  const pending = await client.call<PendingTxJson[]>('eth_getPendingTransactions')
  const tx = pending.find((t) => t.from.toLowerCase() === from.toLowerCase() && BigInt(t.nonce) === nonce)
  if (tx === undefined) return undefined
  const price = tx.gasPrice === undefined ? undefined : BigInt(tx.gasPrice)
  return {
    hash: tx.hash,
    maxFeePerGas: tx.maxFeePerGas === undefined ? price! : BigInt(tx.maxFeePerGas),
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas === undefined ? price! : BigInt(tx.maxPriorityFeePerGas),
  }
}

/**
 * The fees of a transaction: EIP-1559 when the latest block has a base fee and `--legacy` is not set
 * (geth's choice), legacy otherwise. Given fees are kept; a missing tip is eth_maxPriorityFeePerGas
 * (capped by a given fee cap), a missing fee cap tip + 2 × base fee, a missing gas price eth_gasPrice.
 * With `replaced` (and no fee given) each fee is at least {@link bumpFee} of the replaced one's.
 */
export async function fillFees(client: HttpRpcClient, req: FeeRequest, replaced: ReplacedTx | undefined): Promise<Fees> {
  const head = await client.call<{ baseFeePerGas?: string } | null>('eth_getBlockByNumber', ['latest', false])
  const eip1559 = head?.baseFeePerGas !== undefined && req.legacy !== true
  if (!eip1559) {
    if (req.priorityFee !== undefined)
      throw new Error(
        req.legacy
          ? '--priority-gas-price is an EIP-1559 fee: leave it out with --legacy, whose --gas-price pays both'
          : '--priority-gas-price is an EIP-1559 fee and this chain has no base fee: give --gas-price',
      )
    let gasPrice = req.gasPrice ?? BigInt(await client.call<string>('eth_gasPrice'))
    // A legacy gas price is both fee cap and tip: it must beat the higher of the two, the cap.
    if (replaced) gasPrice = max(gasPrice, bumpFee(replaced.maxFeePerGas))
    return { type: 'legacy', gasPrice }
  }
  const suggested = req.priorityFee ?? BigInt(await client.call<string>('eth_maxPriorityFeePerGas'))
  let tip = req.gasPrice !== undefined && req.priorityFee === undefined && suggested > req.gasPrice ? req.gasPrice : suggested
  let cap = req.gasPrice ?? tip + BASE_FEE_HEADROOM * BigInt(head!.baseFeePerGas!)
  if (replaced) {
    tip = max(tip, bumpFee(replaced.maxPriorityFeePerGas))
    cap = max(cap, bumpFee(replaced.maxFeePerGas))
  }
  if (tip > cap) throw new Error(`--priority-gas-price (${tip} wei) is above the fee cap --gas-price (${cap} wei)`)
  return { type: 'eip1559', maxFeePerGas: cap, maxPriorityFeePerGas: tip }
}
