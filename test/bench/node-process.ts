/** The `nodectl start --dev` child process the bench measures: spawn, wait for it, read its RSS, stop. */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { REPO_ROOT } from '../helpers/repo-root.js'
import type { RpcClient } from './rpc-client.js'

/**
 * Consensus flags for empty blocks back to back: propose at once even without txs (the dev default
 * waits up to 5 s for one), start the next height as soon as all precommits are in.
 */
export const FAST_EMPTY_BLOCK_FLAGS: readonly string[] = [
  '--consensus.create_empty_blocks',
  '--consensus.create_empty_blocks_interval', '0s',
  '--consensus.timeout_commit', '0s',
  '--consensus.skip_timeout_commit',
]

export interface DevNode {
  child: ChildProcess
  home: string
  /** EVM JSON-RPC over HTTP. */
  url: string
  /** EVM JSON-RPC over WebSocket. */
  wsUrl: string
  /** Consensus RPC (CometBFT routes) over HTTP. */
  cometUrl: string
  /** performance.now() at spawn. */
  spawnedAt: number
  /** Whether `stopNode` deletes the home (a temporary one). */
  removeHome: boolean
}

/**
 * Spawns `nodectl start --dev` listening on `port` (JSON-RPC), `port + 1` (WebSocket), `port + 2`
 * (consensus RPC) and `port + 3` (p2p), in `home` (kept) or a new temporary one (deleted by stopNode).
 */
export function spawnNode(port: number, options: { home?: string; flags?: readonly string[] } = {}): DevNode {
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'nodectl-bench-'))
  const bin = resolve(REPO_ROOT, 'bin/run.js')
  const args = [
    bin, 'start', '--dev', '--home', home,
    '--json-rpc.address', `127.0.0.1:${port}`,
    '--json-rpc.ws-address', `127.0.0.1:${port + 1}`,
    '--rpc.laddr', `tcp://127.0.0.1:${port + 2}`,
    '--p2p.laddr', `tcp://127.0.0.1:${port + 3}`,
    '--log_level', 'warn',
    ...(options.flags ?? []),
  ]
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] })
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

/** SIGTERM, wait for the exit, delete a temporary home. */
export async function stopNode(node: DevNode): Promise<void> {
  if (node.child.exitCode === null && node.child.signalCode === null) {
    const exited = new Promise((r) => node.child.once('exit', r))
    node.child.kill('SIGTERM')
    await exited
  }
  if (node.removeHome) rmSync(node.home, { recursive: true, force: true })
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

/** Resident set size of a process in MiB (Linux /proc), undefined elsewhere. */
export function rssMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Math.round(Number(m[1]) / 1024) : undefined
  } catch {
    return undefined
  }
}
