/**
 * eth_feeHistory as geth's `gasprice.Oracle.FeeHistory`: per block its base fee and gas-used ratio,
 * plus the base fee of the block after the newest (so `baseFeePerGas` has blockCount + 1 entries), and
 * for each requested percentile the effective tip at that share of the block's gas, transactions
 * sorted by tip and weighted by their receipts' gas used.
 */
import type { EvmBlock } from '../../evm/store/views.js'
import { NodeError } from '../../utils/errors.js'
import { toQuantity } from '../../primitives/quantity.js'
import { DecodeError, type Codec } from '../../rpc/codecs.js'
import type { EthBackend } from './backend.js'
import type { BlockNumberOrTag } from './block-params.js'
import { resolveHeight } from './resolve-block.js'

/** The JSON result (geth `feeHistoryResult`; `reward` only when percentiles were asked). */
export interface FeeHistoryJson {
  oldestBlock: string
  baseFeePerGas: string[]
  gasUsedRatio: number[]
  reward?: string[][]
}

/**
 * geth `math.HexOrDecimal64`: a JSON number, a decimal string or a `0x` hex string. Anything else is
 * quoted as its JSON text in the error, as geth quotes the raw input (`invalid hex or decimal integer "{}"`).
 */
export const blockCount: Codec<number> = (value) => {
  const text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value)
  const hex = text.startsWith('0x') || text.startsWith('0X')
  const digits = hex ? text.slice(2) : text
  const valid = hex ? /^[0-9a-fA-F]{1,16}$/.test(digits) : /^[0-9]{1,20}$/.test(digits)
  const n = valid ? BigInt(hex ? '0x' + digits : digits) : -1n
  if (text !== '' && (n < 0n || n > 0xffffffffffffffffn)) throw new DecodeError(`invalid hex or decimal integer ${JSON.stringify(text)}`)
  return n <= 0n ? 0 : n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n)
}

/** Go's `%f`. */
const formatFloat = (p: number): string => p.toFixed(6)

function checkPercentiles(percentiles: readonly number[]): void {
  for (let i = 0; i < percentiles.length; i++) {
    const p = percentiles[i]!
    if (p < 0 || p > 100) throw new NodeError(`invalid reward percentile: ${formatFloat(p)}`)
    if (i > 0 && p <= percentiles[i - 1]!) {
      throw new NodeError(`invalid reward percentile: #${i - 1}:${formatFloat(percentiles[i - 1]!)} >= #${i}:${formatFloat(p)}`)
    }
  }
}

/** Rewards of one block (geth `processBlock`): all zero for a block without transactions. */
async function blockRewards(backend: EthBackend, block: EvmBlock, percentiles: readonly number[]): Promise<string[]> {
  if (block.transactions.length === 0) return percentiles.map(() => '0x0')
  const [txs, receipts] = await Promise.all([backend.getBlockTransactions(block), backend.getBlockReceipts(block)])
  const sorted = txs
    .map((tx, i) => {
      // The record's gasPrice is the effective price once mined, for every type.
      const tip = tx.gasPrice > block.baseFeePerGas ? tx.gasPrice - block.baseFeePerGas : 0n
      return { tip, gasUsed: receipts[i]?.gasUsed ?? 0n }
    })
    .sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0))
  const rewards: string[] = []
  let index = 0
  let sumGasUsed = sorted[0]!.gasUsed
  for (const p of percentiles) {
    const threshold = BigInt(Math.floor((Number(block.gasUsed) * p) / 100))
    while (sumGasUsed < threshold && index < sorted.length - 1) {
      index++
      sumGasUsed += sorted[index]!.gasUsed
    }
    rewards.push(toQuantity(sorted[index]!.tip))
  }
  return rewards
}

/**
 * Fee history of `count` blocks ending at `newest`. `count` is clamped to `cap` (`feehistory-cap`;
 * geth clamps rather than failing as Evmos does) and to the blocks that exist. A newest block past the
 * head fails as geth: `request beyond head block: requested N, head M`.
 */
export async function getFeeHistory(
  backend: EthBackend,
  count: number,
  newest: BlockNumberOrTag,
  percentiles: readonly number[] | undefined,
  cap: number,
): Promise<FeeHistoryJson> {
  if (percentiles) checkPercentiles(percentiles)
  const head = backend.latestHeight()
  const last = resolveHeight(backend, newest)
  if (last > head) throw new NodeError(`request beyond head block: requested ${last}, head ${head}`)
  const blocks = Math.min(count, cap > 0 ? cap : count, last + 1)
  if (blocks <= 0) return { oldestBlock: '0x0', baseFeePerGas: [], gasUsedRatio: [] }
  const oldest = last - blocks + 1
  const baseFeePerGas: string[] = []
  const gasUsedRatio: number[] = []
  const reward: string[][] = []
  let block: EvmBlock | undefined
  for (let height = oldest; height <= last; height++) {
    block = await backend.getBlockByNumber(height)
    if (block === undefined) throw new NodeError(`block ${height} not found`)
    baseFeePerGas.push(toQuantity(block.baseFeePerGas))
    gasUsedRatio.push(block.gasLimit === 0n ? 0 : Number(block.gasUsed) / Number(block.gasLimit))
    if (percentiles && percentiles.length > 0) reward.push(await blockRewards(backend, block, percentiles))
  }
  baseFeePerGas.push(toQuantity(backend.calcNextBaseFee(block!)))
  const out: FeeHistoryJson = { oldestBlock: toQuantity(oldest), baseFeePerGas, gasUsedRatio }
  if (percentiles && percentiles.length > 0) out.reward = reward
  return out
}
