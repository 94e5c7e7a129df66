/**
 * What `nodectl start` does once its flags are parsed: resolve the configuration, start the node, print
 * where it listens, and stop it cleanly on SIGINT/SIGTERM. Both ways of running the command call it:
 * the oclif command (commands/start.ts) and the start bundle (src/start-bundle.ts), which parses its
 * argv with start-argv.ts and loads no oclif unless something fails.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resolveHome } from '../config/home.js'
import { fundsDevAccounts, HomeExistsError, initDevHome, isHomeInitialised, readDevBalances } from '../config/init-home.js'
import { formatHostPort } from '../config/listen-address.js'
import { loadNodeConfig } from '../config/load.js'
import { readListenRecord, removeListenRecord, writeListenRecord } from '../config/listen-record.js'
import type { HostPort, NodeConfig } from '../config/node-config.js'
import type { SyncProgress } from '../consensus/block-sync.js'
import { AbciNode, type AbciNodeAddresses } from '../node/abci-node.js'
import { Node, type NodeAddresses } from '../node/node.js'
import { ConfigError } from '../utils/errors.js'
import { createLogger, type Logger } from '../utils/logger.js'
import { normalizeUrl } from './endpoints.js'
import { shouldColor } from './color.js'
import {
  abciBannerJson,
  renderAbciBanner,
  renderStartBanner,
  renderStateSyncProgress,
  renderSyncProgress,
  startBannerJson,
  type StartBannerInput,
} from './start-banner.js'

/** The parsed flags of `nodectl start`: --home, --dev, --abci, --json, the hidden --unsafe-double-sign-at and one per setting. */
export interface StartFlags {
  home?: string
  dev?: boolean
  abci?: boolean
  json?: boolean
  'unsafe-double-sign-at'?: number
  'unsafe-corrupt-snapshot-chunk'?: number[]
  [flag: string]: unknown
}

/** Where the command writes: stdout lines, stderr lines and warnings (oclif's this.log, logToStderr, warn). */
export interface StartOutput {
  log(line: string): void
  logToStderr(line: string): void
  warn(message: string): void
  /**
   * Called once the node serves; when given, the node stops as soon as the returned promise resolves
   * instead of on SIGINT/SIGTERM (the start bundle's build-time warm-up).
   */
  serving?(addresses: NodeAddresses): Promise<void>
}

/** The command failed: the message to print and the exit status. */
export class StartFailure extends Error {
  constructor(
    message: string,
    readonly exit: number,
  ) {
    super(message)
    this.name = 'StartFailure'
  }
}

/**
 * Runs the node until SIGINT/SIGTERM, then stops it; resolves once it has stopped. A third signal
 * exits at once with status 130. Throws {@link StartFailure} when the node cannot start or stop.
 */
export async function runNode(flags: StartFlags, version: string, out: StartOutput): Promise<void> {
  const dev = flags.dev === true
  if (dev && flags.abci === true)
    throw new StartFailure('--abci cannot be combined with --dev: run CometBFT and nodectl on a home made by "nodectl init"', 2)
  const explicitHome = typeof flags.home === 'string' ? flags.home : undefined
  const temporary = dev && explicitHome === undefined
  const home = temporary ? await mkdtemp(join(tmpdir(), 'nodectl-dev-')) : resolveHome(explicitHome)
  const signals = listenForStop(
    () => out.logToStderr('stopping already; press Ctrl-C again to exit without waiting'),
    // The conventional exit status of a process ended by SIGINT: 128 + 2.
    () => process.exit(130),
  )
  let phase: 'start' | 'stop' = 'start'
  try {
    const written = dev && !(await isHomeInitialised(home)) ? await initDevHome(home) : undefined
    const config = await loadNodeConfig({ home, flags, dev, onWarning: (m) => out.warn(m), ...(written ? { written } : {}) })
    await refuseHomeInUse(config)
    const devBalances = dev ? await readDevBalances(config.genesis) : new Map<string, bigint>()
    if (dev && !fundsDevAccounts(devBalances)) throw refuseDevOnChain(config)
    const log = createLogger({ level: config.logLevel, format: config.logFormat, color: shouldColor(process.stderr) })
    const running =
      flags.abci === true
        ? await startAbciNode(config, log, version, flags.json === true, out)
        : await startNode({ config, version, temporaryHome: temporary, devBalances }, log, flags, out)
    await recordListeners(config, running.addresses)
    if (out.serving) await out.serving(running.addresses)
    else {
      const ended = await Promise.race([signals.stopRequested, running.node.halted])
      if (ended instanceof Error) throw new StartFailure(running.haltedMessage(ended), 1)
      out.logToStderr(`${ended} received, stopping`)
    }
    phase = 'stop'
    await removeListenRecord(config.paths.dataDir)
    await running.node.stop()
  } catch (err) {
    if (err instanceof StartFailure) throw err
    if (err instanceof ConfigError || err instanceof HomeExistsError) throw new StartFailure(err.message, 1)
    throw new StartFailure(`${phase === 'start' ? 'cannot start the node' : 'error while stopping the node'}: ${(err as Error).message}`, 1)
  } finally {
    signals.dispose()
    if (temporary) await rm(home, { recursive: true, force: true })
  }
}

/** A home another running nodectl serves is refused with its pid and addresses, as a busy port is. */
async function refuseHomeInUse(config: NodeConfig): Promise<void> {
  const running = await readListenRecord(config.paths.dataDir)
  if (!running || running.pid === process.pid) return
  const where = [running.jsonRpcHttp, running.cometRpc].filter(Boolean).join(', ')
  throw new StartFailure(
    `${config.home} is in use by another nodectl (pid ${running.pid}${where ? `, serving ${where}` : ''}); stop it first or choose another --home`,
    1,
  )
}

/** Tells client commands given this home where the node listens (config/listen-record.ts). */
async function recordListeners(config: NodeConfig, addresses: NodeAddresses): Promise<void> {
  await writeListenRecord(config.paths.dataDir, {
    pid: process.pid,
    jsonRpcHttp: addresses.jsonRpcHttp,
    jsonRpcWs: addresses.jsonRpcWs,
    cometRpc: addresses.cometRpc === undefined ? undefined : normalizeUrl(addresses.cometRpc, 'http', 'the consensus RPC'),
    metrics: addresses.metrics,
  })
}

/** A started node of either kind, as runNode waits on it. */
interface RunningNode {
  node: { halted: Promise<Error>; stop(): Promise<void> }
  addresses: NodeAddresses
  haltedMessage(err: Error): string
}

/** Our engine's node: starts it and prints the banner (what `banner` lacks: the addresses) and block sync progress. */
async function startNode(
  banner: Omit<StartBannerInput, 'addresses'>,
  log: Logger,
  flags: StartFlags,
  out: StartOutput,
): Promise<RunningNode> {
  const { config } = banner
  const doubleSignAt = flags['unsafe-double-sign-at']
  const corruptSnapshotChunks = flags['unsafe-corrupt-snapshot-chunk']
  const node = await Node.create(config, log, {
    ...(doubleSignAt === undefined ? {} : { consensus: { doubleSignAt } }),
    ...(corruptSnapshotChunks ? { corruptSnapshotChunks } : {}),
  })
  const json = flags.json === true
  // State sync runs inside start(), before the banner: its progress is printed as it happens.
  node.events.on('stateSyncProgress', (p) => out.log(renderStateSyncProgress(p, json)))
  node.events.on('StateSyncStatus', (s) => {
    if (s.complete)
      out.log(json ? JSON.stringify({ event: 'statesync', complete: true, height: s.height }) : `state sync: restored height ${s.height}`)
  })
  let addresses: NodeAddresses
  try {
    addresses = await node.start()
  } catch (err) {
    await node.stop().catch(() => {})
    throw explainAddressInUse(err, config) ?? err
  }
  const shown = { ...banner, addresses }
  out.log(json ? JSON.stringify(startBannerJson(shown)) : renderStartBanner(shown))
  node.events.on(
    'syncProgress',
    throttleProgress((p) => out.log(renderSyncProgress(p, json))),
  )
  return {
    node,
    addresses,
    haltedMessage: (err) =>
      `consensus halted: ${err.message}; the node stopped at its last committed height: fix the cause and start it again`,
  }
}

/** `--abci`: the application for an external CometBFT; prints its banner. */
async function startAbciNode(config: NodeConfig, log: Logger, version: string, json: boolean, out: StartOutput): Promise<RunningNode> {
  const node = await AbciNode.create(config, log)
  let addresses: AbciNodeAddresses
  try {
    addresses = await node.start()
  } catch (err) {
    await node.stop().catch(() => {})
    throw explainAddressInUse(err, config) ?? err
  }
  out.log(json ? JSON.stringify(abciBannerJson(config, addresses, version)) : renderAbciBanner(config, addresses, version))
  return {
    node,
    // Under CometBFT the consensus RPC is CometBFT's.
    addresses: { jsonRpcHttp: addresses.jsonRpcHttp, jsonRpcWs: addresses.jsonRpcWs, cometRpc: addresses.cometRpc },
    haltedMessage: (err) =>
      `the application stopped: ${err.message}; CometBFT stops too: fix the cause and start both again (CometBFT replays what is missing)`,
  }
}

/**
 * `--dev` on a home whose chain does not fund the dev accounts (one made by `nodectl init`): refused, as
 * the dev extras would write the publicly known dev keys into its key store and unlock them for
 * anyone who can reach the node, on a chain where they hold nothing.
 */
function refuseDevOnChain(config: NodeConfig): StartFailure {
  return new StartFailure(
    `--dev: ${config.home} holds chain ${config.chainId}, which does not fund the 10 dev accounts (a home made by "nodectl init"); ` +
      '--dev would write their publicly known keys into its key store. Start it without --dev ' +
      `(nodectl start --home ${config.home}), or run --dev without --home (a temporary home) or with a new directory`,
    1,
  )
}

/** Block sync progress is printed at most this often (and once the sync reaches its target). */
const PROGRESS_EVERY_MS = 1000

/** Calls `print` at most once a second, and at the target. */
function throttleProgress(print: (p: SyncProgress) => void, clock: () => number = Date.now): (p: SyncProgress) => void {
  let last = Number.NEGATIVE_INFINITY
  return (p) => {
    const t = clock()
    if (p.height < p.target && t - last < PROGRESS_EVERY_MS) return
    last = t
    print(p)
  }
}

/** Resolves on the first SIGINT/SIGTERM; a second one calls `onRepeat`, a third `onForce`. */
function listenForStop(onRepeat: () => void, onForce: () => void): { stopRequested: Promise<NodeJS.Signals>; dispose(): void } {
  let count = 0
  let resolve!: (s: NodeJS.Signals) => void
  const stopRequested = new Promise<NodeJS.Signals>((r) => (resolve = r))
  const handler = (signal: NodeJS.Signals): void => {
    count++
    if (count === 1) resolve(signal)
    else if (count === 2) onRepeat()
    else onForce()
  }
  process.on('SIGINT', handler)
  process.on('SIGTERM', handler)
  return {
    stopRequested,
    dispose() {
      process.off('SIGINT', handler)
      process.off('SIGTERM', handler)
    },
  }
}

/** Maps an EADDRINUSE from a listener to a ConfigError naming the flag of the address it tried. */
function explainAddressInUse(err: unknown, config: NodeConfig): ConfigError | undefined {
  let e: unknown = err
  while (e && typeof e === 'object' && (e as NodeJS.ErrnoException).code !== 'EADDRINUSE') e = (e as { cause?: unknown }).cause
  if (!e || typeof e !== 'object') return undefined
  const { port, address } = e as { port?: number; address?: string }
  const listeners: [string, HostPort | undefined][] = [
    ['json-rpc.address', config.jsonRpc.enable ? config.jsonRpc.address : undefined],
    ['json-rpc.ws-address', config.jsonRpc.enable ? config.jsonRpc.wsAddress : undefined],
    ['rpc.laddr', config.rpc.laddr],
    ['p2p.laddr', config.p2p.laddr],
    ['abci.laddr', 'port' in config.abci.laddr ? config.abci.laddr : undefined],
    ['instrumentation.prometheus_listen_addr', config.instrumentation.prometheus ? config.instrumentation.prometheusListenAddr : undefined],
  ]
  const hit = listeners.find(([, a]) => a !== undefined && a.port === port)
  const where = hit ? formatHostPort(hit[1]!) : `${address ?? ''}:${port ?? '?'}`
  return new ConfigError(
    hit ? `--${hit[0]}` : 'listen address',
    `${where} is already in use (is another node running?); choose another address${hit ? ` with --${hit[0]}` : ''} or stop the other process`,
  )
}
