/**
 * Where the tests that run a real CometBFT find its binary: `$COMETBFT_BIN`, else `cometbft` on the
 * `PATH`, else the cache folder `scripts/cometbft-bin.sh` builds it into. Only a binary of
 * {@link COMETBFT_VERSION} counts. Where none is found, a test file calls {@link describeWithCometbft}'s
 * skip: in CI (`CI=true`, where `.ci/run` provisions the binary) that is a failure instead, so the
 * tests cannot silently stop running there.
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, join } from 'node:path'
import { describe, it } from 'vitest'

/** The CometBFT release nodectl is tested against (keep in step with scripts/cometbft-bin.sh). */
export const COMETBFT_VERSION = '0.38.25'

/** The line a skipped file prints: how to enable the tests. */
export const COMETBFT_SKIP_REASON = `no cometbft v${COMETBFT_VERSION}: run scripts/cometbft-bin.sh (needs Go) or set COMETBFT_BIN to enable the CometBFT tests`

/** The cache folder scripts/cometbft-bin.sh builds into. */
export function cachedCometbftPath(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.XDG_CACHE_HOME || join(homedir(), '.cache')
  return join(cache, 'nodectl', `cometbft-v${COMETBFT_VERSION}`, 'cometbft')
}

/** Whether `path` runs and reports {@link COMETBFT_VERSION}. */
function isExpectedVersion(path: string): boolean {
  try {
    return execFileSync(path, ['version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() === COMETBFT_VERSION
  } catch {
    return false
  }
}

/**
 * The cometbft binary to run, or undefined when none of {@link COMETBFT_VERSION} is found. A
 * `COMETBFT_BIN` that is set but wrong throws: it names what the user asked for.
 */
export function findCometbft(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.COMETBFT_BIN) {
    if (!isExpectedVersion(env.COMETBFT_BIN))
      throw new Error(`COMETBFT_BIN=${env.COMETBFT_BIN} is not a cometbft v${COMETBFT_VERSION} binary`)
    return env.COMETBFT_BIN
  }
  const onPath = (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, 'cometbft'))
  return [...onPath, cachedCometbftPath(env)].find((p) => existsSync(p) && isExpectedVersion(p))
}

/** Whether this run is CI's (`CI=true`), where the CometBFT tests must run. */
function isCi(env: NodeJS.ProcessEnv): boolean {
  return env.CI === 'true' || env.CI === '1'
}

/**
 * `describe` for a suite that needs CometBFT: `body` receives the binary's path. Without a binary the
 * suite is skipped with {@link COMETBFT_SKIP_REASON} as its name, or, in CI, the file fails at once.
 */
export function describeWithCometbft(name: string, body: (bin: string) => void): void {
  const bin = findCometbft()
  if (bin) {
    describe(name, () => body(bin))
    return
  }
  if (isCi(process.env)) throw new Error(`CI=true but ${COMETBFT_SKIP_REASON}; .ci/run provisions it with scripts/cometbft-bin.sh`)
  // The one line a developer sees: what to run to enable the suite.
  console.warn(`skipped "${name}": ${COMETBFT_SKIP_REASON}`)
  describe.skip(name, () => {
    it('needs cometbft', () => {})
  })
}
