/**
 * Ports for tests that must name a port before anything binds it: the homes of a testnet (every node's
 * peers name its p2p port), or a node restarted on the URL a client already holds. Everything else binds
 * port 0 and reads the bound port back.
 *
 * A port of the kernel's ephemeral range (`/proc/sys/net/ipv4/ip_local_port_range`, 32768–60999 by
 * default) can be taken between the choice and the bind by any outgoing connection on the machine:
 * connect() and bind(0) draw local ports from that range. So a port chosen ahead is drawn outside it, and
 * is free when chosen; another program may still bind it first, so a start that fails with EADDRINUSE is
 * retried ({@link withPortRetry}) on other ports.
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'

/** An inclusive range of TCP ports. */
export interface PortRange {
  low: number
  high: number
}

/** Where `ip_local_port_range` cannot be read: Linux's default (32768–60999) and BSD's/macOS' (49152–65535). */
const FALLBACK_EPHEMERAL_RANGE: PortRange = { low: 32_768, high: 65_535 }
/** Lowest port handed out: clear of the well-known and registered ports services bind on a developer machine. */
const MIN_PORT = 10_000
/** Highest TCP port. */
const MAX_PORT = 65_535
/**
 * Ports this project's users run on by default, left alone so a test never collides with a node someone
 * started: the bench's spawned node and Anvil (18545…18565, test/bench/options.ts), `testnet init-files`'
 * default block (26600…26699), CometBFT's 26656/26657.
 */
const RESERVED: readonly PortRange[] = [
  { low: 18_545, high: 18_599 },
  { low: 26_600, high: 26_699 },
]
/** Blocks drawn before giving up on finding one whose ports are all free. */
const DRAWS = 50
/** Attempts of {@link withPortRetry}. */
const DEFAULT_ATTEMPTS = 5

/** The kernel's ephemeral port range, read now (it can be changed at run time). */
export function ephemeralPortRange(path = '/proc/sys/net/ipv4/ip_local_port_range'): PortRange {
  try {
    const [low, high] = readFileSync(path, 'utf8').trim().split(/\s+/).map(Number)
    if (Number.isSafeInteger(low) && Number.isSafeInteger(high) && low! <= high!) return { low: low!, high: high! }
  } catch {
    // not Linux, or /proc not mounted
  }
  return FALLBACK_EPHEMERAL_RANGE
}

/**
 * The first port of `size` consecutive ports, drawn at random among the blocks within MIN_PORT…65535 that
 * meet neither `ephemeral` nor a reserved range. Throws when the range leaves no room.
 */
export function drawPortBlock(size: number, ephemeral: PortRange = ephemeralPortRange(), random: () => number = Math.random): number {
  const excluded = [ephemeral, ...RESERVED].sort((a, b) => a.low - b.low)
  // The gaps between the excluded ranges, and the number of block starts each holds.
  const gaps: PortRange[] = []
  let from = MIN_PORT
  for (const r of excluded) {
    if (r.low > from) gaps.push({ low: from, high: r.low - 1 })
    from = Math.max(from, r.high + 1)
  }
  if (from <= MAX_PORT) gaps.push({ low: from, high: MAX_PORT })
  const starts = gaps.map((g) => Math.max(0, g.high - g.low + 2 - size))
  const total = starts.reduce((a, b) => a + b, 0)
  if (total === 0) throw new Error(`no ${size} consecutive ports outside the ephemeral range ${ephemeral.low}–${ephemeral.high}`)
  let pick = Math.floor(random() * total)
  for (const [i, g] of gaps.entries()) {
    if (pick < starts[i]!) return g.low + pick
    pick -= starts[i]!
  }
  throw new Error('unreachable')
}

/** Whether `port` can be bound on `host` right now. */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)))
  })
}

/**
 * The first port of `size` consecutive ports outside the ephemeral range (see the file comment), each free
 * on `host` when checked.
 */
export async function pickPortBlock(size: number, host = '127.0.0.1'): Promise<number> {
  const ephemeral = ephemeralPortRange()
  for (let draw = 0; draw < DRAWS; draw++) {
    const first = drawPortBlock(size, ephemeral)
    let free = true
    for (let p = first; p < first + size && free; p++) free = await isPortFree(p, host)
    if (free) return first
  }
  throw new Error(`no block of ${size} free ports found in ${DRAWS} draws`)
}

/** One port outside the ephemeral range, free when checked. */
export function pickPort(host = '127.0.0.1'): Promise<number> {
  return pickPortBlock(1, host)
}

/**
 * Whether `err` (or an error in its `cause` chain) is an EADDRINUSE; libp2p's listen failure carries it
 * only in its message ("Some configured addresses failed to be listened on … EADDRINUSE").
 */
export function isAddressInUse(err: unknown): boolean {
  for (let e = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE' || /\bEADDRINUSE\b/.test((e as Error).message ?? '')) return true
  }
  return false
}

/**
 * Runs `start` until it does not fail on a busy port: `start(attempt)` picks its ports anew each time.
 * Other errors, and the last attempt's EADDRINUSE, are thrown.
 */
export async function withPortRetry<T>(
  start: (attempt: number) => Promise<T>,
  options: { attempts?: number; isBusy?: (err: unknown) => boolean } = {},
): Promise<T> {
  const attempts = options.attempts ?? DEFAULT_ATTEMPTS
  const isBusy = options.isBusy ?? isAddressInUse
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(attempt)
    } catch (err) {
      if (attempt >= attempts || !isBusy(err)) throw err
    }
  }
}
