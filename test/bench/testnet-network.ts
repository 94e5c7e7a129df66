/**
 * The network of `--testnet N`: N validator homes written by `initTestnetFiles` in a temporary folder,
 * each run as `nodectl start --home <home>` (node-process.ts), with the environment of
 * {@link TESTNET_ENV}. {@link withTestnet} stops every node with SIGINT (SIGKILL after
 * {@link STOP_GRACE_MS}) and deletes the folder at the end, on an error, and on Ctrl-C.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Engine } from '../../src/config/cometbft-keys.js'
import { initTestnetFiles } from '../../src/config/testnet.js'
import { getHeight, sleep } from './chain.js'
import { isRunning, spawnTestnetNode, stopNode, waitForRpc, type SpawnedNode } from './node-process.js'
import { RpcClient } from './rpc-client.js'
import { round } from './stats.js'

/**
 * NODECTL_* overrides of every node: a 500 ms commit wait (CometBFT's default is 1 s) so a block
 * (propose, prevote, precommit, commit wait) stays within issue 11's 1 s; the other consensus timeouts
 * keep CometBFT's defaults, as the homes do. Only warnings and errors are logged, behind the moniker.
 */
export const TESTNET_ENV: Readonly<Record<string, string>> = {
  NODECTL_CONSENSUS_TIMEOUT_COMMIT: '500ms',
  NODECTL_LOG_LEVEL: 'warn',
}

/** Time a node has to exit after SIGINT before SIGKILL (ms), as `nodectl testnet start` gives it. */
const STOP_GRACE_MS = 10_000

/** Longest wait for every node's JSON-RPC and for node0's first blocks (ms). */
const STARTUP_TIMEOUT_MS = 60_000

/** node0 has committed this many blocks before the workload starts: the validators found each other. */
const STARTUP_HEIGHT = 2

/** Signals that stop the nodes and delete the folder before the bench exits. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/** Exit status after a stop signal: 128 + SIGINT's 2, the shell convention. */
const SIGNALLED_EXIT_CODE = 130

/** The running network. */
export interface BenchTestnet {
  /** node0, node1…, spawned. */
  nodes: SpawnedNode[]
  /** Rejects as soon as a node exits before the stop (never resolves). */
  crashed: Promise<never>
}

/** How long the network took to come up, from the first spawn (ms). */
export interface TestnetStartup {
  /** Until every node answered eth_chainId. */
  msToRpc: number
  /** Until node0 reported height {@link STARTUP_HEIGHT}. */
  msToHeight: number
}

/**
 * Writes `validators` homes (node i on ports `startingPort` + 10·i …), spawns them (with `env` over
 * {@link TESTNET_ENV}), waits for node0's
 * first blocks, runs `run`, and always stops the nodes and deletes the folder, also on Ctrl-C. With
 * `cpuProfDir`, node i runs under `node --cpu-prof` and writes its profile into `<cpuProfDir>/node<i>/`
 * as it exits.
 */
export async function withTestnet<T>(
  validators: number,
  startingPort: number,
  engine: Engine,
  cpuProfDir: string | undefined,
  run: (net: BenchTestnet, startup: TestnetStartup) => Promise<T>,
  env: Readonly<Record<string, string>> = {},
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'nodectl-bench-testnet-'))
  const nodes: SpawnedNode[] = []
  let stopping: Promise<void> | undefined
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await Promise.all(nodes.map((n) => stopNode(n, { signal: 'SIGINT', graceMs: STOP_GRACE_MS })))
      rmSync(dir, { recursive: true, force: true })
    })())
  const onSignal = (signal: NodeJS.Signals): void => {
    process.stderr.write(`${signal} received: stopping the ${validators} nodes and deleting ${dir}\n`)
    void stop().finally(() => process.exit(SIGNALLED_EXIT_CODE))
  }
  for (const s of STOP_SIGNALS) process.on(s, onSignal)
  try {
    const testnet = await initTestnetFiles({ outputDir: dir, validators, startingPort, engine })
    // CometBFT reads only the files: the environment's settings go into them.
    if (engine === 'cometbft') for (const node of testnet.nodes) setTimeoutCommit(node.home, TESTNET_ENV.NODECTL_CONSENSUS_TIMEOUT_COMMIT!)
    const t0 = performance.now()
    for (const [i, node] of testnet.nodes.entries())
      nodes.push(spawnTestnetNode(node, { ...TESTNET_ENV, ...env }, engine, cpuProfFlags(i, cpuProfDir)))
    const crashed = new Promise<never>((_, reject) => {
      for (const [i, node] of nodes.entries()) {
        for (const proc of [node.child, node.companion]) {
          proc?.once('exit', (code, signal) => {
            if (stopping !== undefined) return
            const how = signal ? `signal ${signal}` : `code ${code}`
            process.stderr.write(`\n!!! node${i} exited with ${how} while the bench ran\n\n`)
            reject(new Error(`node${i} exited with ${how} (ports from --port ${startingPort}: in use?)`))
          })
        }
      }
    })
    // Whoever awaits it handles the rejection; this keeps it from being reported as unhandled meanwhile.
    crashed.catch(() => undefined)
    const startup = await Promise.race([waitForStartup(nodes, t0), crashed])
    return await Promise.race([run({ nodes, crashed }, startup), crashed])
  } finally {
    for (const s of STOP_SIGNALS) process.off(s, onSignal)
    await stop()
  }
}

/** Node.js flags of node `i`: with `cpuProfDir`, `--cpu-prof` into its folder (NODE_OPTIONS may not hold it). */
function cpuProfFlags(i: number, cpuProfDir: string | undefined): string[] {
  return cpuProfDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${join(resolve(cpuProfDir), `node${i}`)}`]
}

/** Rewrites `[consensus] timeout_commit` in a home's config.toml. */
function setTimeoutCommit(home: string, value: string): void {
  const path = join(home, 'config', 'config.toml')
  writeFileSync(path, readFileSync(path, 'utf8').replace(/^timeout_commit = ".*"$/m, `timeout_commit = "${value}"`))
}

/** Waits for every node's JSON-RPC, then for node0 to reach {@link STARTUP_HEIGHT}. */
async function waitForStartup(nodes: readonly SpawnedNode[], t0: number): Promise<TestnetStartup> {
  const clients = nodes.map((n) => new RpcClient(n.url, 1))
  try {
    await Promise.all(clients.map((c) => waitForRpc(c, STARTUP_TIMEOUT_MS)))
    const msToRpc = round(performance.now() - t0, 1)
    const deadline = t0 + STARTUP_TIMEOUT_MS
    while ((await getHeight(clients[0]!)) < STARTUP_HEIGHT) {
      if (performance.now() > deadline || !nodes.every(isRunning)) {
        throw new Error(`node0 did not reach height ${STARTUP_HEIGHT} within ${STARTUP_TIMEOUT_MS} ms`)
      }
      await sleep(50)
    }
    return { msToRpc, msToHeight: round(performance.now() - t0, 1) }
  } finally {
    for (const c of clients) c.close()
  }
}
