/**
 * The EVM view on disk: blocks, transactions with their receipts, lookup indexes and the log index.
 * Everything of a height is *staged* into the application's own stage, which its Commit writes in one
 * atomic batch; only then does `setHead` make the height readable.
 *
 * Keys (values in `evm-records.ts`):
 * - `evmBlock ‖ height(8)`                 → block record
 * - `evmBlock ‖ 0xff ‖ blockHash(32)`      → height(8) (0xff cannot start a real height key)
 * - `evmTxIndex ‖ evmHash(32)`             → tx record (location + tx + receipt: one read)
 * - `cometTxIndex ‖ cometHash(32)`         → RLP[height, index, evmHash]
 * - `logIndex ‖ kind ‖ value ‖ height(8) ‖ txIndex(4)` → 0x01, where kind 0 = log address (20 bytes),
 *   kind 1..4 = topic at position 0..3 (32 bytes): a query touches only the heights whose logs match,
 *   never the rest of the range. One key per (kind, value, height): txIndex is the first transaction
 *   of the height with such a log (older stores have one key per transaction; readers use the height).
 * - `evmLogs ‖ height(8)`                  → the height's logs (block-logs.ts), for heights with logs
 * - `meta 'evm/head'`                      → RLP[height, stateRoot]
 * - `meta 'evm/params'`                    → RLP[gasLimit, genesisHeight, evidenceMaxAgeBlocks]
 * - `meta 'evm/history'`                   → RLP[base, cursor, end] (history-pruner.ts)
 */
import { RLP } from '@ethereumjs/rlp'
import type { Database } from '../../db/database.js'
import type { WriteStage } from '../../db/write-stage.js'
import { Prefix, heightKey, metaKey, prefixedKey } from '../../db/prefixes.js'
import { sha256 } from '../../crypto/index.js'
import { bytesToBigint } from '../../primitives/hex.js'
import { bloomContains, bloomIsEmpty } from './bloom.js'
import { LogLimitError } from '../errors.js'
import type { StoredTx } from './block-view.js'
import { BlockLogsCache, decodeBlockLogs, encodeBlockLogs, toBlockLogs } from './block-logs.js'
import { LogColumns, packCriteria } from './log-columns.js'
import { LogMatches } from './log-matches.js'
import { RecentLogIndex, logIndexId } from './recent-log-index.js'
import { decodeBlockRecord, decodeTxRecord, encodeBlockRecord, encodeTxRecord, type TxRecord } from './evm-records.js'
import type { EvmBlock, EvmLog } from './views.js'

/** Block records kept decoded in memory (the newest are read most). */
const BLOCK_CACHE_SIZE = 256
/** Heights read per getMany while scanning a range without an index, or loading matching heights' logs. */
const SCAN_CHUNK = 256
/** Topic positions a log can have (LOG0..LOG4). */
const MAX_TOPICS = 4
const HASH_KEY_TAG = 0xff
const ONE = new Uint8Array([1])

/** eth_getLogs criteria, heights already resolved. Empty or null entries match anything. */
export interface LogQuery {
  fromBlock: number
  toBlock: number
  /** Any of these addresses (empty = any). */
  addresses: Uint8Array[]
  /** Per position: any of these topics (null or empty = any). */
  topics: (Uint8Array[] | null)[]
}

export interface HeadRecord {
  height: number
  stateRoot: Uint8Array
}

export interface ChainParams {
  gasLimit: bigint
  genesisHeight: number
  /** Consensus `evidence.max_age_num_blocks` of the genesis: the heights evidence may still name. */
  evidenceMaxAgeBlocks: bigint
}

/** CometBFT's default `evidence.max_age_num_blocks`, for records written before the field existed. */
const DEFAULT_EVIDENCE_MAX_AGE_BLOCKS = 100_000n

function u64(n: number): Uint8Array {
  const out = new Uint8Array(8)
  new DataView(out.buffer).setBigUint64(0, BigInt(n))
  return out
}

function logKey(kind: number, value: Uint8Array, height: number, txIndex: number): Uint8Array {
  const key = new Uint8Array(2 + value.length + 12)
  key[0] = Prefix.logIndex
  key[1] = kind
  key.set(value, 2)
  const view = new DataView(key.buffer)
  view.setBigUint64(2 + value.length, BigInt(height))
  view.setUint32(10 + value.length, txIndex)
  return key
}

function blockHashKey(hash: Uint8Array): Uint8Array {
  const key = new Uint8Array(2 + hash.length)
  key[0] = Prefix.evmBlock
  key[1] = HASH_KEY_TAG
  key.set(hash, 2)
  return key
}

/** The big-endian u64 height at `at` in a log index key (heights stay below 2^53). */
function readHeight(key: Uint8Array, at: number): number {
  const hi = ((key[at]! << 24) | (key[at + 1]! << 16) | (key[at + 2]! << 8) | key[at + 3]!) >>> 0
  const lo = ((key[at + 4]! << 24) | (key[at + 5]! << 16) | (key[at + 6]! << 8) | key[at + 7]!) >>> 0
  return hi * 4_294_967_296 + lo
}

export class EvmStore {
  private readonly blocks = new Map<number, EvmBlock>()
  private readonly logs = new BlockLogsCache()
  private readonly recentIndex = new RecentLogIndex()
  /** The logs and log index ids of the staged (executed, not yet committed) height; kept in memory when it commits. */
  private stagedLogs: { height: number; logs: EvmLog[]; ids: Set<string> } | undefined
  /** Highest committed height (set by the application on commit); reads above it are not cached. */
  private head = -1

  constructor(private readonly db: Database) {}

  // ─── writes (staged) ────────────────────────────────────────────────────

  /** Stages a block, its transactions, their indexes and the log index. */
  stageBlock(stage: WriteStage, block: EvmBlock, txs: readonly StoredTx[]): void {
    stage.put(heightKey(Prefix.evmBlock, block.number), encodeBlockRecord(block))
    stage.put(blockHashKey(block.hash), u64(block.number))
    const seen = new Set<string>()
    for (const tx of txs) {
      stage.put(prefixedKey(Prefix.evmTxIndex, tx.hash), encodeTxRecord(tx))
      stage.put(prefixedKey(Prefix.cometTxIndex, tx.cometHash), RLP.encode([tx.height, tx.index, tx.hash]))
      for (const log of tx.logs) {
        stageLogKey(stage, seen, 0, log.address, tx.height, tx.index)
        for (let i = 0; i < log.topics.length && i < MAX_TOPICS; i++) stageLogKey(stage, seen, 1 + i, log.topics[i]!, tx.height, tx.index)
      }
    }
    const logsRecord = encodeBlockLogs(block.hash, txs)
    if (logsRecord) stage.put(heightKey(Prefix.evmLogs, block.number), logsRecord)
    this.stagedLogs = { height: block.number, logs: toBlockLogs(txs), ids: seen }
  }

  /** Stages the committed-height record (`info()` answers from it after a restart). */
  stageHead(stage: WriteStage, head: HeadRecord): void {
    stage.put(metaKey('evm/head'), RLP.encode([head.height, head.stateRoot]))
  }

  stageParams(stage: WriteStage, params: ChainParams): void {
    stage.put(metaKey('evm/params'), RLP.encode([params.gasLimit, params.genesisHeight, params.evidenceMaxAgeBlocks]))
  }

  /**
   * Stages the removal of the heights above `height` up to `top` (a dev chain's revert, docs/dev-chain.md):
   * their blocks, hash keys, transaction indexes, log index keys and logs; the caller stages the head.
   */
  async stageRollback(stage: WriteStage, height: number, top: number): Promise<void> {
    for (let h = height + 1; h <= top; h++) await this.stageRemoval(stage, h)
  }

  /**
   * Stages the removal of everything height `height` wrote: its block and hash key, its transactions'
   * records and indexes, its log index keys and logs (a revert's heights, or history below the retained
   * window). Nothing is staged for a height that has no block.
   */
  async stageRemoval(stage: WriteStage, height: number): Promise<void> {
    const raw = await this.db.get(heightKey(Prefix.evmBlock, height))
    if (!raw) return
    const block = decodeBlockRecord(height, raw)
    stage.del(heightKey(Prefix.evmBlock, height))
    stage.del(blockHashKey(block.hash))
    stage.del(heightKey(Prefix.evmLogs, height))
    const raws =
      block.transactions.length > 0 ? await this.db.getMany(block.transactions.map((h) => prefixedKey(Prefix.evmTxIndex, h))) : []
    for (const [i, raw] of raws.entries()) {
      // A block restored from a snapshot has no transaction records.
      if (!raw) continue
      const tx = decodeTxRecord(block.transactions[i]!, raw)
      stage.del(prefixedKey(Prefix.evmTxIndex, tx.hash))
      stage.del(prefixedKey(Prefix.cometTxIndex, sha256(tx.raw)))
      // The index key names the first transaction with the value; every candidate is deleted.
      for (const log of tx.logs) {
        stage.del(logKey(0, log.address, height, tx.index))
        for (let i = 0; i < log.topics.length && i < MAX_TOPICS; i++) stage.del(logKey(1 + i, log.topics[i]!, height, tx.index))
      }
    }
  }

  /** After history below `base` is removed: nothing below it is cached. */
  forgetBelow(base: number): void {
    for (const h of [...this.blocks.keys()]) if (h < base) this.blocks.delete(h)
    this.logs.forgetBelow(base)
  }

  /** After a rollback is written: `block` is the head again, nothing above it is cached. */
  rewindHead(block: EvmBlock): void {
    for (const h of [...this.blocks.keys()]) if (h > block.number) this.blocks.delete(h)
    this.logs.forgetAbove(block.number)
    this.stagedLogs = undefined
    this.head = block.number
  }

  /** Marks `block` committed (its stage is written): it becomes the newest cached block. */
  setHead(block: EvmBlock): void {
    this.head = block.number
    this.cacheBlock(block)
    const staged = this.stagedLogs
    this.stagedLogs = undefined
    if (staged?.height !== block.number) return
    this.logs.set(block.number, new LogColumns(staged.logs))
    this.recentIndex.add(block.number, [...staged.ids])
  }

  // ─── reads ──────────────────────────────────────────────────────────────

  async loadHead(): Promise<HeadRecord | undefined> {
    const raw = await this.db.get(metaKey('evm/head'))
    if (!raw) return undefined
    const [height, stateRoot] = RLP.decode(raw) as Uint8Array[]
    return { height: Number(bytesToBigint(height!)), stateRoot: stateRoot! }
  }

  async loadParams(): Promise<ChainParams | undefined> {
    const raw = await this.db.get(metaKey('evm/params'))
    if (!raw) return undefined
    const [gasLimit, genesisHeight, evidenceMaxAge] = RLP.decode(raw) as Uint8Array[]
    return {
      gasLimit: bytesToBigint(gasLimit!),
      genesisHeight: Number(bytesToBigint(genesisHeight!)),
      evidenceMaxAgeBlocks: evidenceMaxAge ? bytesToBigint(evidenceMaxAge) : DEFAULT_EVIDENCE_MAX_AGE_BLOCKS,
    }
  }

  async getBlock(height: number): Promise<EvmBlock | undefined> {
    const cached = this.blocks.get(height)
    if (cached) return cached
    const raw = await this.db.get(heightKey(Prefix.evmBlock, height))
    if (!raw) return undefined
    const block = decodeBlockRecord(height, raw)
    if (height <= this.head) this.cacheBlock(block)
    return block
  }

  async getHeightByHash(hash: Uint8Array): Promise<number | undefined> {
    if (hash.length !== 32) return undefined
    const raw = await this.db.get(blockHashKey(hash))
    return raw ? Number(new DataView(raw.buffer, raw.byteOffset, raw.byteLength).getBigUint64(0)) : undefined
  }

  async getTx(hash: Uint8Array): Promise<TxRecord | undefined> {
    if (hash.length !== 32) return undefined
    const raw = await this.db.get(prefixedKey(Prefix.evmTxIndex, hash))
    return raw ? decodeTxRecord(hash, raw) : undefined
  }

  /** (height, index, evmHash) of a transaction by its consensus (SHA-256) hash. */
  async getTxLocationByCometHash(cometHash: Uint8Array): Promise<{ height: number; index: number; hash: Uint8Array } | undefined> {
    if (cometHash.length !== 32) return undefined
    const raw = await this.db.get(prefixedKey(Prefix.cometTxIndex, cometHash))
    if (!raw) return undefined
    const [height, index, hash] = RLP.decode(raw) as Uint8Array[]
    return { height: Number(bytesToBigint(height!)), index: Number(bytesToBigint(index!)), hash: hash! }
  }

  /** The records of the block's transactions (all, or the given indexes), in index order. */
  async getBlockTxs(block: EvmBlock, indexes?: readonly number[]): Promise<TxRecord[]> {
    const hashes = indexes ? indexes.map((i) => block.transactions[i]!).filter((h) => h !== undefined) : block.transactions
    if (hashes.length === 0) return []
    const raws = await this.db.getMany(hashes.map((h) => prefixedKey(Prefix.evmTxIndex, h)))
    return raws.map((raw, i) => {
      if (!raw) throw new Error(`EVM store: missing transaction record of block ${block.number}`)
      return decodeTxRecord(hashes[i]!, raw)
    })
  }

  /**
   * Logs matching `q` in [fromBlock, min(toBlock, head)], in chain order. The heights come from the log
   * index when the query names an address or topic, else from the blocks' blooms; then each height's logs are read
   * (cache, else one record per height) and matched through their columns (log-columns.ts). Throws
   * LogLimitError as soon as more than `limit` logs match.
   */
  async getLogs(q: LogQuery, limit: number): Promise<LogMatches> {
    const to = Math.min(q.toBlock, this.head)
    const from = Math.max(q.fromBlock, 0)
    if (from > to || q.topics.length > MAX_TOPICS) return new LogMatches()
    const groups: { kind: number; values: Uint8Array[] }[] = []
    if (q.addresses.length > 0) groups.push({ kind: 0, values: q.addresses })
    q.topics.forEach((t, i) => {
      if (t && t.length > 0) groups.push({ kind: 1 + i, values: t })
    })
    let heights: number[]
    if (groups.length === 0) {
      heights = await this.heightsByBloom(from, to, q)
    } else {
      // The in-memory index covers [recentFrom, head]; below it the on-disk index (a committed height's
      // keys are written before it becomes the head).
      const recentFrom = this.recentIndex.firstHeight
      const diskTo = Math.min(to, recentFrom - 1)
      heights = from <= diskTo ? await this.indexedHeights(groups, from, diskTo) : []
      if (to >= recentFrom) {
        const ids = groups.map((g) => g.values.map((v) => logIndexId(g.kind, v)))
        heights = heights.concat(this.recentIndex.match(ids, Math.max(from, recentFrom), to))
      }
    }
    const criteria = packCriteria(q)
    const out = new LogMatches()
    for (let i = 0; i < heights.length; i += SCAN_CHUNK) {
      for (const block of await this.loadBlockLogs(heights.slice(i, i + SCAN_CHUNK))) {
        block.collect(criteria, out)
        if (out.count > limit) throw new LogLimitError(limit)
      }
    }
    return out
  }

  /** Heights in [from, to] with transactions whose bloom may match `q`. */
  private async heightsByBloom(from: number, to: number, q: LogQuery): Promise<number[]> {
    const out: number[] = []
    for (let start = from; start <= to; start += SCAN_CHUNK) {
      const end = Math.min(to, start + SCAN_CHUNK - 1)
      const heights: number[] = []
      for (let h = start; h <= end; h++) if (!this.blocks.has(h)) heights.push(h)
      const raws = heights.length > 0 ? await this.db.getMany(heights.map((h) => heightKey(Prefix.evmBlock, h))) : []
      const loaded = new Map<number, Uint8Array | undefined>(heights.map((h, i) => [h, raws[i]]))
      for (let h = start; h <= end; h++) {
        let block = this.blocks.get(h)
        if (!block) {
          const raw = loaded.get(h)
          if (!raw) continue
          block = decodeBlockRecord(h, raw)
        }
        if (block.transactions.length > 0 && bloomMatches(block.logsBloom, q)) out.push(h)
      }
    }
    return out
  }

  /** Heights in [from, to] (ascending) with a log matching every group (each group: any of its values). */
  private async indexedHeights(groups: { kind: number; values: Uint8Array[] }[], from: number, to: number): Promise<number[]> {
    let result: Set<number> | undefined
    for (const group of groups) {
      const set = new Set<number>()
      for (const value of group.values) {
        const keys = await this.db.keys({ gte: logKey(group.kind, value, from, 0), lt: logKey(group.kind, value, to + 1, 0) })
        const at = 2 + value.length
        for (const key of keys) {
          const height = readHeight(key, at)
          if (!result || result.has(height)) set.add(height)
        }
      }
      result = set
      if (result.size === 0) break
    }
    return result ? [...result].sort((a, b) => a - b) : []
  }

  /** The logs of each committed height (cache, else its logs record, else its transaction records). */
  private async loadBlockLogs(heights: number[]): Promise<LogColumns[]> {
    const out = new Array<LogColumns>(heights.length)
    const missing: number[] = []
    for (let i = 0; i < heights.length; i++) {
      const cached = this.logs.get(heights[i]!)
      if (cached) out[i] = cached
      else missing.push(i)
    }
    if (missing.length === 0) return out
    const raws = await this.db.getMany(missing.map((i) => heightKey(Prefix.evmLogs, heights[i]!)))
    for (let j = 0; j < missing.length; j++) {
      const i = missing[j]!
      const height = heights[i]!
      const raw = raws[j]
      let logs: EvmLog[]
      if (raw) {
        logs = decodeBlockLogs(height, raw)
      } else {
        // A height stored before logs records existed.
        const block = await this.getBlock(height)
        logs = block ? toBlockLogs(await this.getBlockTxs(block)) : []
      }
      const columns = new LogColumns(logs)
      this.logs.set(height, columns)
      out[i] = columns
    }
    return out
  }

  private cacheBlock(block: EvmBlock): void {
    this.blocks.delete(block.number)
    this.blocks.set(block.number, block)
    if (this.blocks.size > BLOCK_CACHE_SIZE) this.blocks.delete(this.blocks.keys().next().value!)
  }
}

/** False when the bloom proves no log of the block can match. */
export function bloomMatches(bloom: Uint8Array, q: Pick<LogQuery, 'addresses' | 'topics'>): boolean {
  if (bloomIsEmpty(bloom)) return false
  if (q.addresses.length > 0 && !q.addresses.some((a) => bloomContains(bloom, a))) return false
  for (const t of q.topics) {
    if (t && t.length > 0 && !t.some((x) => bloomContains(bloom, x))) return false
  }
  return true
}

/** Stages the index key of (kind, value) at this height once, with the first transaction that has it. */
function stageLogKey(stage: WriteStage, seen: Set<string>, kind: number, value: Uint8Array, height: number, index: number): void {
  const id = logIndexId(kind, value)
  if (seen.has(id)) return
  seen.add(id)
  stage.put(logKey(kind, value, height, index), ONE)
}
