/**
 * How many sockets an RPC listener may hold, so that the listeners of a node can never take every file
 * descriptor of the process: a node out of descriptors cannot write its WAL or its validator's sign
 * state (`EMFILE`), and stops committing while its listeners keep answering.
 *
 * The rule, CometBFT's (config.toml on `max_open_connections`: "should be < {ulimit -Sn} -
 * {MaxNumInboundPeers} - {MaxNumOutboundPeers} - {N of wal, db and other open files}", 1024 - 40 - 10
 * - 50 ≈ 900) with LevelDB's share added:
 * - take the soft limit on open files (RLIMIT_NOFILE) of this process, read from /proc/self/limits
 *   (Node.js raises the soft limit to the hard one at start, so this is the limit it runs under); where
 *   it cannot be read, assume {@link ASSUMED_OPEN_FILE_LIMIT};
 * - set aside a fifth of it for LevelDB, which keeps at most that many table files open (leveldb
 *   `util/env_posix.cc` MaxOpenFiles: `rlim_cur / 5`), and {@link NODE_RESERVE} for the peers and the
 *   node's own files;
 * - share the rest equally among the node's {@link LISTENERS} listeners, enabled or not: each may hold
 *   that many sockets, served ones and waiting ones together (connection-limiter.ts).
 * A listener's connection cap (`max-open-connections`, `[rpc] max_open_connections`) is lowered to fit
 * its share, leaving an eighth of the cap for the wait queue ({@link queueFor}).
 */
import { readFileSync } from 'node:fs'

/** Open-file limit assumed where /proc/self/limits cannot be read: the usual Linux soft limit, the one CometBFT's rule assumes. */
export const ASSUMED_OPEN_FILE_LIMIT = 1024

/**
 * Descriptors set aside for everything but the listeners and LevelDB's tables: CometBFT's 40 inbound and
 * 10 outbound peers and 50 other files (WAL, sign state and its temporary file, LevelDB's log, manifest
 * and lock, key files, standard streams, the event loop's and worker threads' own descriptors).
 */
export const NODE_RESERVE = 100

/** The RPC listeners of a node: EVM HTTP, EVM WebSocket and the consensus RPC. */
export const LISTENERS = 3

/** The wait queue holds an eighth of the connection cap (at least one socket). */
const QUEUE_FRACTION = 8

/** Listeners never hold fewer sockets than this, whatever the limit (one served, one waiting). */
const MIN_SHARE = 2

/** The soft open-file limit in the text of /proc/self/limits; undefined when absent or unlimited. */
export function parseOpenFileLimit(limitsText: string): number | undefined {
  const m = /^Max open files\s+(\S+)/m.exec(limitsText)
  if (!m || m[1] === 'unlimited') return undefined
  const soft = Number(m[1])
  return Number.isSafeInteger(soft) && soft > 0 ? soft : undefined
}

/** This process's soft open-file limit (RLIMIT_NOFILE), or {@link ASSUMED_OPEN_FILE_LIMIT} where it cannot be read. */
export function readOpenFileLimit(): number {
  try {
    return parseOpenFileLimit(readFileSync('/proc/self/limits', 'latin1')) ?? ASSUMED_OPEN_FILE_LIMIT
  } catch {
    return ASSUMED_OPEN_FILE_LIMIT
  }
}

/** Sockets one listener may hold (served and waiting) under the open-file limit `limit` (see the rule above). */
export function listenerShare(limit: number): number {
  const forListeners = limit - Math.floor(limit / 5) - NODE_RESERVE
  return Math.max(MIN_SHARE, Math.floor(forListeners / LISTENERS))
}

/** The wait queue of a listener serving `cap` connections at once. */
export function queueFor(cap: number): number {
  return Math.max(1, Math.ceil(cap / QUEUE_FRACTION))
}

/** What a listener holds: connections served at once, and connections waiting for a slot beyond them. */
export interface ConnectionBounds {
  maxConnections: number
  maxQueued: number
}

/**
 * The bounds of a listener whose configured cap is `configured` (0 = none) and whose share of the
 * descriptors is `share`: the cap lowered so that it and its queue fit the share.
 */
export function connectionBounds(configured: number, share: number): ConnectionBounds {
  // The largest cap c with c + ceil(c / 8) ≤ share.
  let fitting = Math.floor((share * QUEUE_FRACTION) / (QUEUE_FRACTION + 1))
  while (fitting > 1 && fitting + queueFor(fitting) > share) fitting--
  const maxConnections = Math.max(1, configured > 0 ? Math.min(configured, fitting) : fitting)
  return { maxConnections, maxQueued: Math.max(1, Math.min(queueFor(maxConnections), share - maxConnections)) }
}
