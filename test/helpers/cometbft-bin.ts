/**
 * Where the tests and the benchmark find a CometBFT binary: `$COMETBFT_BIN`, else `cometbft` on the
 * `PATH`, else the cache folder `scripts/cometbft-bin.sh` builds it into. Only a binary of
 * {@link COMETBFT_VERSION} counts. (No vitest here: the benchmark imports it.)
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, join } from 'node:path'

/** The CometBFT release nodectl is tested against (keep in step with scripts/cometbft-bin.sh). */
export const COMETBFT_VERSION = '0.38.25'

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
