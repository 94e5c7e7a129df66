/**
 * Where getlogs-range puts its logs over the range: a few `target` logs (the selective query), the
 * `busy` contract's logs spread evenly (the full-range query), and `noise` logs of other contracts
 * every `noiseEvery` blocks, so that most blocks hold logs and only an address index or bloom skips them.
 */

export type RangeRole = 'target' | 'busy' | 'noise'

/** One transaction: sent once the chain is at `offset − 1` past the range start, so it lands at ≥ offset. */
export interface RangeEvent {
  offset: number
  role: RangeRole
  /** Logs the transaction emits. */
  logs: number
  /** Which noise contract (0 for target and busy). */
  contract: number
}

export interface RangePlanOptions {
  /** Blocks of the range. */
  blocks: number
  /** Target logs (one per transaction, at evenly spread heights). */
  hits: number
  /** Busy-contract logs in total. */
  busyLogs: number
  /** A noise transaction every this many blocks. */
  noiseEvery: number
  /** Noise contracts the noise transactions rotate over. */
  noiseContracts: number
}

/** Logs per busy transaction: 20 × ~1.6k gas, so 10,000 logs take 500 transactions. */
export const BUSY_LOGS_PER_TX = 20

/**
 * Events are planned over the first 95% of the range only: a transaction sent when the head reaches
 * its offset lands a block or a few later, and it must still land inside the range.
 */
export const PLANNED_SHARE = 0.95

/** Evenly spread offsets in [0, span): the middles of `n` equal slices. */
function spreadOffsets(n: number, span: number): number[] {
  return Array.from({ length: n }, (_, i) => Math.floor(((i + 0.5) * span) / n))
}

/** The transactions to send, by offset. */
export function planRangeLogs(o: RangePlanOptions): RangeEvent[] {
  const span = Math.max(1, Math.floor(o.blocks * PLANNED_SHARE))
  const events: RangeEvent[] = spreadOffsets(o.hits, span).map((offset) => ({ offset, role: 'target', logs: 1, contract: 0 }))
  const busyTxs = Math.ceil(o.busyLogs / BUSY_LOGS_PER_TX)
  spreadOffsets(busyTxs, span).forEach((offset, k) => {
    const logs = k === busyTxs - 1 ? o.busyLogs - BUSY_LOGS_PER_TX * (busyTxs - 1) : BUSY_LOGS_PER_TX
    events.push({ offset, role: 'busy', logs, contract: 0 })
  })
  for (let k = 0, offset = 0; offset < span; k++, offset += o.noiseEvery) {
    // 1 to 3 logs, so noise blocks differ in size.
    events.push({ offset, role: 'noise', logs: 1 + (k % 3), contract: k % o.noiseContracts })
  }
  return events.sort((a, b) => a.offset - b.offset)
}
