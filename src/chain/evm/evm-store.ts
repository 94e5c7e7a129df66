/**
 * The EVM view on disk: blocks, transactions with their receipts, lookup indexes and the log index.
 * Everything of a height is *staged* into the Database (the consensus engine writes the height's one
 * atomic batch after `app.commit()`).
 *
 * Keys (values in `evm-records.ts`):
 * - `evmBlock ‖ height(8)`                 → block record
 * - `evmBlock ‖ 0xff ‖ blockHash(32)`      → height(8) (0xff cannot start a real height key)
 * - `evmTxIndex ‖ evmHash(32)`             → tx record (location + tx + receipt: one read)
 * - `cometTxIndex ‖ cometHash(32)`         → RLP[height, index, evmHash]
 * - `logIndex ‖ kind ‖ value ‖ height(8) ‖ txIndex(4)` → 0x01, where kind 0 = log address (20 bytes),
 *   kind 1..4 = topic at position 0..3 (32 bytes): a query touches only the heights and transactions
 *   whose logs match, never the rest of the range.
 * - `meta 'evm/head'`                      → RLP[height, stateRoot]
 * - `meta 'evm/params'`                    → RLP[gasLimit, genesisHeight]
 */
import { RLP } from '@ethereumjs/rlp'
import type { Database } from '../../db/database.js'
import { Prefix, heightKey, metaKey, prefixedKey } from '../../db/prefixes.js'
import { bytesToBigint, equalBytes } from '../../primitives/hex.js'
import { bloomContains, bloomIsEmpty } from './bloom.js'
import { LogLimitError } from './errors.js'
import type { StoredTx } from './block-view.js'
import { decodeBlockRecord, decodeTxRecord, encodeBlockRecord, encodeTxRecord, toEvmLogs, type TxRecord } from './evm-records.js'
import type { EvmBlock, EvmLog } from './views.js'

/** Block records kept decoded in memory (the newest are read most). */
const BLOCK_CACHE_SIZE = 256
/** Heights read per getMany while scanning a range without an index. */
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
}

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

/** Location key of a (height, tx index) pair in candidate sets. */
function pairId(height: number, index: number): number {
  return height * 1_048_576 + index
}

export class EvmStore {
  private readonly blocks = new Map<number, EvmBlock>()
  /** Highest committed height (set by the application on commit); reads above it are not cached. */
  private head = -1

  constructor(private readonly db: Database) {}

  // ─── writes (staged) ────────────────────────────────────────────────────

  /** Stages a block, its transactions, their indexes and the log index. */
  stageBlock(block: EvmBlock, txs: readonly StoredTx[]): void {
    this.db.stagePut(heightKey(Prefix.evmBlock, block.number), encodeBlockRecord(block))
    this.db.stagePut(blockHashKey(block.hash), u64(block.number))
    const seen = new Set<string>()
    for (const tx of txs) {
      this.db.stagePut(prefixedKey(Prefix.evmTxIndex, tx.hash), encodeTxRecord(tx))
      this.db.stagePut(prefixedKey(Prefix.cometTxIndex, tx.cometHash), RLP.encode([tx.height, tx.index, tx.hash]))
      seen.clear()
      for (const log of tx.logs) {
        this.stageLogKey(seen, 0, log.address, tx.height, tx.index)
        for (let i = 0; i < log.topics.length && i < MAX_TOPICS; i++) this.stageLogKey(seen, 1 + i, log.topics[i]!, tx.height, tx.index)
      }
    }
  }

  private stageLogKey(seen: Set<string>, kind: number, value: Uint8Array, height: number, index: number): void {
    const key = logKey(kind, value, height, index)
    const id = Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1')
    if (seen.has(id)) return
    seen.add(id)
    this.db.stagePut(key, ONE)
  }

  stageHead(head: HeadRecord): void {
    this.db.stagePut(metaKey('evm/head'), RLP.encode([head.height, head.stateRoot]))
  }

  stageParams(params: ChainParams): void {
    this.db.stagePut(metaKey('evm/params'), RLP.encode([params.gasLimit, params.genesisHeight]))
  }

  /** Marks `block` committed: it becomes the newest cached block. */
  setHead(block: EvmBlock): void {
    this.head = block.number
    this.cacheBlock(block)
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
    const [gasLimit, genesisHeight] = RLP.decode(raw) as Uint8Array[]
    return { gasLimit: bytesToBigint(gasLimit!), genesisHeight: Number(bytesToBigint(genesisHeight!)) }
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
   * Logs matching `q` in [fromBlock, min(toBlock, head)], in chain order. Uses the log index when the
   * query names an address or topic (the head height, which may still sit in the staged batch, is
   * checked through its bloom), else skips blocks whose bloom is empty. Throws LogLimitError as soon
   * as more than `limit` logs match.
   */
  async getLogs(q: LogQuery, limit: number): Promise<EvmLog[]> {
    const to = Math.min(q.toBlock, this.head)
    const from = Math.max(q.fromBlock, 0)
    if (from > to || q.topics.length > MAX_TOPICS) return []
    const groups: { kind: number; values: Uint8Array[] }[] = []
    if (q.addresses.length > 0) groups.push({ kind: 0, values: q.addresses })
    q.topics.forEach((t, i) => {
      if (t && t.length > 0) groups.push({ kind: 1 + i, values: t })
    })
    const out: EvmLog[] = []
    const collect = (txs: TxRecord[]): void => {
      for (const tx of txs) {
        for (const log of toEvmLogs(tx)) {
          if (!matchesLog(log, q)) continue
          out.push(log)
          if (out.length > limit) throw new LogLimitError(limit)
        }
      }
    }
    if (groups.length === 0) {
      await this.scanByBloom(from, to, q, collect)
      return out
    }
    const indexedTo = Math.min(to, this.head - 1)
    if (from <= indexedTo) {
      const pairs = await this.candidatePairs(groups, from, indexedTo)
      const byHeight = new Map<number, number[]>()
      for (const id of pairs) {
        const height = Math.floor(id / 1_048_576)
        let list = byHeight.get(height)
        if (!list) byHeight.set(height, (list = []))
        list.push(id % 1_048_576)
      }
      for (const height of [...byHeight.keys()].sort((a, b) => a - b)) {
        const block = await this.getBlock(height)
        if (!block) continue
        collect(await this.getBlockTxs(block, byHeight.get(height)!.sort((a, b) => a - b)))
      }
    }
    if (to === this.head && from <= to) await this.scanByBloom(Math.max(from, to), to, q, collect)
    return out
  }

  private async scanByBloom(from: number, to: number, q: LogQuery, collect: (txs: TxRecord[]) => void): Promise<void> {
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
        if (block.transactions.length === 0 || !bloomMatches(block.logsBloom, q)) continue
        collect(await this.getBlockTxs(block))
      }
    }
  }

  /** (height, tx index) pairs in [from, to] matching every group (each group: any of its values). */
  private async candidatePairs(groups: { kind: number; values: Uint8Array[] }[], from: number, to: number): Promise<Set<number>> {
    let result: Set<number> | undefined
    for (const group of groups) {
      const set = new Set<number>()
      for (const value of group.values) {
        const prefixLen = 2 + value.length
        const gte = logKey(group.kind, value, from, 0)
        const lt = logKey(group.kind, value, to + 1, 0)
        for await (const [key] of this.db.iterate({ gte, lt })) {
          const view = new DataView(key.buffer, key.byteOffset, key.byteLength)
          const id = pairId(Number(view.getBigUint64(prefixLen)), view.getUint32(prefixLen + 8))
          if (!result || result.has(id)) set.add(id)
        }
      }
      result = set
      if (result.size === 0) break
    }
    return result ?? new Set()
  }

  private cacheBlock(block: EvmBlock): void {
    this.blocks.delete(block.number)
    this.blocks.set(block.number, block)
    if (this.blocks.size > BLOCK_CACHE_SIZE) this.blocks.delete(this.blocks.keys().next().value!)
  }
}

/** geth's filter rule: address in the set (if any) and, per position, topic in the set (if any). */
export function matchesLog(log: Pick<EvmLog, 'address' | 'topics'>, q: Pick<LogQuery, 'addresses' | 'topics'>): boolean {
  if (q.addresses.length > 0 && !q.addresses.some((a) => equalBytes(a, log.address))) return false
  if (q.topics.length > log.topics.length) return false
  for (let i = 0; i < q.topics.length; i++) {
    const wanted = q.topics[i]
    if (!wanted || wanted.length === 0) continue
    if (!wanted.some((t) => equalBytes(t, log.topics[i]!))) return false
  }
  return true
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
