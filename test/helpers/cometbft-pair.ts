/**
 * One validator of a chain under a stock CometBFT, as a user runs it: `nodectl start --abci` (the built
 * binary) and `cometbft start` on the same home, two processes that can each be killed and started again.
 * Ports: the ABCI listener, CometBFT's RPC and p2p are named up front (test/helpers/ports.ts); nodectl's
 * EVM JSON-RPC takes port 0 and is read from its banner.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { ROOT } from './cli.js'
import { waitFor } from './dev-node.js'

/** Lines of output kept per process for a failure report. */
const KEPT_LINES = 200
/** Bound on a process' start (CometBFT's handshake replays what the application misses). */
const START_WAIT_MS = 60_000

/** Where one validator listens. */
export interface PairPorts {
  /** nodectl's ABCI listener, CometBFT's proxy_app. */
  abci: number
  /** CometBFT's RPC. */
  rpc: number
  /** CometBFT's p2p. */
  p2p: number
}

interface Proc {
  child: ChildProcess | undefined
  /** The current run's last lines (the same array across restarts). */
  readonly output: string[]
}

export class CometbftPair {
  readonly app: Proc = { child: undefined, output: [] }
  readonly comet: Proc = { child: undefined, output: [] }
  /** nodectl's EVM JSON-RPC over HTTP and WebSocket, once the application has started. */
  evmUrl = ''
  evmWsUrl = ''

  constructor(
    readonly bin: string,
    readonly home: string,
    readonly ports: PairPorts,
    readonly options: {
      /** Extra `nodectl start` arguments. */
      appArgs?: string[]
      /** Extra `cometbft start` arguments. */
      cometArgs?: string[]
      /** The home's files name `ports` (an `--engine cometbft` home): no address flags are given. */
      portsFromHome?: boolean
    } = {},
  ) {}

  get cometUrl(): string {
    return `http://127.0.0.1:${this.ports.rpc}`
  }

  /** Starts the application, then CometBFT, and waits until CometBFT answers /status. */
  async start(): Promise<void> {
    await this.startApp()
    await this.startComet()
  }

  /** `nodectl start --abci`; resolves once its banner names the EVM JSON-RPC. */
  async startApp(): Promise<void> {
    const addresses = this.options.portsFromHome
      ? []
      : ['--abci.laddr', `tcp://127.0.0.1:${this.ports.abci}`, '--rpc.laddr', `tcp://127.0.0.1:${this.ports.rpc}`]
    const args = [
      join(ROOT, 'bin/run.js'),
      'start',
      '--abci',
      '--home',
      this.home,
      ...addresses,
      '--json-rpc.enable',
      '--json-rpc.address',
      '127.0.0.1:0',
      '--json-rpc.ws-address',
      '127.0.0.1:0',
      '--json-rpc.api',
      'eth,net,web3,txpool,debug',
      ...(this.options.appArgs ?? []),
    ]
    this.launch(this.app, process.execPath, args)
    const banner = await waitFor(
      () => {
        this.failIfExited(this.app, 'nodectl start --abci')
        const text = this.app.output.join('\n')
        const http = /EVM JSON-RPC:\s+(http:\/\/\S+)/.exec(text)
        const ws = /EVM WebSocket:\s+(ws:\/\/\S+)/.exec(text)
        return http && ws ? { http: http[1]!, ws: ws[1]! } : undefined
      },
      START_WAIT_MS,
      'the banner of nodectl start --abci',
    )
    this.evmUrl = banner.http
    this.evmWsUrl = banner.ws
  }

  /** `cometbft start`; resolves once its RPC answers /status. */
  async startComet(): Promise<void> {
    const addresses = this.options.portsFromHome
      ? []
      : [
          '--proxy_app',
          `tcp://127.0.0.1:${this.ports.abci}`,
          '--rpc.laddr',
          `tcp://127.0.0.1:${this.ports.rpc}`,
          '--p2p.laddr',
          `tcp://127.0.0.1:${this.ports.p2p}`,
        ]
    this.launch(this.comet, this.bin, ['start', '--home', this.home, ...addresses, ...(this.options.cometArgs ?? [])])
    await waitFor(
      async () => {
        this.failIfExited(this.comet, 'cometbft start')
        try {
          return (await fetch(`${this.cometUrl}/status`)).ok
        } catch {
          return false
        }
      },
      START_WAIT_MS,
      'CometBFT /status',
    )
  }

  /** The height CometBFT reports (0 while its RPC is down). */
  async cometHeight(): Promise<number> {
    try {
      const status = (await (await fetch(`${this.cometUrl}/status`)).json()) as { result: { sync_info: { latest_block_height: string } } }
      return Number(status.result.sync_info.latest_block_height)
    } catch {
      return 0
    }
  }

  /** Sends `signal` to one process and waits for it to exit. */
  async kill(which: 'app' | 'comet', signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const proc = which === 'app' ? this.app : this.comet
    const child = proc.child
    proc.child = undefined
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    child.kill(signal)
    await exited
  }

  /** Stops CometBFT, then the application (SIGTERM: both finish their current write). */
  async stop(): Promise<void> {
    await this.kill('comet', 'SIGTERM')
    await this.kill('app', 'SIGTERM')
  }

  /** The kept output of both processes, for a failure message. */
  report(): string {
    return `--- nodectl ---\n${this.app.output.join('\n')}\n--- cometbft ---\n${this.comet.output.join('\n')}`
  }

  private launch(proc: Proc, command: string, args: string[]): void {
    proc.output.length = 0
    const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    proc.child = child
    const keep = (chunk: Buffer): void => {
      proc.output.push(...chunk.toString('utf8').split('\n').filter(Boolean))
      if (proc.output.length > KEPT_LINES) proc.output.splice(0, proc.output.length - KEPT_LINES)
    }
    child.stdout!.on('data', keep)
    child.stderr!.on('data', keep)
  }

  private failIfExited(proc: Proc, what: string): void {
    const child = proc.child
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}):\n${proc.output.join('\n')}`)
    }
  }
}
