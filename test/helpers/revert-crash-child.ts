/**
 * A dev node in a child process that stops at one point of its first evm_revert, as a crash would find
 * it there: it prints `paused {point}` and does nothing more, so the test can SIGKILL it at exactly that
 * point (test/e2e/dev-revert-crash.test.ts). The points, in the order of `ConsensusEngine.rewind`:
 * - `after-wal-end-height`: the WAL has the `#ENDHEIGHT` of the snapshot's height; nothing else changed;
 * - `after-signer-rewind`: the validator's signing state is back at that height too;
 * - `before-batch-write`: the rollback of every store is staged, not written;
 * - `after-batch-write`: the rollback is written; the block store and the application have not reloaded;
 * - `after-app-rewound`: the application reloaded its head; the pool and consensus have not restarted.
 * The node's RPC keeps serving meanwhile; no empty blocks are made (the test counts heights). Usage:
 * `node <bundle> <home> <point>`; prints `ready {addresses}` once it serves. The test bundles it with
 * esbuild and imports only its types.
 */
import { initDevHome, isHomeInitialised } from '../../src/config/init-home.js'
import { loadNodeConfig } from '../../src/config/load.js'
import type { PrivValidator } from '../../src/consensus/privval.js'
import { Node } from '../../src/node/node.js'
import { testNodeSettings } from '../../src/node/test-settings.js'
import { silentLogger } from '../../src/utils/logger.js'
import { testCallWorkerScript } from './call-worker-script.js'
import { NO_EMPTY_BLOCKS_FLAGS } from './dev-node.js'

const REVERT_POINTS = [
  'after-wal-end-height',
  'after-signer-rewind',
  'before-batch-write',
  'after-batch-write',
  'after-app-rewound',
] as const
export type RevertPoint = (typeof REVERT_POINTS)[number]

/** Runs the node and stops at `point` of the first revert. */
async function run(home: string, point: RevertPoint): Promise<void> {
  if (!(await isHomeInitialised(home))) await initDevHome(home, { settings: testNodeSettings() })
  const config = await loadNodeConfig({ home, dev: true, env: {}, flags: NO_EMPTY_BLOCKS_FLAGS })
  const node = await Node.create(config, silentLogger, { callWorkerScript: testCallWorkerScript() })
  const stopAt = async (p: RevertPoint): Promise<void> => {
    if (p !== point) return
    process.stdout.write(`paused ${JSON.stringify({ point })}\n`)
    await new Promise<never>(() => {})
  }

  const signer = (node.components.engine as unknown as { opts: { privValidator: PrivValidator } }).opts.privValidator
  const rewindTo = signer.rewindTo!.bind(signer)
  signer.rewindTo = async (height) => {
    await stopAt('after-wal-end-height')
    await rewindTo(height)
    await stopAt('after-signer-rewind')
  }
  const app = node.components.app
  const stageRollback = app.stageRollback.bind(app)
  app.stageRollback = async (stage, height, validators) => {
    await stageRollback(stage, height, validators)
    // The engine writes its one stage once every owner has staged its part (the app first).
    const write = stage.write.bind(stage)
    stage.write = async () => {
      await stopAt('before-batch-write')
      await write()
      await stopAt('after-batch-write')
    }
  }
  const rewound = app.rewound.bind(app)
  app.rewound = async () => {
    await rewound()
    await stopAt('after-app-rewound')
  }
  const addresses = await node.start()
  // A kill while the dev key files are written would leave the key store's lock to its one-minute staleness.
  await node.components.accounts.whenDevKeysSaved()
  process.stdout.write(`ready ${JSON.stringify(addresses)}\n`)
}

const [home, point] = process.argv.slice(2)
if (!home || !REVERT_POINTS.includes(point as RevertPoint)) throw new Error(`usage: <home> <${REVERT_POINTS.join('|')}>`)
await run(home, point as RevertPoint)
