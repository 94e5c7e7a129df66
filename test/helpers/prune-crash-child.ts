/**
 * A pruning node (the `start` flags it is given, as JSON) in a child process that stops in the middle of its
 * first pruning run, as a crash would find it: the run's first release is written, the second is held
 * (and with it the node's next Commit). It then prints `paused {lowest, head}` and does nothing more,
 * so the test can SIGKILL it there (test/e2e/prune-crash.test.ts). Usage: `node <bundle> <home> <flags JSON>`;
 * prints `ready {addresses}` once it serves. The test bundles it with esbuild and imports only its types.
 */
import { initDevHome, isHomeInitialised } from '../../src/config/init-home.js'
import { loadNodeConfig } from '../../src/config/load.js'
import { Prefix } from '../../src/db/prefixes.js'
import { Node } from '../../src/node/node.js'
import { testNodeSettings } from '../../src/node/test-settings.js'
import { silentLogger } from '../../src/utils/logger.js'
import { testCallWorkerScript } from './call-worker-script.js'

/** What the child prints when it stops. */
export interface PrunePaused {
  /** The lowest height with state the node answered for when it stopped. */
  lowest: number
  head: number
}

async function run(home: string, flags: Record<string, unknown>): Promise<void> {
  if (!(await isHomeInitialised(home))) await initDevHome(home, { settings: testNodeSettings() })
  const config = await loadNodeConfig({ home, dev: false, env: {}, flags })
  const node = await Node.create(config, silentLogger, { callWorkerScript: testCallWorkerScript() })
  const { db, app } = node.components
  const batch = db.batch.bind(db)
  let releases = 0
  db.batch = async (ops) => {
    // A release deletes trie nodes; nothing else does.
    if (ops.some((op) => op.type === 'del' && op.key[0] === Prefix.trie) && ++releases === 2) {
      process.stdout.write(`paused ${JSON.stringify({ lowest: app.lowestStateHeight(), head: app.latestHeight() })}\n`)
      return new Promise<never>(() => {})
    }
    return batch(ops)
  }
  const addresses = await node.start()
  process.stdout.write(`ready ${JSON.stringify(addresses)}\n`)
}

const [home, flags] = process.argv.slice(2)
if (!home || !flags) throw new Error('usage: <home> <flags JSON>')
await run(home, JSON.parse(flags) as Record<string, unknown>)
