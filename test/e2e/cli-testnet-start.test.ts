/**
 * `nodectl testnet start` as a user runs it: the binary writes a one-validator testnet with
 * `testnet init-files`, runs it with `testnet start` in a child process until node0's prefixed log shows
 * a committed block, and stops on SIGINT with status 0. Runs the built `dist/`; skipped when it has not
 * been built (as test/e2e/binary.test.ts). The homes name their ports, drawn outside the kernel's
 * ephemeral range (test/helpers/ports.ts); when another program took one all the same, node0 exits
 * saying so, and the test writes the homes again on other ports. The first homes always find their
 * consensus-RPC port held by a listener of the test, so every run takes that path once.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { TESTNET_PORT_OFFSETS } from '../../src/config/testnet.js'
import { ROOT } from '../helpers/cli.js'
import { pickPortBlock } from '../helpers/ports.js'
import { busyPortOf } from '../helpers/testnet-processes.js'

const BUILT = existsSync(join(ROOT, 'dist/commands/testnet/start.js'))
if (!BUILT) console.warn('test/e2e/cli-testnet-start.test.ts skipped: dist/commands/testnet/start.js is missing; run `npm run build` first')

const BIN = join(ROOT, 'bin/run.js')

/** Runs of `init-files` + `testnet start` that may fail on a taken port before the test fails. */
const ATTEMPTS = 5
/** The ports of a one-node testnet's block, and the consensus RPC's among them (src/config/testnet.ts). */
const PORTS_PER_NODE = 4
const CONSENSUS_RPC_OFFSET = TESTNET_PORT_OFFSETS.cometRpc

/** A listener on `port` that is not a node: a port another program holds. */
function occupy(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => socket.destroy())
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve(server))
  })
}

/** A running `nodectl testnet start -o <out>`: its output so far, its exit, and node0's first committed block. */
interface TestnetRun {
  child: ChildProcess
  output: { stdout: string; stderr: string }
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** node0's first `committed block` line; undefined when the command exits first. */
  committed: Promise<string | undefined>
}

function startTestnet(out: string): TestnetRun {
  const child = spawn(process.execPath, [BIN, 'testnet', 'start', '-o', out], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  const output = { stdout: '', stderr: '' }
  child.stderr!.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString('utf8')
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  )
  const committed = new Promise<string | undefined>((resolve) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output.stdout += chunk.toString('utf8')
      const line = output.stdout.split('\n').find((l) => l.startsWith('node0 | ') && l.includes('committed block'))
      if (line !== undefined) resolve(line)
    })
    void exited.then(() => resolve(undefined))
  })
  return { child, output, exited, committed }
}

describe.skipIf(!BUILT)('nodectl testnet start (the binary)', () => {
  let dir: string | undefined
  let child: ChildProcess | undefined
  let squatter: Server | undefined

  afterAll(async () => {
    squatter?.close()
    // Only reached with a live child when an assertion failed before SIGINT.
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('runs the homes of init-files with prefixed output until SIGINT, then exits 0', async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodectl-e2e-testnet-'))
    const out = join(dir, 'net')
    let run: TestnetRun | undefined
    let line: string | undefined
    const taken: number[] = []
    for (let attempt = 1; line === undefined; attempt++) {
      const startingPort = await pickPortBlock(PORTS_PER_NODE)
      const args = ['testnet', 'init-files', '--validators', '1', '-o', out, '--starting-port', String(startingPort), '--overwrite']
      await promisify(execFile)(process.execPath, [BIN, ...args])
      if (attempt === 1) squatter = await occupy(startingPort + CONSENSUS_RPC_OFFSET)
      run = startTestnet(out)
      child = run.child
      line = await run.committed
      if (line !== undefined) break
      // Exited before a block: only a port of this block that another program took is worth another try.
      const busy = busyPortOf(run.output.stdout.replace(/^node0 \| /gm, ''))
      const ours = busy !== undefined && busy >= startingPort && busy < startingPort + PORTS_PER_NODE
      if (!ours || attempt >= ATTEMPTS)
        throw new Error(`testnet start exited first; stdout:\n${run.output.stdout}\nstderr:\n${run.output.stderr}`)
      taken.push(busy)
    }
    const { output } = run!
    expect(taken).toEqual([(squatter!.address() as { port: number }).port])

    expect(line).toMatch(/^node0 \| .*committed block/)
    expect(output.stdout.split('\n')[0]).toMatch(/^node0 {2}\S+node0 {2}JSON-RPC http:\/\/127\.0\.0\.1:\d+$/)

    child!.kill('SIGINT')
    const { code, signal } = await run!.exited
    expect({ code, signal }, `stdout:\n${output.stdout}\nstderr:\n${output.stderr}`).toEqual({ code: 0, signal: null })
    expect(output.stderr).toContain('SIGINT received, stopping the nodes')
    expect(output.stdout).toContain('node0 | node0 exited with code 0')
  }, 60_000)
})
