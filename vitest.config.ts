import { defineConfig } from 'vitest/config'

/**
 * Tests that run several `nodectl` processes of the built binary at once (four validators each). They run
 * after every other file, one file at a time, so their load does not slow the timing-sensitive tests of
 * the in-process suites on a 2-core machine.
 */
const PROCESS_TESTS = [
  'test/e2e/testnet-faults.test.ts',
  'test/e2e/testnet-partition.test.ts',
  'test/e2e/testnet-ports.test.ts',
  'test/e2e/kill-storm.test.ts',
]

const shared = {
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
}

export default defineConfig({
  test: {
    reporters: ['default'],
    projects: [
      {
        test: {
          ...shared,
          name: 'node',
          include: ['test/**/*.test.ts'],
          exclude: PROCESS_TESTS,
          sequence: { groupOrder: 0 },
          // Bundles the call workers' script for the in-process test nodes (test/helpers/call-worker-script.ts).
          globalSetup: ['test/helpers/call-worker-script.ts'],
        },
      },
      { test: { ...shared, name: 'processes', include: PROCESS_TESTS, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
})
