/**
 * A local testnet of real `nodectl start --home …` processes (the built binary), as a user runs it: homes
 * from `initTestnetFiles`, one child process per node that can be killed, paused (SIGSTOP) and restarted,
 * JSON-RPC and consensus-RPC calls by node index, and watchers on nodes' consensus WebSockets whose
 * NewBlock, NewRound and Vote events re-check the conditions a test waits for (no timers, no polling).
 * By default every node runs on loopback as the homes say; a {@link NodePlacement} moves node i to an
 * address of its own and runs it under a command (e.g. `ip netns exec <namespace>`).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import WebSocket from 'ws'
import { initTestnetFiles, testnetPort, type TESTNET_PORT_OFFSETS, type TestnetResult } from '../../src/config/testnet.js'
import { ROOT } from './cli.js'

/** Where the homes put every listener. */
const LOOPBACK = '127.0.0.1'
/** Lines of output kept per node for a failure report. */
const KEPT_LINES = 200

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
  private readonly waiters = new Set<() => void>()
  private readonly watchers: WebSocket[] = []

  private constructor(
    readonly testnet: TestnetResult,
    private readonly startingPort: number,
    private readonly env: Record<string, string>,
    private readonly placement: NodePlacement | undefined,
  ) {
    this.nodes = testnet.nodes.map((_, index) => ({ index, child: undefined, output: [] }))
  }

  /** Writes the homes of `validators` validators under `dir`; nothing runs yet. */
  static async create(dir: string, validators: number, env: Record<string, string>, placement?: NodePlacement): Promise<TestnetProcesses> {
    // A random block of ports, so parallel runs and leftovers of an earlier run do not collide.
    const startingPort = 20_000 + Math.floor(Math.random() * 4000) * 10
    const testnet = await initTestnetFiles({ outputDir: dir, validators, startingPort })
    return new TestnetProcesses(testnet, startingPort, env, placement)
  }

  /** Spawns node `i` (`extraArgs` after `start --home`); resolves once its banner says it is up. */
  async start(i: number, extraArgs: string[] = []): Promise<void> {
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
      env: { ...process.env, ...this.env, ...this.placementEnv(i) },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    node.child = child
    const keep = (chunk: Buffer): void => {
      node.output.push(...chunk.toString('utf8').split('\n').filter(Boolean))
      if (node.output.length > KEPT_LINES) node.output.splice(0, node.output.length - KEPT_LINES)
    }
    child.stderr!.on('data', keep)
    await new Promise<void>((resolve, reject) => {
      let text = ''
      const onData = (chunk: Buffer): void => {
        keep(chunk)
        text += chunk.toString('utf8')
        if (!text.includes('Press Ctrl-C to stop.')) return
        child.off('exit', onExit)
        resolve()
      }
      const onExit = (code: number | null): void => reject(new Error(`node${i} exited with ${code} before its banner\n${this.report(i)}`))
      child.stdout!.on('data', onData)
      child.once('exit', onExit)
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
  private hostPort(i: number, listener: keyof typeof TESTNET_PORT_OFFSETS): string {
    return `${this.placement?.hostOf(i) ?? LOOPBACK}:${testnetPort(this.startingPort, i, listener)}`
  }

  /** With a placement: node i's listeners on its host, and its peers at theirs (the homes say loopback). */
  private placementEnv(i: number): Record<string, string> {
    if (!this.placement) return {}
    const peers = this.testnet.nodes.map((node, j) => `${node.nodeId}@${this.hostPort(j, 'p2p')}`).filter((_, j) => j !== i)
    return {
      NODECTL_P2P_LADDR: `tcp://${this.hostPort(i, 'p2p')}`,
      NODECTL_P2P_PERSISTENT_PEERS: peers.join(','),
      NODECTL_RPC_LADDR: `tcp://${this.hostPort(i, 'cometRpc')}`,
      NODECTL_JSON_RPC_ADDRESS: this.hostPort(i, 'jsonRpc'),
      NODECTL_JSON_RPC_WS_ADDRESS: this.hostPort(i, 'webSocket'),
    }
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
