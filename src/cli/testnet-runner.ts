/**
 * Supervision of a local testnet's nodes for `nodectl testnet start`, as foreman and docker compose do
 * it: one child process per home (`<node> <bin> start --home <home>`), every line of its stdout and
 * stderr passed on whole behind its moniker (`node0 | …`), a node that exits on its own reported while
 * the others keep running (a BFT network is meant to survive one node going down), and a stop that asks
 * every node to stop (SIGINT, what Ctrl-C sends to `nodectl start`) and kills the ones that do not
 * within a grace period. Nothing here prints: the lines go to the `write` function it is given.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import type { Readable } from 'node:stream'

/** Default of {@link TestnetRunnerOptions.gracePeriodMs} (ms): time a node has to stop after SIGINT before SIGKILL. */
export const DEFAULT_GRACE_PERIOD_MS = 10_000

/** ANSI foreground colours of the prefixes, cycled by node index: cyan, yellow, green, magenta, blue, then their bright variants (no red: it reads as an error). */
const PREFIX_COLORS = [36, 33, 32, 35, 34, 96, 93, 92, 95, 94] as const

/** One node to run. */
export interface TestnetRunnerNode {
  /** Name in front of its lines (`node0`). */
  moniker: string
  /** Home passed as `--home`. */
  home: string
}

/** Options of {@link TestnetRunner}. */
export interface TestnetRunnerOptions {
  /** The nodes, in the order their prefixes take the colours; at least one. */
  nodes: readonly TestnetRunnerNode[]
  /** Script each child runs: `<execPath> <binPath> start --home <home>` (nodectl's `bin/run.js`). */
  binPath: string
  /** Receives every line, whole and without its newline: the children's prefixed lines and the runner's own. */
  write: (line: string) => void
  /** Colour each node's prefix with ANSI escapes. */
  color: boolean
  /**
   * Write JSON objects instead of prefixed lines, each with the node's `moniker` and an `event`: the
   * children run with `--json`, so their banner comes as `serving` with its fields; any other line is
   * `output` (`stream`, `line`); then `exited` (`code`, `signal`), `killed` (`reason`), `error` (`message`).
   */
  json?: boolean
  /** Time (ms) each node has to exit after stop() sends SIGINT; default {@link DEFAULT_GRACE_PERIOD_MS}. */
  gracePeriodMs?: number
  /** Executable of the children (default `process.execPath`, the running Node.js). */
  execPath?: string
}

/** How one node ended. */
export interface NodeExit {
  moniker: string
  /** Exit status; null when a signal ended it. */
  code: number | null
  /** Signal that ended it, if any. */
  signal: NodeJS.Signals | null
  /** It exited before stop() was called: a crash, or a node that stopped by itself. */
  onItsOwn: boolean
  /** The runner sent it SIGKILL (grace period over, or kill()). */
  killed: boolean
}

/** What {@link TestnetRunner.exited} resolves with once every node has exited. */
export interface TestnetOutcome {
  /** One entry per node, in the order of the options. */
  nodes: NodeExit[]
  /** 0 when stop() was called and every node then exited with status 0 by itself; 1 otherwise. */
  exitCode: 0 | 1
}

/** What the runner reports about a node, beside the node's own JSON objects. */
type RunnerEvent =
  | { event: 'output'; stream: 'stdout' | 'stderr'; line: string }
  | { event: 'error'; message: string }
  | { event: 'exited'; code: number | null; signal: NodeJS.Signals | null }
  | { event: 'killed'; reason: string }

/** A node and its process. */
interface Running {
  node: TestnetRunnerNode
  prefix: string
  child?: ChildProcess
  exit?: NodeExit
  killed: boolean
}

/** Runs the nodes as child processes; see the file comment. */
export class TestnetRunner {
  /** Resolves once every node has exited (never rejects). */
  readonly exited: Promise<TestnetOutcome>
  private resolveExited!: (outcome: TestnetOutcome) => void
  private readonly running: Running[]
  private readonly gracePeriodMs: number
  private started = false
  private stopping = false
  private graceTimer: NodeJS.Timeout | undefined

  constructor(private readonly opts: TestnetRunnerOptions) {
    if (opts.nodes.length === 0) throw new Error('TestnetRunner needs at least one node')
    this.gracePeriodMs = opts.gracePeriodMs ?? DEFAULT_GRACE_PERIOD_MS
    this.exited = new Promise((resolve) => (this.resolveExited = resolve))
    const width = Math.max(...opts.nodes.map((n) => n.moniker.length))
    this.running = opts.nodes.map((node, i) => ({ node, prefix: formatPrefix(node.moniker, width, i, opts.color), killed: false }))
  }

  /** Spawns every node. */
  start(): void {
    if (this.started || this.stopping) throw new Error('TestnetRunner already started or stopped')
    this.started = true
    for (const r of this.running) this.spawnNode(r)
  }

  /**
   * Sends SIGINT to every running node, then SIGKILL to those still running after the grace period.
   * Later calls only return {@link exited}.
   */
  stop(): Promise<TestnetOutcome> {
    if (this.stopping) return this.exited
    this.stopping = true
    const alive = this.alive()
    for (const r of alive) r.child!.kill('SIGINT')
    if (alive.length > 0)
      this.graceTimer = setTimeout(() => this.killAlive(`did not stop within ${this.gracePeriodMs / 1000} s`), this.gracePeriodMs)
    return this.exited
  }

  /** Sends SIGKILL to every running node at once (a second Ctrl-C). */
  kill(): Promise<TestnetOutcome> {
    this.stopping = true
    this.killAlive('killed at once')
    return this.exited
  }

  private spawnNode(r: Running): void {
    const args = [this.opts.binPath, 'start', '--home', r.node.home, ...(this.opts.json ? ['--json'] : [])]
    const child = spawn(this.opts.execPath ?? process.execPath, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so that Ctrl-C in the terminal reaches the runner alone and each node gets
      // one SIGINT (a second one would read as "press Ctrl-C again"). Windows has no process groups.
      detached: process.platform !== 'win32',
    })
    r.child = child
    forwardLines(child.stdout!, (line) => this.output(r, 'stdout', line))
    forwardLines(child.stderr!, (line) => this.output(r, 'stderr', line))
    child.once('error', (err) => {
      this.report(r, { event: 'error', message: err.message })
      // No process was created, so no 'close' follows.
      if (child.pid === undefined) this.onExit(r, null, null)
    })
    // 'close', not 'exit': it comes after the last line of both streams.
    child.once('close', (code, signal) => this.onExit(r, code, signal))
  }

  private onExit(r: Running, code: number | null, signal: NodeJS.Signals | null): void {
    if (r.exit) return
    r.exit = { moniker: r.node.moniker, code, signal, onItsOwn: !this.stopping, killed: r.killed }
    this.report(r, { event: 'exited', code, signal })
    if (this.alive().length > 0) return
    clearTimeout(this.graceTimer)
    const nodes = this.running.map((x) => x.exit!)
    const clean = this.stopping && nodes.every((e) => !e.onItsOwn && !e.killed && e.code === 0)
    this.resolveExited({ nodes, exitCode: clean ? 0 : 1 })
  }

  private killAlive(reason: string): void {
    clearTimeout(this.graceTimer)
    for (const r of this.alive()) {
      if (r.killed) continue
      r.killed = true
      this.report(r, { event: 'killed', reason })
      r.child!.kill('SIGKILL')
    }
  }

  /** A line of a node: with `json`, a JSON object the node printed (its banner) is passed on with the moniker. */
  private output(r: Running, stream: 'stdout' | 'stderr', line: string): void {
    const object = this.opts.json && stream === 'stdout' ? parseEventObject(line) : undefined
    if (object) this.opts.write(JSON.stringify({ moniker: r.node.moniker, ...object }))
    else this.report(r, { event: 'output', stream, line })
  }

  private report(r: Running, e: RunnerEvent): void {
    if (this.opts.json) return this.opts.write(JSON.stringify({ moniker: r.node.moniker, ...e }))
    const { prefix, node } = r
    switch (e.event) {
      case 'output':
        return this.opts.write(e.line === '' ? prefix : `${prefix} ${e.line}`)
      case 'error':
        return this.opts.write(`${prefix} ${node.moniker}: ${e.message}`)
      case 'exited':
        return this.opts.write(`${prefix} ${node.moniker} exited with ${e.signal ? `signal ${e.signal}` : `code ${e.code}`}`)
      case 'killed':
        return this.opts.write(`${prefix} ${node.moniker} ${e.reason}: sending SIGKILL`)
    }
  }

  /** The nodes spawned and not yet exited. */
  private alive(): Running[] {
    return this.running.filter((r) => r.child !== undefined && r.exit === undefined)
  }
}

/** `node0 |`, the moniker padded to `width`, in the colour of node `index` when `color`. */
function formatPrefix(moniker: string, width: number, index: number, color: boolean): string {
  const text = `${moniker.padEnd(width)} |`
  return color ? `\x1b[${PREFIX_COLORS[index % PREFIX_COLORS.length]}m${text}\x1b[0m` : text
}

/** A line that is a JSON object with an `event` (a node's `start --json` output), else undefined. */
function parseEventObject(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined
  try {
    const value = JSON.parse(line) as unknown
    return typeof value === 'object' && value !== null && 'event' in value ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/** Calls `emit` with each whole line of `stream` (a partial line waits for its end; CRLF read as LF). */
function forwardLines(stream: Readable, emit: (line: string) => void): void {
  let partial = ''
  stream.setEncoding('utf8')
  stream.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n')
    partial = lines.pop()!
    for (const line of lines) emit(line.endsWith('\r') ? line.slice(0, -1) : line)
  })
  stream.on('end', () => {
    if (partial !== '') emit(partial)
    partial = ''
  })
}
