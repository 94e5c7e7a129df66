/**
 * The logs of one block as eth_getLogs serves them: a compact record per block with logs (one read
 * per matching height instead of the block record plus every transaction record), and an in-memory
 * cache of recent blocks' decoded logs (with their columns for matching: log-columns.ts). A cached
 * block's array of logs keeps its identity between queries, so the RPC layer can memoise the block's
 * JSON (api/eth/log-json.ts).
 *
 * Record (key `evmLogs ‖ height(8)`, written only for blocks with logs):
 *   RLP[blockHash, [[txIndex, txHash, [[address, [topic…], data]…]]…]]   (txs without logs omitted)
 * Log indexes are block-wide and follow the order of the record.
 */
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigint } from '../../primitives/hex.js'
import type { TxRecord } from './evm-records.js'
import type { LogColumns } from './log-columns.js'
import type { EvmLog } from './views.js'

/**
 * Logs kept decoded in memory across blocks (about 0.5 KB each, plus their JSON once served and about
 * 50 bytes of matching columns): the recent blocks a dapp polls stay in memory, older ones are read
 * back from their record.
 */
export const LOG_CACHE_SIZE = 20_000
/**
 * Blocks with logs kept in memory (geth keeps 32, `--cache.blocklogs`). Without it a trickle of logs
 * filled the cache for half an hour, holding ~25 MB of logs no one polled any more.
 */
export const LOG_CACHE_BLOCKS = 128

type Nested = Uint8Array | Nested[]

function bytes(x: Nested | undefined): Uint8Array {
  if (!(x instanceof Uint8Array)) throw new Error('malformed EVM logs record')
  return x
}

function list(x: Nested | undefined): Nested[] {
  if (!Array.isArray(x)) throw new Error('malformed EVM logs record')
  return x
}

/** The record of a block's logs, or undefined when none of its transactions logged. */
export function encodeBlockLogs(blockHash: Uint8Array, txs: readonly Pick<TxRecord, 'index' | 'hash' | 'logs'>[]): Uint8Array | undefined {
  const entries: (number | Uint8Array | Nested[])[][] = []
  for (const tx of txs) {
    if (tx.logs.length > 0) entries.push([tx.index, tx.hash, tx.logs.map((l) => [l.address, l.topics, l.data])])
  }
  return entries.length === 0 ? undefined : RLP.encode([blockHash, entries])
}

/** The EvmLogs of a record, in block order. */
export function decodeBlockLogs(height: number, raw: Uint8Array): EvmLog[] {
  const [blockHashField, entries] = RLP.decode(raw) as Nested[]
  const blockHash = bytes(blockHashField)
  const out: EvmLog[] = []
  for (const entry of list(entries)) {
    const [index, hash, logs] = list(entry)
    const transactionIndex = Number(bytesToBigint(bytes(index)))
    const transactionHash = bytes(hash)
    for (const log of list(logs)) {
      const [address, topics, data] = list(log)
      out.push({
        address: bytes(address),
        topics: list(topics).map(bytes),
        data: bytes(data),
        blockNumber: height,
        blockHash,
        transactionHash,
        transactionIndex,
        logIndex: out.length,
        removed: false,
      })
    }
  }
  return out
}

/** The EvmLogs of a block's transaction records (in index order), sharing their byte arrays. */
export function toBlockLogs(txs: readonly TxRecord[]): EvmLog[] {
  const out: EvmLog[] = []
  for (const r of txs) {
    r.logs.forEach((l, i) => {
      out.push({
        address: l.address,
        topics: l.topics,
        data: l.data,
        blockNumber: r.height,
        blockHash: r.blockHash,
        transactionHash: r.hash,
        transactionIndex: r.index,
        logIndex: r.firstLogIndex + i,
        removed: false,
      })
    })
  }
  return out
}

/** Recent blocks' logs by height, evicting the oldest-inserted heights beyond `size` logs or `maxBlocks` blocks. */
export class BlockLogsCache {
  private readonly blocks = new Map<number, LogColumns>()
  private count = 0

  constructor(
    private readonly size = LOG_CACHE_SIZE,
    private readonly maxBlocks = LOG_CACHE_BLOCKS,
  ) {}

  get(height: number): LogColumns | undefined {
    return this.blocks.get(height)
  }

  /** Caches a committed height's logs (nothing for a height without logs or with more than the cache holds). */
  set(height: number, block: LogColumns): void {
    const n = block.logs.length
    if (n === 0 || n > this.size) return
    this.delete(height)
    this.blocks.set(height, block)
    this.count += n
    while (this.count > this.size || this.blocks.size > this.maxBlocks) this.delete(this.blocks.keys().next().value!)
  }

  /** Forgets every height above `height` (a dev chain's revert removed them). */
  forgetAbove(height: number): void {
    for (const h of [...this.blocks.keys()]) if (h > height) this.delete(h)
  }

  forgetBelow(height: number): void {
    for (const h of [...this.blocks.keys()]) if (h < height) this.delete(h)
  }

  private delete(height: number): void {
    const old = this.blocks.get(height)
    if (!old) return
    this.blocks.delete(height)
    this.count -= old.logs.length
  }
}
