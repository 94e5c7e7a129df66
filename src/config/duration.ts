/**
 * Go `time.Duration` strings, the form CometBFT's config.toml and Evmos's app.toml write durations in
 * ("500ms", "1s", "1m30s"). Inside the node every duration is a number of milliseconds.
 */

/** Nanoseconds per unit, as Go's `time.ParseDuration` accepts them (`µs` is U+00B5, `μs` U+03BC). */
const UNIT_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
}

/** Go's Duration is an int64 of nanoseconds: about 292 years. */
const MAX_DURATION_NS = (1n << 63n) - 1n

const COMPONENT = /^([0-9]*)(?:\.([0-9]*))?([^0-9.]*)/

/**
 * Parses a Go duration string to nanoseconds (bigint), accepting exactly what `time.ParseDuration`
 * accepts: an optional sign, then one or more `<decimal><unit>` parts; `"0"` alone needs no unit.
 * Throws an Error naming the problem otherwise.
 */
export function parseDurationNs(input: string): bigint {
  let s = input
  let negative = false
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s[0] === '-'
    s = s.slice(1)
  }
  if (s === '0') return 0n
  if (s === '') throw new Error(`invalid duration "${input}"`)
  let total = 0n
  while (s !== '') {
    const m = COMPONENT.exec(s)
    const whole = m?.[1] ?? ''
    const frac = m?.[2] ?? ''
    if (!m || (whole === '' && frac === '')) throw new Error(`invalid duration "${input}"`)
    const unit = Object.hasOwn(UNIT_NS, m[3]!) ? UNIT_NS[m[3]!] : undefined
    if (m[3] === '') throw new Error(`missing unit in duration "${input}" (units: ns, us, ms, s, m, h)`)
    if (unit === undefined) throw new Error(`unknown unit "${m[3]}" in duration "${input}" (units: ns, us, ms, s, m, h)`)
    let ns = BigInt(whole || '0') * unit
    if (frac !== '') ns += (BigInt(frac) * unit) / 10n ** BigInt(frac.length)
    total += ns
    if (total > MAX_DURATION_NS) throw new Error(`invalid duration "${input}": too large`)
    s = s.slice(m[0].length)
  }
  return negative ? -total : total
}

/** Parses a Go duration string to milliseconds (fractional below 1 ms, e.g. "500us" → 0.5). */
export function parseDuration(input: string): number {
  return Number(parseDurationNs(input)) / 1e6
}

/**
 * Formats milliseconds as Go's `Duration.String()` does: "0s", "500ms", "1.5s", "1m30s", "1h0m0s".
 * Sub-nanosecond parts are rounded away.
 */
export function formatDuration(ms: number): string {
  let ns = BigInt(Math.round(ms * 1e6))
  if (ns === 0n) return '0s'
  const sign = ns < 0n ? '-' : ''
  if (ns < 0n) ns = -ns
  if (ns < 1_000_000_000n) {
    const [unit, size] = ns < 1_000n ? ['ns', 1n] : ns < 1_000_000n ? ['µs', 1_000n] : ['ms', 1_000_000n]
    return sign + withFraction(ns, size as bigint) + unit
  }
  const h = ns / UNIT_NS.h!
  ns -= h * UNIT_NS.h!
  const m = ns / UNIT_NS.m!
  ns -= m * UNIT_NS.m!
  const secs = withFraction(ns, UNIT_NS.s!) + 's'
  if (h > 0n) return `${sign}${h}h${m}m${secs}`
  if (m > 0n) return `${sign}${m}m${secs}`
  return sign + secs
}

/** `value / size` in decimal, trailing zeros of the fraction dropped. */
function withFraction(value: bigint, size: bigint): string {
  const whole = value / size
  const rest = value % size
  if (rest === 0n) return whole.toString()
  const digits = size.toString().length - 1
  return `${whole}.${rest.toString().padStart(digits, '0').replace(/0+$/, '')}`
}
