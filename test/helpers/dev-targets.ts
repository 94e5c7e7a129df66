/**
 * The development nodes a suite written for Hardhat or Anvil runs against, each in a child process on
 * free ports: `nodectl start --dev` (the built binary, its temporary home deleted when it stops) and
 * Anvil from the `@foundry-rs/anvil-linux-amd64` dev dependency. Both serve the same 10 funded and
 * unlocked accounts of the mnemonic `test test … junk` and chain id 31337.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { REPO_ROOT } from './repo-root.js'

/** A running development node. */
export interface DevTarget {
  /** JSON-RPC over HTTP. */
  url: string
  /** Stops the process and waits for its exit. */
  stop(): Promise<void>
}

/** Longest wait for a node to say where it listens, in ms. */
const START_TIMEOUT_MS = 60_000

const ANVIL_BIN = join(REPO_ROOT, 'node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil')
const NODECTL_BIN = join(REPO_ROOT, 'bin/run.js')
const ANY_PORT = '127.0.0.1:0'

/**
 * `nodectl start --dev --json` on port 0 everywhere; the URL comes from its banner. The flags turn off
 * the empty block a dev chain makes after 5 s without transactions, as Anvil and Hardhat make none:
 * a suite that counts blocks then counts only its own.
 */
export function startNodectlDev(): Promise<DevTarget> {
  const child = spawn(
    process.execPath,
    [
      NODECTL_BIN,
      'start',
      '--dev',
      '--json',
      '--json-rpc.address',
      ANY_PORT,
      '--json-rpc.ws-address',
      ANY_PORT,
      '--consensus.create_empty_blocks=false',
      '--consensus.create_empty_blocks_interval',
      '0s',
    ],
    {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODECTL_RPC_LADDR: `tcp://${ANY_PORT}`, NODECTL_P2P_LADDR: `tcp://${ANY_PORT}` },
    },
  )
  return started(child, 'SIGINT', (line) => {
    if (!line.startsWith('{')) return undefined
    return (JSON.parse(line) as { jsonRpc?: { http?: string } }).jsonRpc?.http
  })
}

/** `anvil --port 0`; the URL comes from its `Listening on host:port` line. */
export function startAnvil(): Promise<DevTarget> {
  const child = spawn(ANVIL_BIN, ['--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] })
  return started(child, 'SIGTERM', (line) => {
    const m = /^Listening on (\S+)$/.exec(line.trim())
    return m ? `http://${m[1]}` : undefined
  })
}

/** Resolves with the target once `urlOf` finds the URL in a stdout line; rejects if the child exits or stays silent. */
function started(child: ChildProcess, signal: NodeJS.Signals, urlOf: (line: string) => string | undefined): Promise<DevTarget> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const output: string[] = []
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()))
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    await exited
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`no URL from the node within ${START_TIMEOUT_MS} ms: ${output.join('')}`))
    }, START_TIMEOUT_MS)
    let buffered = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString()
      const lines = buffered.split('\n')
      buffered = lines.pop()!
      for (const line of lines) {
        output.push(line)
        const url = urlOf(line)
        if (url === undefined) continue
        clearTimeout(timer)
        resolve({ url, stop })
      }
    })
    void exited.then(() => {
      clearTimeout(timer)
      reject(new Error(`the node exited before it served: ${output.join('\n')}`))
    })
  })
}
