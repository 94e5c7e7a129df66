/** Nanosecond-precision timestamps (CometBFT keeps nanoseconds end to end; JS Date does not). */
export interface Timestamp {
  /** Unix seconds (may be negative: Go's zero time is -62135596800). */
  seconds: number
  /** 0..999,999,999 */
  nanos: number
}

/** Go's zero time 0001-01-01T00:00:00Z, carried by absent commit signatures. */
export const GO_ZERO_TIME: Timestamp = { seconds: -62135596800, nanos: 0 }

const origin = process.hrtime.bigint()
const originMs = BigInt(Date.now()) * 1_000_000n

/** Wall-clock now with nanosecond resolution (monotonic within the process). */
export function now(): Timestamp {
  const ns = originMs + (process.hrtime.bigint() - origin)
  return { seconds: Number(ns / 1_000_000_000n), nanos: Number(ns % 1_000_000_000n) }
}

export function toNanos(t: Timestamp): bigint {
  return BigInt(t.seconds) * 1_000_000_000n + BigInt(t.nanos)
}

export function fromNanos(ns: bigint): Timestamp {
  let s = ns / 1_000_000_000n
  let n = ns % 1_000_000_000n
  if (n < 0n) {
    n += 1_000_000_000n
    s -= 1n
  }
  return { seconds: Number(s), nanos: Number(n) }
}

export function compareTime(a: Timestamp, b: Timestamp): number {
  return a.seconds !== b.seconds ? (a.seconds < b.seconds ? -1 : 1) : a.nanos === b.nanos ? 0 : a.nanos < b.nanos ? -1 : 1
}

export function addMillis(t: Timestamp, ms: number): Timestamp {
  return fromNanos(toNanos(t) + BigInt(ms) * 1_000_000n)
}

/** RFC3339Nano in UTC with trailing zero nanos trimmed, as Go formats time.Time. */
export function formatRfc3339Nano(t: Timestamp): string {
  const date = new Date(t.seconds * 1000)
  const base = date.toISOString().slice(0, 19)
  const year = date.getUTCFullYear()
  const head = year < 1000 ? String(year).padStart(4, '0') + base.slice(base.indexOf('-', 1)) : base
  if (t.nanos === 0) return head + 'Z'
  return head + '.' + String(t.nanos).padStart(9, '0').replace(/0+$/, '') + 'Z'
}

/** Parses RFC3339 with up to 9 fractional digits into a Timestamp. */
export function parseRfc3339(s: string): Timestamp {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(s)
  if (!m) throw new Error(`invalid RFC3339 time: ${s}`)
  const ms = Date.parse(m[1]! + m[3]!)
  if (Number.isNaN(ms)) throw new Error(`invalid RFC3339 time: ${s}`)
  return { seconds: Math.floor(ms / 1000), nanos: Number((m[2] ?? '').padEnd(9, '0')) }
}
