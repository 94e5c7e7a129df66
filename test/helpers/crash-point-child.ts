/**
 * A dev node in a child process that stops at one point of the first height carrying transactions, as
 * a crash would find it there: it prints `paused {point, height, cometHash, appHash}` and does nothing
 * more, so the test can SIGKILL it at exactly that point (test/e2e/crash-points.test.ts). The points,
 * between the writes of a height (block-executor.ts `applyBlock`):
 * - `before-app-commit`: the engine wrote the block and its FinalizeBlock response; the app's Commit has not begun;
 * - `inside-app-commit`: in the app's Commit, before its batch is written;
 * - `after-app-commit`: the app's Commit is written; the engine has not saved the state.
 * The node's RPC keeps serving meanwhile. Usage: `node <bundle> <home> <point>`; prints
 * `ready {addresses}` once it serves. The test bundles it with esbuild and imports only its types.
 */
import { initDevHome, isHomeInitialised } from '../../src/config/init-home.js'
import { loadNodeConfig } from '../../src/config/load.js'
import type { WriteStage } from '../../src/db/write-stage.js'
import { Node } from '../../src/node/node.js'
import { testNodeSettings } from '../../src/node/test-settings.js'
import { bytesToHex } from '../../src/primitives/hex.js'
import { silentLogger } from '../../src/utils/logger.js'
import { testCallWorkerScript } from './call-worker-script.js'

const CRASH_POINTS = ['before-app-commit', 'inside-app-commit', 'after-app-commit'] as const
export type CrashPoint = (typeof CRASH_POINTS)[number]

/** What the child prints when it stops. */
export interface Paused {
  point: CrashPoint
  height: number
  /** The consensus block's hash (0x hex): the EVM block's `cometHash` and `extraData`. */
  cometHash: string
  /** The app hash FinalizeBlock returned (the EVM state root after the block). */
  appHash: string
}

/** Runs the node and stops at `point`. */
async function run(home: string, point: CrashPoint): Promise<void> {
  if (!(await isHomeInitialised(home))) await initDevHome(home, { settings: testNodeSettings() })
  const config = await loadNodeConfig({ home, dev: true, env: {}, flags: {} })
  const node = await Node.create(config, silentLogger, { callWorkerScript: testCallWorkerScript() })
  const app = node.components.app
  let target: Omit<Paused, 'point'> | undefined
  let executing = 0
  const stopHere = (): Promise<never> => {
    process.stdout.write(`paused ${JSON.stringify({ point, ...target })}\n`)
    return new Promise<never>(() => {})
  }
  const at = (p: CrashPoint): boolean => point === p && target?.height === executing

  const finalizeBlock = app.finalizeBlock.bind(app)
  app.finalizeBlock = async (req) => {
    const res = await finalizeBlock(req)
    executing = req.height
    if (!target && req.txs.length > 0) target = { height: req.height, cometHash: bytesToHex(req.hash), appHash: bytesToHex(res.appHash) }
    return res
  }
  // The app's own stage, which its Commit writes first thing.
  const stage = (app as unknown as { stage: WriteStage }).stage
  const write = stage.write.bind(stage)
  stage.write = async () => {
    if (at('inside-app-commit')) await stopHere()
    return write()
  }
  const commit = app.commit.bind(app)
  app.commit = async () => {
    if (at('before-app-commit')) await stopHere()
    const res = await commit()
    if (at('after-app-commit')) await stopHere()
    return res
  }
  const addresses = await node.start()
  // A kill while the dev key files are written would leave the key store's lock to its one-minute staleness.
  await node.components.accounts.whenDevKeysSaved()
  process.stdout.write(`ready ${JSON.stringify(addresses)}\n`)
}

const [home, point] = process.argv.slice(2)
if (!home || !CRASH_POINTS.includes(point as CrashPoint)) throw new Error(`usage: <home> <${CRASH_POINTS.join('|')}>`)
await run(home, point as CrashPoint)
