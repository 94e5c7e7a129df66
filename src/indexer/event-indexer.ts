/**
 * The kv indexer of tx and block events (CometBFT `state/txindex/kv`, `state/indexer/block/kv`)
 * in the node's database. `stageBlock` is called by the block executor after FinalizeBlock, into the
 * engine's stage that also holds the block and its FinalizeBlock response, so the index is written
 * with them or not at all and never disagrees with the blocks.
 * Searches take candidates from the index (a direct hash lookup, an exact value
 * prefix, a key scan or a height range), then check every condition against the stored FinalizeBlock
 * results: attribute conditions on the same event type must hold within ONE event, as CometBFT's
 * event sequence numbers make them (since v0.34.26).
 */
import type { Database } from '../db/database.js'
import { DeletingStage } from '../db/deleting-stage.js'
import type { WriteStage } from '../db/write-stage.js'
import { prefixEnd } from '../db/prefixes.js'
import { bytesToUpperHex, concatBytes, equalBytes, hexToBytes } from '../primitives/hex.js'
import { hashTx } from '../comet/hash.js'
import type { Block } from '../comet/types.js'
import type { AbciEvent, ExecTxResult, TxResult } from '../abci/types.js'
import { EventLoopYield } from '../utils/event-loop-yield.js'
import {
  QueryOp,
  ReservedKey,
  eventTypeOf,
  foldHex,
  matchQuery,
  matchValue,
  type EventMap,
  type Query,
  type QueryCondition,
} from '../comet/query/index.js'
import {
  BLOCK_ATTR_TAIL,
  IndexKind,
  TX_ATTR_TAIL,
  attrKey,
  attrPrefix,
  attrValueOf,
  indexKey,
  readU32,
  readU64,
  u32,
  u64,
  type TxLocation,
} from './index-keys.js'

export interface EventIndexerOptions {
  db: Database
  /** Loads one committed tx and its result, alone (undefined when not stored). */
  loadTx: (height: number, index: number) => Promise<Pick<TxResult, 'tx' | 'result'> | undefined>
  /** Loads a height's FinalizeBlock events (undefined when not stored). */
  loadBlockEvents: (height: number) => Promise<readonly AbciEvent[] | undefined>
}

/** The parts of a FinalizeBlock response the indexer reads. */
export interface IndexedResponse {
  txResults: readonly ExecTxResult[]
  events: readonly AbciEvent[]
}

/** Txs indexed between two clock reads (a power of 2): about 30 µs each with their events, so under a millisecond. */
const TXS_PER_CLOCK_READ = 16

const RESERVED = new Set<string>(Object.values(ReservedKey))
const HASH_HEX = /^(0x)?[0-9a-fA-F]{64}$/

export class EventIndexer {
  constructor(private readonly opts: EventIndexerOptions) {}

  /**
   * Stages the index entries of a block into `stage` (no write happens here).
   * CometBFT's re-indexing rule: a failed tx (code ≠ 0) whose hash is already indexed as successful is
   * not indexed, so a search keeps finding the successful one. Only blocks with failed txs need the
   * lookups that decides this. A block of thousands of txs takes tens of milliseconds to index, so the
   * event loop is handed over between two txs every few milliseconds: the block executor stages into
   * a stage no read looks at meanwhile.
   */
  stageBlock(stage: WriteStage, block: Pick<Block, 'header' | 'txs'>, response: IndexedResponse): Promise<void> {
    const hashes = block.txs.map(hashTx)
    if (response.txResults.every((r) => r.code === 0)) return this.stage(stage, block.header.height, hashes, response, undefined)
    return this.supersededFailures(hashes, response).then((skip) => this.stage(stage, block.header.height, hashes, response, skip))
  }

  /** Stages the removal of what `stageBlock` staged for this block (a dev chain's revert). */
  stageRemoval(stage: WriteStage, block: Pick<Block, 'header' | 'txs'>, response: IndexedResponse): Promise<void> {
    return this.stageBlock(new DeletingStage(stage), block, response)
  }

  /**
   * Stages the removal of a pruned block's entries, but for its txs' primary entries (hash → height,
   * index): they stay, so `tx` of a pruned tx answers that its height is no longer available, and a tx
   * re-indexed at a later height keeps its entry.
   */
  stagePruning(stage: WriteStage, block: Pick<Block, 'header' | 'txs'>, response: IndexedResponse): Promise<void> {
    return this.stageBlock(new DeletingStage(stage, (key) => key[1] === IndexKind.txHash), block, response)
  }

  /** Indexes of failed txs whose hash is indexed (earlier, or earlier in this block) as successful. */
  private async supersededFailures(hashes: readonly Uint8Array[], response: IndexedResponse): Promise<Set<number>> {
    const skip = new Set<number>()
    const okInBlock = new Set<string>()
    for (let index = 0; index < hashes.length; index++) {
      const hash = hashes[index]!
      const key = bytesToUpperHex(hash)
      if (response.txResults[index]?.code === 0) {
        okInBlock.add(key)
        continue
      }
      if (okInBlock.has(key)) {
        skip.add(index)
        continue
      }
      const old = await this.getTxLocation(hash)
      if (old === undefined) continue
      const stored = await this.opts.loadTx(old.height, old.index)
      if (stored?.result.code === 0) skip.add(index)
    }
    return skip
  }

  /** Stages the entries of a height whose txs have consensus hashes `hashes`, but those in `skip`. */
  private async stage(
    stage: WriteStage,
    height: number,
    hashes: readonly Uint8Array[],
    response: IndexedResponse,
    skip: ReadonlySet<number> | undefined,
  ): Promise<void> {
    const h = u64(height)
    const empty = new Uint8Array(0)
    const pace = new EventLoopYield(TXS_PER_CLOCK_READ)
    // Attribute keys are only ever scanned, and each is written once: staged without a read-map entry.
    for (let index = 0; index < hashes.length; index++) {
      if (skip?.has(index)) continue
      const location = concatBytes(h, u32(index))
      stage.put(indexKey(IndexKind.txHash, hashes[index]!), location)
      stage.put(indexKey(IndexKind.txHeight, location), empty)
      forEachIndexedAttribute(response.txResults[index]?.events ?? [], (tag, value, seq) => {
        stage.append(attrKey(IndexKind.txAttr, tag, foldHex(value), location, seq), empty)
      })
      const turn = pace.poll()
      if (turn !== undefined) await turn
    }
    stage.put(indexKey(IndexKind.blockHeight, h), empty)
    forEachIndexedAttribute(response.events, (tag, value, seq) => {
      stage.append(attrKey(IndexKind.blockAttr, tag, foldHex(value), h, seq), empty)
    })
  }

  /** Where the tx with this consensus hash landed. */
  async getTxLocation(hash: Uint8Array): Promise<TxLocation | undefined> {
    const v = await this.opts.db.get(indexKey(IndexKind.txHash, hash))
    return v ? { height: readU64(v, 0), index: readU32(v, 8) } : undefined
  }

  /** The indexed tx with this consensus hash, with its bytes and result. */
  async getTx(hash: Uint8Array): Promise<TxResult | undefined> {
    const loc = await this.getTxLocation(hash)
    const found = loc && (await this.opts.loadTx(loc.height, loc.index))
    return found && equalBytes(hashTx(found.tx), hash) ? { ...loc, ...found } : undefined
  }

  /** Every tx matching the query, in (height, index) order, with its bytes and result. */
  async searchTxs(query: Query): Promise<TxResult[]> {
    const out: TxResult[] = []
    for (const loc of await this.txCandidates(query)) {
      const found = await this.opts.loadTx(loc.height, loc.index)
      if (!found) continue
      const reserved: EventMap = new Map([
        [ReservedKey.event, ['Tx']],
        [ReservedKey.txHash, [bytesToUpperHex(hashTx(found.tx))]],
        [ReservedKey.txHeight, [String(loc.height)]],
      ])
      if (matchReservedAndEvents(query.conditions, reserved, found.result.events)) out.push({ ...loc, ...found })
    }
    return out
  }

  /** Heights of every block whose FinalizeBlock events (and block.height) match, ascending. */
  async searchBlocks(query: Query): Promise<number[]> {
    const range = heightRange(query.conditions, ReservedKey.blockHeight)
    const attrs = query.conditions.filter((c) => !RESERVED.has(c.tag))
    let heights: number[]
    if (attrs.length > 0) {
      heights = [
        ...new Set(
          (await this.scanAttr(IndexKind.blockAttr, attrs[0]!, BLOCK_ATTR_TAIL)).map((k) => readU64(k, k.length - BLOCK_ATTR_TAIL)),
        ),
      ]
    } else {
      const keys = await this.opts.db.keys({
        gte: indexKey(IndexKind.blockHeight, u64(range.lo)),
        lt: indexKey(IndexKind.blockHeight, u64(range.hi + 1)),
      })
      heights = keys.map((k) => readU64(k, 2))
    }
    const out: number[] = []
    for (const height of heights.filter((h) => h >= range.lo && h <= range.hi).sort((a, b) => a - b)) {
      const reserved: EventMap = new Map([
        [ReservedKey.event, ['NewBlock']],
        [ReservedKey.blockHeight, [String(height)]],
      ])
      if (attrs.length === 0) {
        if (matchQuery({ conditions: query.conditions.filter((c) => c.tag !== ReservedKey.event) }, reserved)) out.push(height)
        continue
      }
      const events = await this.opts.loadBlockEvents(height)
      if (
        events &&
        matchReservedAndEvents(
          query.conditions.filter((c) => c.tag !== ReservedKey.event),
          reserved,
          events,
        )
      )
        out.push(height)
    }
    return out
  }

  /** Candidate tx locations: by hash, by the first attribute condition, or by tx.height range. */
  private async txCandidates(query: Query): Promise<TxLocation[]> {
    const byHash = query.conditions.find((c) => c.tag === ReservedKey.txHash && c.op === QueryOp.Eq && c.value?.kind === 'string')
    if (byHash) {
      const text = byHash.value!.text
      if (!HASH_HEX.test(text)) return []
      const loc = await this.getTxLocation(hexToBytes(text.startsWith('0x') ? text : `0x${text}`))
      return loc ? [loc] : []
    }
    const range = heightRange(query.conditions, ReservedKey.txHeight)
    const attr = query.conditions.find((c) => !RESERVED.has(c.tag))
    let locs: TxLocation[]
    if (attr) {
      const keys = await this.scanAttr(IndexKind.txAttr, attr, TX_ATTR_TAIL)
      const seen = new Set<string>()
      locs = []
      for (const k of keys) {
        const loc = { height: readU64(k, k.length - TX_ATTR_TAIL), index: readU32(k, k.length - TX_ATTR_TAIL + 8) }
        const id = `${loc.height}/${loc.index}`
        if (!seen.has(id)) {
          seen.add(id)
          locs.push(loc)
        }
      }
    } else {
      const keys = await this.opts.db.keys({
        gte: indexKey(IndexKind.txHeight, u64(range.lo)),
        lt: indexKey(IndexKind.txHeight, u64(range.hi + 1)),
      })
      locs = keys.map((k) => ({ height: readU64(k, 2), index: readU32(k, 10) }))
    }
    return locs.filter((l) => l.height >= range.lo && l.height <= range.hi).sort((a, b) => a.height - b.height || a.index - b.index)
  }

  /** Keys of one attribute condition: an exact value prefix for `= 'string'`, else every key of the tag, filtered by value. */
  private async scanAttr(kind: number, c: QueryCondition, tail: number): Promise<Uint8Array[]> {
    const exact = c.op === QueryOp.Eq && c.value?.kind === 'string'
    const prefix = indexKey(kind, exact ? attrPrefix(c.tag, foldHex(c.value!.text)) : attrPrefix(c.tag, undefined, c.op !== QueryOp.Exists))
    const keys = await this.opts.db.keys({ gte: prefix, lt: prefixEnd(prefix) })
    if (exact || c.op === QueryOp.Exists) return keys
    return keys.filter((k) => matchValue(c, attrValueOf(k, tail).value))
  }
}

/** Calls `fn(type.key, value, eventSeq)` for every indexed attribute (non-empty type and key, `index: true`, not reserved). */
function forEachIndexedAttribute(events: readonly AbciEvent[], fn: (tag: string, value: string, seq: number) => void): void {
  events.forEach((e, seq) => {
    if (e.type === '') return
    for (const a of e.attributes) {
      const tag = `${e.type}.${a.key}`
      if (a.key === '' || !a.index || RESERVED.has(tag)) continue
      fn(tag, a.value, seq)
    }
  })
}

/** The inclusive height bounds the query's `key` conditions allow (0 … MAX_SAFE_INTEGER when none). */
function heightRange(conditions: readonly QueryCondition[], key: string): { lo: number; hi: number } {
  let lo = 0
  let hi = Number.MAX_SAFE_INTEGER - 1
  for (const c of conditions) {
    if (c.tag !== key || c.value?.kind !== 'number') continue
    const n = Number(c.value.text)
    const whole = Number.isInteger(n)
    switch (c.op) {
      case QueryOp.Eq:
        if (!whole) return { lo: 1, hi: 0 }
        lo = Math.max(lo, n)
        hi = Math.min(hi, n)
        break
      case QueryOp.Gt:
        lo = Math.max(lo, Math.floor(n) + 1)
        break
      case QueryOp.Ge:
        lo = Math.max(lo, Math.ceil(n))
        break
      case QueryOp.Lt:
        hi = Math.min(hi, Math.ceil(n) - 1)
        break
      case QueryOp.Le:
        hi = Math.min(hi, Math.floor(n))
        break
    }
  }
  return { lo, hi: Math.min(hi, Number.MAX_SAFE_INTEGER - 1) }
}

/**
 * Reserved-key conditions against `reserved`; attribute conditions grouped by event type, each
 * group satisfied by a single indexed event of that type.
 */
function matchReservedAndEvents(conditions: readonly QueryCondition[], reserved: EventMap, events: readonly AbciEvent[]): boolean {
  const groups = new Map<string, QueryCondition[]>()
  for (const c of conditions) {
    if (RESERVED.has(c.tag)) {
      if (!matchQuery({ conditions: [c] }, reserved)) return false
      continue
    }
    const type = eventTypeOf(c.tag)
    const g = groups.get(type)
    if (g) g.push(c)
    else groups.set(type, [c])
  }
  for (const [type, group] of groups) {
    const ok = events.some((e) => e.type === type && matchQuery({ conditions: group }, flattenIndexed(e)))
    if (!ok) return false
  }
  return true
}

/** One event's indexed attributes as a map. */
function flattenIndexed(e: AbciEvent): EventMap {
  const map: EventMap = new Map()
  for (const a of e.attributes) {
    if (a.key === '' || !a.index) continue
    const tag = `${e.type}.${a.key}`
    const v = map.get(tag)
    if (v) v.push(a.value)
    else map.set(tag, [a.value])
  }
  return map
}
