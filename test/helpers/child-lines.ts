/**
 * A test's child process: a helper script bundled and spawned on its own, and what it reports on its
 * stdout, one JSON line per event.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { bundleScript } from './call-worker-script.js'
import { REPO_ROOT } from './repo-root.js'

/** Longest wait for a line of the child, in ms. */
const LINE_TIMEOUT_MS = 30_000

/** The child's first stdout line starting with `prefix`, parsed; rejects if it exits first or stays silent. */
export function lineOf<T>(child: ChildProcess, prefix: string, output: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${prefix}" line from the child: ${output.join('\n')}`)), LINE_TIMEOUT_MS)
    let buffered = ''
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString()
      let nl = buffered.indexOf('\n')
      while (nl >= 0) {
        const line = buffered.slice(0, nl)
        buffered = buffered.slice(nl + 1)
        output.push(line)
        if (line.startsWith(prefix)) {
          child.stdout!.off('data', onData)
          child.off('exit', onExit)
          clearTimeout(timer)
          resolve(JSON.parse(line.slice(prefix.length)) as T)
          return
        }
        nl = buffered.indexOf('\n')
      }
    }
    const onExit = (code: number | null): void => {
      clearTimeout(timer)
      reject(new Error(`child exited (${code}) before "${prefix}": ${output.join('\n')}`))
    }
    child.stdout!.on('data', onData)
    child.on('exit', onExit)
  })
}

/**
 * Bundles `test/helpers/<name>.ts` for a child process. It goes two folders below the repository, as
 * src/node is: the node reads its version from ../../package.json. Returns the bundle's path.
 */
export async function bundleChild(name: string): Promise<string> {
  const script = join(REPO_ROOT, 'node_modules/.cache', `nodectl-${name}-${process.pid}.mjs`)
  await bundleScript(join(REPO_ROOT, 'test/helpers', `${name}.ts`), script)
  return script
}

/** Runs a bundled child script: its stderr gathered into `output` (with the stdout lines `lineOf` reads), `exited` settling when it ends. */
export function spawnChild(script: string, args: string[]): { child: ChildProcess; output: string[]; exited: Promise<void> } {
  const output: string[] = []
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()))
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  return { child, output, exited }
}
