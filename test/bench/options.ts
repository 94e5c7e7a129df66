/** The flags of `npm run bench`, parsed and checked once into {@link BenchOptions}. */
import { parseArgs } from 'node:util'
import { ENGINES, type Engine } from '../../src/config/cometbft-keys.js'
import { testnetPort } from '../../src/config/testnet.js'

/** Every workload, in the order they run; `--workloads` selects a subset (default: all, or {@link COMPARE_WORKLOADS} with `--compare`). */
export const WORKLOADS = [
  'reads',
  'call',
  'transfers',
  'value-transfers',
  'logs',
  'ws-heads',
  'tx-search',
  'trace',
  'getlogs-range',
] as const
export type WorkloadName = (typeof WORKLOADS)[number]

/** The workloads of `--compare`'s table (issue 12), its default selection. */
export const COMPARE_WORKLOADS: readonly WorkloadName[] = ['reads', 'call', 'transfers', 'value-transfers', 'logs', 'ws-heads']

/** The workloads of `--big-state`, its default selection: those whose cost grows with the state. */
export const BIG_STATE_WORKLOADS: readonly WorkloadName[] = ['call', 'transfers']

/** The nodes `--compare` can spawn next to ours: Anvil, Hardhat 3, or our application under a stock CometBFT. */
export const COMPARE_TARGETS = ['anvil', 'hardhat', 'cometbft'] as const
export type CompareTarget = (typeof COMPARE_TARGETS)[number]

export interface BenchOptions {
  /** Target EVM JSON-RPC URL; undefined = spawn `nodectl start --dev`. */
  rpc: string | undefined
  /** EVM JSON-RPC WebSocket URL (default: the spawned node's, or `--rpc` with a ws scheme). */
  ws: string | undefined
  /** Consensus (CometBFT) RPC URL (default: the spawned node's; none for an `--rpc` target). */
  cometRpc: string | undefined
  /** `target` field of every line of our node or the `--rpc` target (default "nodectl"). */
  label: string
  /** Also spawn this node and run the same workloads on it first, then print both and their ratios. */
  compare: readonly CompareTarget[] | undefined
  /** Soak instead of the workloads: a light load on a spawned node for this many seconds, RSS each minute. */
  soakSeconds: number | undefined
  /**
   * `--soak` on a one-validator chain of our engine (not `--dev`, which keeps everything) with these
   * app.toml settings as NODECTL_* overrides: `pruning` and `min-retain-blocks`; undefined = `--dev`.
   */
  soakRetention: SoakRetention | undefined
  /**
   * Instead of the workloads: this many random SIGKILLs of a spawned node under load, every receipt it
   * returned re-checked after each restart (workloads/kill-storm.ts).
   */
  killStorm: number | undefined
  /**
   * Instead of the workloads: `call` and `transfers` on a dev chain of this many more funded accounts,
   * all holders of a genesis ERC-20, side by side with the same workloads on a new dev chain (big-state.ts).
   */
  bigState: number | undefined
  /** Where `--big-state`'s genesis is built once and kept (default ~/.cache/nodectl/bench-big-N). */
  bigStateCache: string | undefined
  /** Seed of `--kill-storm`'s kill moments (default: random, printed). */
  seed: number | undefined
  /**
   * Instead of the workloads: spawn a network of this many validators (`initTestnetFiles` homes) and
   * measure ERC-20 transfers, block time and tx → finality latency over it (testnet.ts).
   */
  testnet: number | undefined
  /**
   * With `--testnet` (our engine): each node runs under `node --cpu-prof`, writing its profile into
   * `<dir>/node<i>/` when it stops.
   */
  cpuProfDir: string | undefined
  /**
   * With `--testnet`: this many transfers sent and committed before the measured batch (default 0), so
   * that the batch runs on nodes whose JIT has compiled the transfer path (a cold batch spends a fifth to
   * a third of its CPU compiling).
   */
  warmUp: number
  /** The engine of `--testnet`'s nodes: ours, or a stock CometBFT with `nodectl start --abci` (default nodectl). */
  engine: Engine
  /**
   * First of the spawned node's ports: JSON-RPC, +1 WebSocket, +2 consensus RPC, +3 p2p (default 18545);
   * with `--testnet`, node i's block of ports starts at this + 10·i.
   */
  port: number
  /** Seconds of each closed-loop read workload (default 10). */
  durationMs: number
  /** Workers of the closed-loop read workloads (default 32). */
  concurrency: number
  /** Transactions of `transfers` (ERC-20, whose hashes `tx-search` looks up) and of `value-transfers` (default 3000). */
  txs: number
  /** eth_sendRawTransaction requests of a batch in flight at once, over all senders (default 64). */
  sendConcurrency: number
  /** Accounts the transfers come from (default 10, every funded dev account). */
  senders: number
  /**
   * Transfers sent but not yet mined, at most, over all senders (default 4000): below the pool's 5120
   * pending slots, so a node that mines slower than the bench sends never evicts any (geth's pool
   * drops the excess, leaving nonce gaps).
   */
  inFlight: number
  /** Selected workloads (default: all; with `--compare`, {@link COMPARE_WORKLOADS}). */
  workloads: ReadonlySet<WorkloadName>
  /** getlogs-range: blocks of the queried range (default 10000; the default block-range-cap allows to − from ≤ 10000). */
  rangeBlocks: number
  /** getlogs-range: heights with a log of the selectively queried contract (default 5). */
  rangeHits: number
  /** getlogs-range: logs of the busy contract over the range (default 10000, the default logs-cap). */
  busyLogs: number
  /** getlogs-range: one tx with logs of another contract every this many blocks (default 2). */
  noiseEvery: number
  /** getlogs-range: selective queries timed; the busy query runs a fifth as often (default 50). */
  rangeQueries: number
  /** getlogs-range: home prepared once and reused by later runs (default: a temporary one). */
  rangeHome: string | undefined
  /** ws-heads: WebSocket clients subscribed to newHeads (default 50). */
  wsClients: number
  /** ws-heads: transactions sent, one block each (default 30). */
  wsBlocks: number
  /** tx-search: lookups of random transfer hashes (default 1000). */
  searches: number
}

/** Highest TCP port. */
const MAX_PORT = 65_535

function positiveInt(name: string, text: string): number {
  const n = Number(text)
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`--${name}: want a positive integer, got "${text}"`)
  return n
}

/** Parses `--workloads a,b,c`; throws on an unknown name. */
export function parseWorkloads(text: string): Set<WorkloadName> {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const known = new Set<string>(WORKLOADS)
  const unknown = names.filter((n) => !known.has(n))
  if (unknown.length) throw new Error(`--workloads: unknown ${unknown.join(', ')} (known: ${WORKLOADS.join(',')})`)
  if (!names.length) throw new Error('--workloads: empty list')
  return new Set(names as WorkloadName[])
}

/** Parses `--compare NAME[,NAME…]`; throws on a node it cannot spawn or one named twice. */
export function parseCompareTargets(text: string): CompareTarget[] {
  const names = text.split(',')
  for (const name of names) {
    if (!(COMPARE_TARGETS as readonly string[]).includes(name))
      throw new Error(`--compare: unknown ${name} (known: ${COMPARE_TARGETS.join(',')})`)
  }
  if (new Set(names).size !== names.length) throw new Error(`--compare: ${text} names a node twice`)
  return names as CompareTarget[]
}

/**
 * Parses `--testnet N`: at least one validator, and node N−1's last port (`port` + 10·(N−1) + 3, the
 * layout of src/config/testnet.ts) still a TCP port.
 */
export function parseTestnetSize(text: string, port: number): number {
  const n = Number(text)
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`--testnet: want a number of validators ≥ 1, got "${text}"`)
  const lastPort = testnetPort(port, n - 1, 'p2p')
  if (lastPort > MAX_PORT)
    throw new Error(`--testnet ${n} --port ${port}: the nodes would listen up to port ${lastPort}, above ${MAX_PORT}`)
  return n
}

/** `--pruning` and `--min-retain-blocks` of a `--soak`: what the soak's chain keeps. */
export interface SoakRetention {
  pruning: string
  minRetainBlocks: number
}

/** Parses the bench's command line (`process.argv.slice(2)`). */
export function parseBenchArgs(argv: string[]): BenchOptions {
  const { values: v } = parseArgs({
    args: argv,
    options: {
      rpc: { type: 'string' },
      ws: { type: 'string' },
      'comet-rpc': { type: 'string' },
      label: { type: 'string', default: 'nodectl' },
      compare: { type: 'string' },
      soak: { type: 'string' },
      pruning: { type: 'string' },
      'min-retain-blocks': { type: 'string' },
      'kill-storm': { type: 'string' },
      'big-state': { type: 'string' },
      'big-state-cache': { type: 'string' },
      seed: { type: 'string' },
      testnet: { type: 'string' },
      engine: { type: 'string', default: 'nodectl' },
      'cpu-prof': { type: 'string' },
      'warm-up': { type: 'string', default: '0' },
      port: { type: 'string', default: '18545' },
      duration: { type: 'string', default: '10' },
      concurrency: { type: 'string', default: '32' },
      txs: { type: 'string', default: '3000' },
      'send-concurrency': { type: 'string', default: '64' },
      senders: { type: 'string', default: '10' },
      'in-flight': { type: 'string', default: '4000' },
      workloads: { type: 'string' },
      'range-blocks': { type: 'string', default: '10000' },
      'range-hits': { type: 'string', default: '5' },
      'busy-logs': { type: 'string', default: '10000' },
      'noise-every': { type: 'string', default: '2' },
      'range-queries': { type: 'string', default: '50' },
      'range-home': { type: 'string' },
      'ws-clients': { type: 'string', default: '50' },
      'ws-blocks': { type: 'string', default: '30' },
      searches: { type: 'string', default: '1000' },
    },
  })
  const senders = positiveInt('senders', v.senders!)
  // The dev chain funds 10 accounts (Anvil and Hardhat too); getlogs-range needs 3 distinct senders.
  if (senders > 10) throw new Error('--senders: at most 10 (the funded dev accounts)')
  const compare = v.compare === undefined ? undefined : parseCompareTargets(v.compare)
  const soakSeconds = v.soak === undefined ? undefined : positiveInt('soak', v.soak)
  const remote = v.rpc !== undefined ? 'rpc' : v.ws !== undefined ? 'ws' : v['comet-rpc'] !== undefined ? 'comet-rpc' : undefined
  if (compare && remote) throw new Error(`--compare spawns both nodes: it takes no --${remote}`)
  if (compare?.includes(v.label as CompareTarget)) throw new Error(`--label: ${v.label} names the --compare node`)
  const notWithSoak = compare ? 'compare' : remote
  if (soakSeconds !== undefined && notWithSoak) throw new Error(`--soak runs on a spawned nodectl only: it takes no --${notWithSoak}`)
  const soakRetention = parseSoakRetention(v.pruning, v['min-retain-blocks'], soakSeconds)
  const killStorm = v['kill-storm'] === undefined ? undefined : positiveInt('kill-storm', v['kill-storm'])
  const notWithKillStorm = notWithSoak ?? (soakSeconds !== undefined ? 'soak' : v.workloads !== undefined ? 'workloads' : undefined)
  if (killStorm !== undefined && notWithKillStorm)
    throw new Error(`--kill-storm spawns and kills its own nodectl: it takes no --${notWithKillStorm}`)
  const bigState = v['big-state'] === undefined ? undefined : positiveInt('big-state', v['big-state'])
  const notWithBigState = notWithSoak ?? (soakSeconds !== undefined ? 'soak' : killStorm !== undefined ? 'kill-storm' : undefined)
  if (bigState !== undefined && notWithBigState) throw new Error(`--big-state spawns its own two nodes: it takes no --${notWithBigState}`)
  if (v['big-state-cache'] !== undefined && bigState === undefined) throw new Error('--big-state-cache is for --big-state')
  const workloads = v.workloads !== undefined ? parseWorkloads(v.workloads) : undefined
  const beyondBigState = [...(workloads ?? [])].filter((w) => !BIG_STATE_WORKLOADS.includes(w))
  if (bigState !== undefined && beyondBigState.length)
    throw new Error(`--big-state runs ${BIG_STATE_WORKLOADS.join(',')} only, not ${beyondBigState.join(',')}`)
  const seed = v.seed === undefined ? undefined : Number(v.seed)
  if (seed !== undefined && !(Number.isSafeInteger(seed) && seed >= 0 && seed < 2 ** 32))
    throw new Error(`--seed: want an integer in 0..${2 ** 32 - 1}, got "${v.seed}"`)
  const port = positiveInt('port', v.port!)
  const testnet = v.testnet === undefined ? undefined : parseTestnetSize(v.testnet, port)
  const notWithTestnet = compare
    ? 'compare'
    : remote
      ? remote
      : soakSeconds !== undefined
        ? 'soak'
        : killStorm !== undefined
          ? 'kill-storm'
          : v.workloads !== undefined
            ? 'workloads'
            : bigState !== undefined
              ? 'big-state'
              : undefined
  if (testnet !== undefined && notWithTestnet) {
    throw new Error(`--testnet spawns its own nodes and runs its own workload: it takes no --${notWithTestnet}`)
  }
  if (!(ENGINES as readonly string[]).includes(v.engine!)) throw new Error(`--engine: want ${ENGINES.join(' or ')}, got "${v.engine}"`)
  const engine = v.engine as Engine
  if (engine !== 'nodectl' && testnet === undefined)
    throw new Error('--engine is for --testnet; a single node under CometBFT is --compare cometbft (side by side with ours)')
  if (v['cpu-prof'] !== undefined && (testnet === undefined || engine !== 'nodectl'))
    throw new Error('--cpu-prof profiles the nodes of --testnet under our engine')
  const warmUp = Number(v['warm-up'])
  if (!Number.isSafeInteger(warmUp) || warmUp < 0) throw new Error(`--warm-up: want a number of transfers ≥ 0, got "${v['warm-up']}"`)
  if (warmUp > 0 && testnet === undefined) throw new Error('--warm-up is for --testnet')
  return {
    rpc: v.rpc,
    ws: v.ws,
    cometRpc: v['comet-rpc'],
    label: v.label!,
    compare,
    soakSeconds,
    soakRetention,
    killStorm,
    bigState,
    bigStateCache: v['big-state-cache'],
    seed,
    testnet,
    cpuProfDir: v['cpu-prof'],
    warmUp,
    engine,
    port,
    durationMs: positiveInt('duration', v.duration!) * 1000,
    concurrency: positiveInt('concurrency', v.concurrency!),
    txs: positiveInt('txs', v.txs!),
    sendConcurrency: positiveInt('send-concurrency', v['send-concurrency']!),
    senders,
    inFlight: positiveInt('in-flight', v['in-flight']!),
    workloads: workloads ?? new Set(bigState !== undefined ? BIG_STATE_WORKLOADS : compare ? COMPARE_WORKLOADS : WORKLOADS),
    rangeBlocks: positiveInt('range-blocks', v['range-blocks']!),
    rangeHits: positiveInt('range-hits', v['range-hits']!),
    busyLogs: positiveInt('busy-logs', v['busy-logs']!),
    noiseEvery: positiveInt('noise-every', v['noise-every']!),
    rangeQueries: positiveInt('range-queries', v['range-queries']!),
    rangeHome: v['range-home'],
    wsClients: positiveInt('ws-clients', v['ws-clients']!),
    wsBlocks: positiveInt('ws-blocks', v['ws-blocks']!),
    searches: positiveInt('searches', v.searches!),
  }
}

/** The soak's retention settings: both default (nothing pruned) once either is given; only with `--soak`. */
function parseSoakRetention(
  pruning: string | undefined,
  minRetain: string | undefined,
  soakSeconds: number | undefined,
): SoakRetention | undefined {
  if (pruning === undefined && minRetain === undefined) return undefined
  if (soakSeconds === undefined) throw new Error('--pruning and --min-retain-blocks are for --soak')
  const strategy = pruning ?? 'nothing'
  if (!SOAK_PRUNING.includes(strategy)) throw new Error(`--pruning: want ${SOAK_PRUNING.join(', ')}, got "${strategy}"`)
  const minRetainBlocks = minRetain === undefined ? 0 : Number(minRetain)
  if (!Number.isSafeInteger(minRetainBlocks) || minRetainBlocks < 0)
    throw new Error(`--min-retain-blocks: want a count of blocks, got "${minRetain}"`)
  return { pruning: strategy, minRetainBlocks }
}

/** `--pruning` strategies a soak takes (`custom` needs keep-recent and interval: set them through NODECTL_* instead). */
const SOAK_PRUNING: readonly string[] = ['nothing', 'default', 'everything', 'custom']
