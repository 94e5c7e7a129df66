/**
 * `nodectl testnet start` as a user runs it: the binary writes a one-validator testnet with
 * `testnet init-files`, runs it with `testnet start` in a child process until node0's prefixed log shows
 * a committed block, and stops on SIGINT with status 0. Runs the built `dist/`; skipped when it has not
 * been built (as test/e2e/binary.test.ts).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT } from '../helpers/cli.js'

const BUILT = existsSync(join(ROOT, 'dist/commands/testnet/start.js'))
if (!BUILT) console.warn('test/e2e/cli-testnet-start.test.ts skipped: dist/commands/testnet/start.js is missing; run `npm run build` first')

const BIN = join(ROOT, 'bin/run.js')

/** A random starting port in 30000..59990: the testnet's four ports must be given, and fixed ones may be taken on a shared machine. */
const startingPort = (): number => 30_000 + 10 * Math.floor(Math.random() * 3_000)

describe.skipIf(!BUILT)('nodectl testnet start (the binary)', () => {
  let dir: string | undefined
  let child: ChildProcess | undefined

  afterAll(async () => {
    // Only reached with a live child when an assertion failed before SIGINT.
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('runs the homes of init-files with prefixed output until SIGINT, then exits 0', async () => {
    dir = await mkdtemp(join(tmpdir(), 'nodectl-e2e-testnet-'))
    const out = join(dir, 'net')
    await promisify(execFile)(process.execPath, [
      BIN,
      'testnet',
      'init-files',
      '--validators',
      '1',
      '-o',
      out,
      '--starting-port',
      String(startingPort()),
    ])

    child = spawn(process.execPath, [BIN, 'testnet', 'start', '-o', out], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child!.once('close', (code, signal) => resolve({ code, signal })),
    )
    const committed = new Promise<string>((resolve, reject) => {
      child!.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8')
        const line = stdout.split('\n').find((l) => l.startsWith('node0 | ') && l.includes('committed block'))
        if (line !== undefined) resolve(line)
      })
      child!.once('exit', (code) => reject(new Error(`testnet start exited (code ${code}) first; stdout:\n${stdout}\nstderr:\n${stderr}`)))
    })

    expect(await committed).toMatch(/^node0 \| .*committed block/)
    expect(stdout.split('\n')[0]).toMatch(/^node0 {2}\S+node0 {2}JSON-RPC http:\/\/127\.0\.0\.1:\d+$/)

    child.kill('SIGINT')
    const { code, signal } = await exited
    expect({ code, signal }, `stdout:\n${stdout}\nstderr:\n${stderr}`).toEqual({ code: 0, signal: null })
    expect(stderr).toContain('SIGINT received, stopping the nodes')
    expect(stdout).toContain('node0 | node0 exited with code 0')
  }, 60_000)
})
