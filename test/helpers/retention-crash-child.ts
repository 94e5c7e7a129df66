/**
 * A dev node with `min-retain-blocks` in a child process that stops at one point of its pruning, as a
 * crash would find it there: it prints `paused {point}` and does nothing more, so the test can SIGKILL
 * it there (test/e2e/history-retention-crash.test.ts). The points:
 * - `evm-before-write`: the application's first pruning batch is staged, not written;
 * - `evm-after-write`: it is written, more heights wait for the next batches;
 * - `blocks-before-write` / `blocks-after-write`: the same of the engine's block pruning.
 * Usage: `node <bundle> <home> <keep> <point>`; prints `ready {addresses}` once it serves. The test
 * bundles it with esbuild and imports only its types.
 */
import { loadNodeConfig } from '../../src/config/load.js'
import type { WriteStage } from '../../src/db/write-stage.js'
import { Node } from '../../src/node/node.js'
import { silentLogger } from '../../src/utils/logger.js'
import { testCallWorkerScript } from './call-worker-script.js'
import { NO_EMPTY_BLOCKS_FLAGS } from './dev-node.js'

const PRUNE_POINTS = ['evm-before-write', 'evm-after-write', 'blocks-before-write', 'blocks-after-write'] as const
export type PrunePoint = (typeof PRUNE_POINTS)[number]

/** Stops at `point` when `stage` (a pruner's) is written the first time. */
function pauseAt(stage: WriteStage, side: 'evm' | 'blocks', point: PrunePoint): void {
  if (!point.startsWith(`${side}-`)) return
  const write = stage.write.bind(stage)
  const pause = (p: PrunePoint): Promise<void> => {
    if (p !== point) return Promise.resolve()
    process.stdout.write(`paused ${JSON.stringify({ point })}\n`)
    return new Promise<never>(() => {})
  }
  stage.write = async () => {
    await pause(`${side}-before-write`)
    await write()
    await pause(`${side}-after-write`)
  }
}

async function run(home: string, keep: string, point: PrunePoint): Promise<void> {
  const config = await loadNodeConfig({ home, dev: true, env: {}, flags: { ...NO_EMPTY_BLOCKS_FLAGS, 'min-retain-blocks': keep } })
  const node = await Node.create(config, silentLogger, { callWorkerScript: testCallWorkerScript() })
  pauseAt((node.components.app as unknown as { history: { stage: WriteStage } }).history.stage, 'evm', point)
  const addresses = await node.start()
  const engine = node.components.engine as unknown as { blockExec: { pruner: { stage: WriteStage } } }
  pauseAt(engine.blockExec.pruner.stage, 'blocks', point)
  await node.components.accounts.whenDevKeysSaved()
  process.stdout.write(`ready ${JSON.stringify(addresses)}\n`)
}

const [home, keep, point] = process.argv.slice(2)
if (!home || !keep || !PRUNE_POINTS.includes(point as PrunePoint)) throw new Error(`usage: <home> <keep> <${PRUNE_POINTS.join('|')}>`)
await run(home, keep, point as PrunePoint)
