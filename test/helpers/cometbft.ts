/**
 * The tests that run a real CometBFT (cometbft-bin.ts finds it). Where none is found, a test file calls
 * {@link describeWithCometbft}'s skip: in CI (`CI=true`, where `.ci/run` provisions the binary) that is a
 * failure instead, so the tests cannot silently stop running there.
 */
import { describe, it } from 'vitest'
import { COMETBFT_VERSION, findCometbft } from './cometbft-bin.js'

/** The line a skipped file prints: how to enable the tests. */
export const COMETBFT_SKIP_REASON = `no cometbft v${COMETBFT_VERSION}: run scripts/cometbft-bin.sh (needs Go) or set COMETBFT_BIN to enable the CometBFT tests`

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
