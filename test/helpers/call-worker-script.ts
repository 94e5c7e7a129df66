/**
 * The call workers' script for in-process test nodes. Tests run the TypeScript sources, and a worker
 * thread needs JavaScript, so vitest's global setup (`setup`) bundles src/evm/calls/call-worker.ts with
 * esbuild once per run, its packages left as imports from node_modules, and test nodes start their
 * workers from that file (`testCallWorkerScript`).
 */
import { mkdir, rm } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { REPO_ROOT } from './repo-root.js'

const ENV = 'NODECTL_TEST_CALL_WORKER_SCRIPT'

/** The script vitest's global setup built, or undefined outside vitest (the bench: compiled sources). */
export function testCallWorkerScript(): URL | undefined {
  const href = process.env[ENV]
  return href ? new URL(href) : undefined
}

/**
 * Bundles a TypeScript entry into one ES module at `outfile` (created with its folder), its packages left
 * as imports from node_modules: for a worker thread or a child process, which need JavaScript.
 */
export async function bundleScript(entry: string, outfile: string): Promise<void> {
  await mkdir(dirname(outfile), { recursive: true })
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  })
}

/** vitest global setup: builds the script (inside the repository, so its imports resolve) and removes it after the run. */
export async function setup(): Promise<() => Promise<void>> {
  const dir = join(REPO_ROOT, 'node_modules/.cache/nodectl-test')
  const outfile = join(dir, `call-worker-${process.pid}.mjs`)
  await bundleScript(join(REPO_ROOT, 'src/evm/calls/call-worker.ts'), outfile)
  process.env[ENV] = pathToFileURL(outfile).href
  return () => rm(outfile, { force: true })
}
