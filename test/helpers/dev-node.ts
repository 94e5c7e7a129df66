/**
 * Starts a real dev node in-process for tests: a temp home initialised like `start --dev` (the 10 dev
 * accounts funded), every listener on 127.0.0.1 port 0, consensus timeouts in tens of ms.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testNodeSettings } from '../../src/node/test-settings.js'
import { testCallWorkerScript } from './call-worker-script.js'
import { initDevHome, isHomeInitialised } from '../../src/config/init-home.js'
import { loadNodeConfig } from '../../src/config/load.js'
import { Node, type NodeAddresses, type NodeOptions } from '../../src/node/node.js'
import type { JsonRpcErrorObject } from '../../src/rpc/json-rpc.js'
import { createLogger, silentLogger, type Logger } from '../../src/utils/logger.js'

export interface TestNode {
  node: Node
  home: string
  addresses: NodeAddresses
  /** HTTP JSON-RPC URL. */
  url: string
  stop(): Promise<void>
  /** Stops and deletes the home. */
  destroy(): Promise<void>
}

/**
 * Flags of a dev node that makes no empty blocks while a test runs (the test preset makes one a second):
 * for tests that count heights across a restart.
 */
export const NO_EMPTY_BLOCKS_FLAGS = { 'consensus.create_empty_blocks_interval': '10m' }

export interface StartTestNodeOptions {
  /** Reuse a home (restart tests); a new temp home otherwise. */
  home?: string
  /** Extra flag values, as `start` would receive them. */
  flags?: Record<string, unknown>
  /** Settings that are not configuration keys (short filter expiry, small WebSocket buffers...). */
  nodeOptions?: NodeOptions
  /** Start without `--dev` semantics (loopback callers then need a JWT for personal/miner); default true. */
  dev?: boolean
  /** The node's logger (default: silent, or stderr at the level of NODECTL_TEST_LOG). */
  log?: Logger
  /** Called with the node once built, before it starts (to listen to events from the first one). */
  beforeStart?: (node: Node) => void
}

/** Set NODECTL_TEST_LOG=debug to see the node's log while a test runs. */
function testLogger() {
  const level = process.env.NODECTL_TEST_LOG
  return level ? createLogger({ level: level as 'debug', format: 'plain' }) : silentLogger
}

export async function startTestNode(opts: StartTestNodeOptions = {}): Promise<TestNode> {
  const home = opts.home ?? (await mkdtemp(join(tmpdir(), 'nodectl-test-')))
  if (!(await isHomeInitialised(home))) await initDevHome(home, { settings: testNodeSettings() })
  const config = await loadNodeConfig({ home, dev: opts.dev ?? true, env: {}, flags: opts.flags ?? {} })
  const node = await Node.create(config, opts.log ?? testLogger(), { callWorkerScript: testCallWorkerScript(), ...opts.nodeOptions })
  opts.beforeStart?.(node)
  const addresses = await node.start()
  const stop = () => node.stop()
  return {
    node,
    home,
    addresses,
    url: addresses.jsonRpcHttp!,
    stop,
    destroy: async () => {
      await stop()
      await rm(home, { recursive: true, force: true })
    },
  }
}

/** A JSON-RPC reply; `result` has the type the caller reads. */
export interface RpcReply<T = unknown> {
  result?: T
  error?: JsonRpcErrorObject
}

/** Calls a JSON-RPC method over plain HTTP and returns the whole reply. */
export async function rpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<RpcReply<T>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return (await res.json()) as RpcReply<T>
}

/** Pause between two checks of `waitFor`, in ms. */
const POLL_INTERVAL_MS = 10

/** A condition of `waitFor` and `waitForBlock`: met once it returns a truthy value. */
type Check<T> = () => Promise<T | undefined | null | false> | T | undefined | null | false

/**
 * Waits until `check` returns a truthy value, polling at most `timeoutMs / 10` times 10 ms apart (on a
 * busy machine the wait stretches rather than fails early). For what no node event announces (CLI
 * output, key files written in the background); what a block brings (a receipt, a height) is better
 * awaited with {@link waitForBlock}.
 */
export async function waitFor<T>(check: Check<T>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  for (let attempt = 0; attempt * POLL_INTERVAL_MS < timeoutMs; attempt++) {
    const value = await check()
    if (value) return value
    await new Promise((r) => setTimeout(r, POLL_INTERVAL_MS))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/**
 * Waits until `check` returns a truthy value: checked now, then after each block the node commits (its
 * consensus engine's NewBlock event), never on a timer; fails after `timeoutMs` with `what`.
 */
export async function waitForBlock<T>(t: TestNode, check: Check<T>, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const first = await check()
  if (first) return first
  const events = t.node.components.engine.events
  return new Promise<T>((resolve, reject) => {
    const settle = (): void => {
      off()
      clearTimeout(timer)
    }
    // One check at a time, in block order.
    let checking = Promise.resolve()
    const off = events.on('NewBlock', () => {
      checking = checking
        .then(async () => {
          const value = await check()
          if (!value) return
          settle()
          resolve(value)
        })
        .catch((err: unknown) => {
          settle()
          reject(err)
        })
    })
    const timer = setTimeout(() => {
      off()
      reject(new Error(`timed out waiting for ${what}`))
    }, timeoutMs)
  })
}

/** Resolves once `node` has committed block `height` (at once when it has already). */
export function committed(node: TestNode, height: number): Promise<void> {
  const engine = node.node.components.engine
  return new Promise((resolve) => {
    if (engine.height >= height) return resolve()
    const off = engine.events.on('NewBlock', (e) => {
      if (e.block.header.height < height) return
      off()
      resolve()
    })
  })
}

/** A consensus-RPC (CometBFT) JSON-RPC call to `node`, params by name; its `result`. */
export async function cometRpc<T>(node: TestNode, method: string, params: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(node.addresses.cometRpc!.replace('tcp://', 'http://'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return ((await res.json()) as { result: T }).result
}
