/**
 * A local testnet of real `nodectl start --home …` processes (the built binary), as a user runs it: homes
 * from `initTestnetFiles`, one child process per node that can be killed, paused (SIGSTOP) and restarted,
 * JSON-RPC and consensus-RPC calls by node index, and watchers on nodes' consensus WebSockets whose
 * NewBlock, NewRound and Vote events re-check the conditions a test waits for (no timers, no polling).
 * By default every node runs on loopback as the homes say; a {@link NodePlacement} moves node i to an
 * address of its own and runs it under a command (e.g. `ip netns exec <namespace>`).
 *
 * Ports: the homes name them before any node starts, so they are drawn outside the kernel's ephemeral
 * range (test/helpers/ports.ts). A node that exits because one of its ports is taken all the same is
 * started again with that listener moved to another port (NODECTL_* environment overrides), and every
 * node started afterwards is given the moved p2p address as its peer.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import WebSocket from 'ws'
import {
  initTestnetFiles,
  TESTNET_PORT_OFFSETS,
  TESTNET_PORTS_PER_NODE,
  testnetPort,
  type TestnetResult,
} from '../../src/config/testnet.js'
import { ROOT } from './cli.js'
import { pickPort, pickPortBlock } from './ports.js'

/** Where the homes put every listener. */
const LOOPBACK = '127.0.0.1'
/** Lines of output kept per node for a failure report. */
const KEPT_LINES = 200
/** Starts of one node that may fail on a taken port before `start` gives up. */
const START_ATTEMPTS = 5

type Listener = keyof typeof TESTNET_PORT_OFFSETS

/** The variable that overrides each listener's address, and the address' scheme. */
const LISTENER_ENV: Record<Listener, { name: string; scheme: string }> = {
  jsonRpc: { name: 'NODECTL_JSON_RPC_ADDRESS', scheme: '' },
  webSocket: { name: 'NODECTL_JSON_RPC_WS_ADDRESS', scheme: '' },
  cometRpc: { name: 'NODECTL_RPC_LADDR', scheme: 'tcp://' },
  p2p: { name: 'NODECTL_P2P_LADDR', scheme: 'tcp://' },
  abci: { name: 'NODECTL_ABCI_LADDR', scheme: 'tcp://' },
  metrics: { name: 'NODECTL_INSTRUMENTATION_PROMETHEUS_LISTEN_ADDR', scheme: '' },
}
const LISTENERS = Object.keys(TESTNET_PORT_OFFSETS) as Listener[]

/**
 * The port `nodectl start` found taken, from its error: `--rpc.laddr: 127.0.0.1:P is already in use …`
 * for the RPC listeners, libp2p's `listen EADDRINUSE: address already in use 127.0.0.1:P` for p2p;
 * undefined for any other failure.
 */
export function busyPortOf(output: string): number | undefined {
  const m = /:(\d+) is already in use/.exec(output) ?? /EADDRINUSE: address already in use \S*:(\d+)/.exec(output)
  return m ? Number(m[1]) : undefined
}

/** Where the nodes run, when not all on loopback as the homes say. */
export interface NodePlacement {
  /** The address node i binds every listener to, and where its peers and the test reach it. */
  hostOf: (i: number) => string
  /** The command node i's `node bin/run.js start …` runs under, e.g. `ip netns exec <namespace>` (default none). */
  prefixOf?: (i: number) => string[]
}

export interface NodeProcess {
  index: number
  child: ChildProcess | undefined
  /** The last lines the node printed (stdout and stderr). */
  output: string[]
}

export class TestnetProcesses {
  readonly nodes: NodeProcess[]
  /** Node i's port of each listener: the home's, unless a start found it taken and moved it. */
  private readonly ports: Record<Listener, number>[]
  private readonly waiters = new Set<() => void>()
  private readonly watchers: WebSocket[] = []

  private constructor(
    readonly testnet: TestnetResult,
    private readonly startingPort: number,
    private readonly env: Record<string, string>,
    private readonly placement: NodePlacement | undefined,
  ) {
    this.nodes = testnet.nodes.map((_, index) => ({ index, child: undefined, output: [] }))
    this.ports = testnet.nodes.map((_, i) => this.homePorts(i))
  }

  /** Writes the homes of `validators` validators (and `nonValidators` full nodes after them) under `dir`; nothing runs yet. */
  static async create(
    dir: string,
    validators: number,
    env: Record<string, string>,
    placement?: NodePlacement,
    nonValidators = 0,
  ): Promise<TestnetProcesses> {
    // A random free block outside the ephemeral range, so parallel runs, leftovers of an earlier run and
    // outgoing connections do not collide.
    const startingPort = await pickPortBlock((validators + nonValidators) * TESTNET_PORTS_PER_NODE)
    const testnet = await initTestnetFiles({ outputDir: dir, validators, nonValidators, startingPort })
    return new TestnetProcesses(testnet, startingPort, env, placement)
  }

  /**
   * Spawns node `i` (`extraArgs` after `start --home`); resolves once its banner says it is up. A start
   * that fails on a taken port is retried with that listener on another port.
   */
  async start(i: number, extraArgs: string[] = []): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.startOnce(i, extraArgs)
      } catch (err) {
        const port = (err as { busyPort?: number }).busyPort
        const busy = LISTENERS.find((l) => this.ports[i]![l] === port)
        if (busy === undefined || attempt >= START_ATTEMPTS) throw err
        this.nodes[i]!.output.push(`(test) port ${this.ports[i]![busy]} of ${busy} is taken: starting again on another`)
        this.ports[i]![busy] = await pickPort(this.placement?.hostOf(i) ?? LOOPBACK)
      }
    }
  }

  /** Node i's port of `listener` now (moved when its start found the home's taken). */
  portOf(i: number, listener: Listener): number {
    return this.ports[i]![listener]
  }

  private async startOnce(i: number, extraArgs: string[]): Promise<void> {
    const node = this.nodes[i]!
    const [command, ...args] = [
      ...(this.placement?.prefixOf?.(i) ?? []),
      process.execPath,
      join(ROOT, 'bin/run.js'),
      'start',
      '--home',
      this.testnet.nodes[i]!.home,
      ...extraArgs,
    ]
    const child = spawn(command!, args, {
      cwd: ROOT,
      env: { ...process.env, ...this.env, ...this.listenerEnv(i) },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    node.child = child
    const keep = (chunk: Buffer): void => {
      node.output.push(...chunk.toString('utf8').split('\n').filter(Boolean))
      if (node.output.length > KEPT_LINES) node.output.splice(0, node.output.length - KEPT_LINES)
    }
    child.stderr!.on('data', keep)
    // Until the banner: the error of a node that exits first.
    let stderr = ''
    const collect = (chunk: Buffer): void => {
      stderr += chunk.toString('utf8')
    }
    child.stderr!.on('data', collect)
    await new Promise<void>((resolve, reject) => {
      let text = ''
      const onData = (chunk: Buffer): void => {
        keep(chunk)
        text += chunk.toString('utf8')
        if (!text.includes('Press Ctrl-C to stop.')) return
        child.off('close', onExit)
        child.stderr!.off('data', collect)
        resolve()
      }
      // 'close', not 'exit': the error the node printed has been read by then.
      const onExit = (code: number | null): void => {
        node.child = undefined
        const err = new Error(`node${i} exited with ${code} before its banner\n${this.report(i)}`)
        reject(Object.assign(err, { busyPort: busyPortOf(stderr) }))
      }
      child.stdout!.on('data', onData)
      child.once('close', onExit)
    })
  }

  /** SIGKILL (a crash): resolves once the process is gone. */
  async kill(i: number): Promise<void> {
    const child = this.nodes[i]!.child
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
    this.nodes[i]!.child = undefined
  }

  /** SIGSTOP / SIGCONT: the process freezes with its connections open, as a machine that hangs. */
  pause(i: number): void {
    this.nodes[i]!.child!.kill('SIGSTOP')
  }

  resume(i: number): void {
    this.nodes[i]!.child!.kill('SIGCONT')
  }

  /** Stops every running node (SIGINT, as Ctrl-C) and closes the watchers. */
  async stopAll(): Promise<void> {
    for (const ws of this.watchers.splice(0)) ws.close()
    await Promise.all(
      this.nodes.map(async ({ child }) => {
        if (!child || child.exitCode !== null || child.signalCode !== null) return
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGCONT')
        child.kill('SIGINT')
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
        await exited
        clearTimeout(timer)
      }),
    )
  }

  /** An EVM JSON-RPC call to node `i`; rejects with the node's error. */
  async rpc<T>(i: number, method: string, params: unknown[] = []): Promise<T> {
    return call<T>(`http://${this.hostPort(i, 'jsonRpc')}`, method, params)
  }

  /** A consensus-RPC (CometBFT) JSON-RPC call to node `i`. */
  async comet<T>(i: number, method: string, params: Record<string, unknown> = {}): Promise<T> {
    return call<T>(`http://${this.hostPort(i, 'cometRpc')}`, method, params)
  }

  /** Latest height of node `i`, from its consensus RPC. */
  async height(i: number): Promise<number> {
    const status = await this.comet<{ sync_info: { latest_block_height: string } }>(i, 'status')
    return Number(status.sync_info.latest_block_height)
  }

  /**
   * Subscribes to NewBlock, NewRound and Vote on node `i` (a node the test never stops): each event
   * re-checks the pending `waitUntil` conditions. Several nodes can be watched at once.
   */
  async watch(i: number): Promise<void> {
    const ws = new WebSocket(`ws://${this.hostPort(i, 'cometRpc')}/websocket`)
    this.watchers.push(ws)
    await new Promise((resolve, reject) => {
      ws.once('open', resolve)
      ws.once('error', reject)
    })
    ws.on('message', () => {
      this.recheck()
    })
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscribe', params: { query: "tm.event='NewBlock'" } }))
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'subscribe', params: { query: "tm.event='NewRound'" } }))
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'subscribe', params: { query: "tm.event='Vote'" } }))
  }

  /**
   * Resolves once `cond` holds: checked now and after every watched event; an error of
   * `cond` (a node not answering yet) counts as not yet. Rejects after `timeoutMs` with the nodes' output.
   */
  waitUntil(cond: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
    return new Promise((resolve, reject) => {
      let checking = false
      let again = false
      const check = async (): Promise<void> => {
        if (checking) {
          again = true
          return
        }
        checking = true
        let ok = false
        try {
          ok = await cond()
        } catch {
          ok = false
        }
        checking = false
        if (ok) {
          this.waiters.delete(check_)
          clearTimeout(timer)
          resolve()
        } else if (again) {
          again = false
          void check()
        }
      }
      const check_ = (): void => void check()
      const timer = setTimeout(() => {
        this.waiters.delete(check_)
        reject(new Error(`timed out waiting for ${what}\n${this.nodes.map((n) => this.report(n.index)).join('\n')}`))
      }, timeoutMs)
      this.waiters.add(check_)
      check_()
    })
  }

  /** The last lines node `i` printed, for failure messages. */
  report(i: number): string {
    return `--- node${i} ---\n${this.nodes[i]!.output.slice(-40).join('\n')}`
  }

  /** `host:port` of node i's `listener`. */
  private hostPort(i: number, listener: Listener): string {
    return `${this.placement?.hostOf(i) ?? LOOPBACK}:${this.ports[i]![listener]}`
  }

  /** The ports node i's home names. */
  private homePorts(i: number): Record<Listener, number> {
    return Object.fromEntries(LISTENERS.map((l) => [l, testnetPort(this.startingPort, i, l)])) as Record<Listener, number>
  }

  /**
   * What node i is told beyond its home: with a placement, every listener on its host and its peers at
   * theirs (the homes say loopback); else only the listeners a start moved, and the peers when a p2p port
   * moved.
   */
  private listenerEnv(i: number): Record<string, string> {
    const home = this.homePorts(i)
    const env: Record<string, string> = {}
    for (const l of LISTENERS) {
      const { name, scheme } = LISTENER_ENV[l]
      if (this.placement || this.ports[i]![l] !== home[l]) env[name] = `${scheme}${this.hostPort(i, l)}`
    }
    const p2pMoved = this.ports.some((p, j) => p.p2p !== this.homePorts(j).p2p)
    if (this.placement || p2pMoved) {
      const peers = this.testnet.nodes.map((node, j) => `${node.nodeId}@${this.hostPort(j, 'p2p')}`).filter((_, j) => j !== i)
      env.NODECTL_P2P_PERSISTENT_PEERS = peers.join(',')
    }
    return env
  }

  private recheck(): void {
    for (const w of [...this.waiters]) w()
  }
}

async function call<T>(url: string, method: string, params: unknown): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await res.json()) as { result?: T; error?: { code: number; message: string; data?: string } }
  if (body.error) throw new Error(`${method}: ${body.error.code} ${body.error.message} ${body.error.data ?? ''}`)
  return body.result as T
}
