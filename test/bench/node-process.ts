/**
 * The child processes the bench measures, `nodectl start --dev`, the nodes of a `--testnet` and Anvil:
 * spawn, wait for them, read their RSS, stop.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import type { Engine } from '../../src/config/cometbft-keys.js'
import { devNodeSettings } from '../../src/config/defaults.js'
import { initDevHome } from '../../src/config/init-home.js'
import type { TestnetNode } from '../../src/config/testnet.js'
import { COMETBFT_VERSION, findCometbft } from '../helpers/cometbft-bin.js'
import { REPO_ROOT } from '../helpers/repo-root.js'
import { parseReply, type RpcClient } from './rpc-client.js'
import { medianMs, round } from './stats.js'

/** The Anvil binary of the `@foundry-rs/anvil-linux-amd64` dev dependency. */
const ANVIL_BIN = resolve(REPO_ROOT, 'node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil')

/** Anvil's block interval in seconds: `anvil --block-time 1`, a dev node that mines on a clock. */
const ANVIL_BLOCK_TIME_S = 1

/**
 * Init code that returns the 32-byte word 42 (PUSH1 0x2a PUSH1 0 MSTORE PUSH1 0x20 PUSH1 0 RETURN): an
 * eth_call of it without `to` runs the EVM, so its answer means more than an open port.
 */
const RETURN_42_INIT_CODE = '0x602a60005260206000f3'
const WORD_42 = `0x${'2a'.padStart(64, '0')}`

/**
 * Consensus flags for empty blocks back to back: propose at once even without txs (the dev default
 * waits up to 5 s for one), start the next height as soon as all precommits are in.
 */
export const FAST_EMPTY_BLOCK_FLAGS: readonly string[] = [
  '--consensus.create_empty_blocks',
  '--consensus.create_empty_blocks_interval',
  '0s',
  '--consensus.timeout_commit',
  '0s',
  '--consensus.skip_timeout_commit',
]

/** Every spawned listener's host. */
const LOOPBACK = '127.0.0.1'

/** nodectl's entry point, run by the spawned nodes. */
const NODECTL_BIN = resolve(REPO_ROOT, 'bin/run.js')

/**
 * The environment of a `nodectl start --dev` the bench spawns: this Node.js first on PATH, for the
 * `node` of bin/run.js's `#!` line. The node is started as the `nodectl` command runs, through that
 * line, which sets the allocator's environment (see bin/run.js).
 */
const NODECTL_ENV = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` }

/** A node the bench spawned and stops. */
export interface SpawnedNode {
  /** The process serving the EVM JSON-RPC (nodectl, or Anvil). */
  child: ChildProcess
  /** The CometBFT under a `nodectl start --abci` child; stopped first. */
  companion?: ChildProcess
  /** The node's home; none for Anvil (its chain lives in memory). */
  home: string | undefined
  /** EVM JSON-RPC over HTTP. */
  url: string
  /** EVM JSON-RPC over WebSocket. */
  wsUrl: string
  /** Consensus RPC (CometBFT routes) over HTTP; none for Anvil. */
  cometUrl: string | undefined
  /** performance.now() at spawn. */
  spawnedAt: number
  /** Whether `stopNode` deletes the home (a temporary one). */
  removeHome: boolean
}

/**
 * Spawns `nodectl start --dev` listening on `port` (JSON-RPC), `port + 1` (WebSocket), `port + 2`
 * (consensus RPC) and `port + 3` (p2p), in `home` (kept) or a new temporary one (deleted by stopNode).
 */
export function spawnNode(port: number, options: { home?: string; flags?: readonly string[] } = {}): SpawnedNode {
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'nodectl-bench-'))
  const args = [
    'start',
    '--dev',
    '--home',
    home,
    '--json-rpc.address',
    `127.0.0.1:${port}`,
    '--json-rpc.ws-address',
    `127.0.0.1:${port + 1}`,
    '--rpc.laddr',
    `tcp://127.0.0.1:${port + 2}`,
    '--p2p.laddr',
    `tcp://127.0.0.1:${port + 3}`,
    '--log_level',
    'warn',
    ...(options.flags ?? []),
  ]
  const child = spawn(NODECTL_BIN, args, { stdio: ['ignore', 'ignore', 'inherit'], env: NODECTL_ENV })
  return {
    child,
    home,
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port + 1}`,
    cometUrl: `http://127.0.0.1:${port + 2}`,
    spawnedAt: performance.now(),
    removeHome: options.home === undefined,
  }
}

/**
 * A dev chain under a stock CometBFT: a new `--dev`-like home (the 10 dev accounts funded, CometBFT's
 * consensus settings as `--dev` writes them: a block as soon as transactions wait, an empty one after 5 s)
 * written for CometBFT too, then `nodectl start --abci` and `cometbft start` on it. Ports as spawnNode's,
 * and `port + 4` for the ABCI connection; the home is deleted by stopNode.
 */
export async function spawnCometbftPair(port: number, options: { flags?: readonly string[] } = {}): Promise<SpawnedNode> {
  const home = mkdtempSync(join(tmpdir(), 'nodectl-bench-comet-'))
  const settings = devNodeSettings('bench')
  settings.jsonRpc.address = { host: LOOPBACK, port }
  settings.jsonRpc.wsAddress = { host: LOOPBACK, port: port + 1 }
  settings.rpc.laddr = { host: LOOPBACK, port: port + 2 }
  settings.p2p.laddr = { host: LOOPBACK, port: port + 3 }
  settings.abci.laddr = { host: LOOPBACK, port: port + 4 }
  await initDevHome(home, { moniker: 'bench', settings, cometbft: { loopbackNetwork: false } })
  const urls = { url: `http://${LOOPBACK}:${port}`, wsUrl: `ws://${LOOPBACK}:${port + 1}`, cometUrl: `http://${LOOPBACK}:${port + 2}` }
  return spawnAbciPair(home, urls, { removeHome: true, flags: options.flags ?? [] })
}

/**
 * `nodectl start --abci --home <home>` and `cometbft start --home <home>`, every address from the home's
 * files (an `--engine cometbft` home); `urls` are where those files say the node listens.
 */
function spawnAbciPair(
  home: string,
  urls: Pick<SpawnedNode, 'url' | 'wsUrl' | 'cometUrl'>,
  opts: { removeHome: boolean; flags: readonly string[]; onStderr?: (line: string) => void },
): SpawnedNode {
  const bin = findCometbft()
  if (!bin) throw new Error(`no cometbft v${COMETBFT_VERSION}: run scripts/cometbft-bin.sh (needs Go) or set COMETBFT_BIN`)
  const stderr = opts.onStderr ? 'pipe' : 'inherit'
  const child = spawn(process.execPath, [NODECTL_BIN, 'start', '--abci', '--home', home, '--log_level', 'warn', ...opts.flags], {
    stdio: ['ignore', 'ignore', stderr],
  })
  const companion = spawn(bin, ['start', '--home', home, '--log_level', 'error'], { stdio: ['ignore', 'ignore', stderr] })
  if (opts.onStderr) {
    for (const c of [child, companion]) createInterface({ input: c.stderr! }).on('line', opts.onStderr)
  }
  return { child, companion, home, ...urls, spawnedAt: performance.now(), removeHome: opts.removeHome }
}

/**
 * Spawns `nodectl start --home <home>` for a home of `initTestnetFiles` (its ports and peers are in its
 * files), with `env` added to the environment (NODECTL_* overrides) and `nodeFlags` before the script
 * (Node.js flags such as `--cpu-prof`). Each line the node writes to stderr
 * is passed on behind its moniker (`node1 | …`), as `nodectl testnet start` does; the home is kept.
 */
export function spawnTestnetNode(
  node: TestnetNode,
  env: Readonly<Record<string, string>>,
  engine: Engine = 'nodectl',
  nodeFlags: readonly string[] = [],
): SpawnedNode {
  if (engine === 'cometbft') {
    const urls = { url: node.jsonRpc, wsUrl: node.webSocket, cometUrl: node.cometRpc }
    const onStderr = (line: string): void => void process.stderr.write(`${node.moniker} | ${line}\n`)
    return spawnAbciPair(node.home, urls, { removeHome: false, flags: [], onStderr })
  }
  const child = spawn(process.execPath, [...nodeFlags, NODECTL_BIN, 'start', '--home', node.home], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  createInterface({ input: child.stderr! }).on('line', (line) => process.stderr.write(`${node.moniker} | ${line}\n`))
  return {
    child,
    home: node.home,
    url: node.jsonRpc,
    wsUrl: node.webSocket,
    cometUrl: node.cometRpc,
    spawnedAt: performance.now(),
    removeHome: false,
  }
}

/**
 * Spawns `anvil --block-time 1 --port <port> --silent`: JSON-RPC over HTTP and WebSocket on `port`, the
 * 10 accounts of the mnemonic `nodectl start --dev` funds too.
 */
export function spawnAnvil(port: number): SpawnedNode {
  const args = ['--block-time', String(ANVIL_BLOCK_TIME_S), '--port', String(port), '--silent']
  const child = spawn(ANVIL_BIN, args, { stdio: ['ignore', 'ignore', 'inherit'] })
  const [url, wsUrl] = [`http://127.0.0.1:${port}`, `ws://127.0.0.1:${port}`]
  return { child, home: undefined, url, wsUrl, cometUrl: undefined, spawnedAt: performance.now(), removeHome: false }
}

/** How {@link stopNode} stops a node. */
export interface StopOptions {
  /** Signal asking the node to stop (default SIGTERM; SIGINT is what Ctrl-C sends `nodectl start`). */
  signal?: NodeJS.Signals
  /** Time the node has to exit after `signal` before SIGKILL, in ms (default: no SIGKILL, wait for the exit). */
  graceMs?: number
}

/** Whether the node's processes are still running. */
export function isRunning(node: SpawnedNode): boolean {
  return [node.child, node.companion].every((c) => c === undefined || (c.exitCode === null && c.signalCode === null))
}

/** Sends `signal` (then SIGKILL after a grace period, if given), waits for the exit, deletes a temporary home. */
export async function stopNode(node: SpawnedNode, options: StopOptions = {}): Promise<void> {
  // CometBFT first: the application then finishes the height it is writing.
  for (const child of [node.companion, node.child]) if (child) await stopProcess(child, options)
  if (node.removeHome && node.home) rmSync(node.home, { recursive: true, force: true })
}

async function stopProcess(child: ChildProcess, options: StopOptions): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((r) => child.once('exit', r))
  child.kill(options.signal ?? 'SIGTERM')
  const { graceMs } = options
  const timer = graceMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
}

/** Polls eth_chainId until it answers. */
export async function waitForRpc(client: RpcClient, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    try {
      await client.call('eth_chainId')
      return
    } catch (err) {
      if (performance.now() > deadline) throw new Error(`node did not answer within ${timeoutMs} ms: ${String(err)}`)
      await new Promise((r) => setTimeout(r, 2))
    }
  }
}

/** Spawns of a spawned target whose start-up is measured: its `startup` line gives their medians. */
export const STARTUP_SPAWNS = 5

/**
 * Node.js's own start and exit, the floor under nodectl's start-up: the median ms from spawning
 * `node -e 0` (this Node.js, this environment) to its exit, over `count` spawns. `extraCaCerts` says
 * whether NODE_EXTRA_CA_CERTS is set: Node.js then reads that file and every bundled root certificate
 * before running any script (about 80 ms of this machine's 130).
 */
export async function nodeJsStartup(count: number): Promise<{ nodeJsMs: number; extraCaCerts: boolean }> {
  const times: number[] = []
  for (let i = 0; i < count; i++) {
    const spawnedAt = performance.now()
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' })
    await new Promise((resolve, reject) => child.once('exit', resolve).once('error', reject))
    times.push(performance.now() - spawnedAt)
  }
  return { nodeJsMs: medianMs(times), extraCaCerts: Boolean(process.env.NODE_EXTRA_CA_CERTS) }
}

/** How long a spawned node took, in ms from spawn: to its first answer of any kind, and to a correct eth_call. */
export interface Startup {
  msToFirstAnswer: number
  msToEthCall: number
}

/** Polls an eth_call of {@link RETURN_42_INIT_CODE} until it answers 42. */
export async function waitForEthCall(client: RpcClient, spawnedAt: number, timeoutMs: number): Promise<Startup> {
  const deadline = spawnedAt + timeoutMs
  let msToFirstAnswer: number | undefined
  let last: unknown
  for (;;) {
    try {
      const body = await client.callRaw('eth_call', [{ data: RETURN_42_INIT_CODE }, 'latest'])
      msToFirstAnswer ??= performance.now() - spawnedAt
      if (parseReply('eth_call', body) === WORD_42) {
        return { msToFirstAnswer: round(msToFirstAnswer, 1), msToEthCall: round(performance.now() - spawnedAt, 1) }
      }
      last = body
    } catch (err) {
      last = err
    }
    if (performance.now() > deadline) throw new Error(`node did not answer eth_call with 42 within ${timeoutMs} ms: ${String(last)}`)
    await new Promise((r) => setTimeout(r, 2))
  }
}

/** Resident set size of a process in MiB (Linux /proc), undefined elsewhere. */
export function rssMb(pid: number | undefined): number | undefined {
  return statusMb(pid, 'VmRSS')
}

/** The highest resident set size of a process so far in MiB (Linux /proc), undefined elsewhere. */
export function peakRssMb(pid: number | undefined): number | undefined {
  return statusMb(pid, 'VmHWM')
}

/** A size field of /proc/PID/status in MiB. */
function statusMb(pid: number | undefined, field: 'VmRSS' | 'VmHWM'): number | undefined {
  if (pid === undefined) return undefined
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Math.round(Number(m[1]) / 1024) : undefined
  } catch {
    return undefined
  }
}

/** Clock ticks a second of /proc/<pid>/stat's CPU times (Linux's USER_HZ, 100 on every common build). */
const CLOCK_TICKS_PER_SECOND = 100

/**
 * CPU time a process has used so far, user and system over all its threads (ms, from /proc/<pid>/stat);
 * undefined when it cannot be read (not Linux, the process gone).
 */
export function cpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The fields after the command name, which sits in parentheses and may hold spaces: utime and stime are the 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND
  } catch {
    return undefined
  }
}
