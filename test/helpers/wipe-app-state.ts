/**
 * Makes a node's application lose its state while consensus keeps its blocks, so the next start
 * replays every stored block into a fresh application (the handshake: InitChain, then FinalizeBlock +
 * Commit of each height).
 */
import { Database } from '../../src/db/database.js'
import { Prefix, metaKey, prefixEnd } from '../../src/db/prefixes.js'
import { startTestNode, type TestNode } from './dev-node.js'

/** Deletes everything the EVM application keeps (state trie, EVM view, its meta keys); consensus data stays. */
export async function wipeApplicationState(path: string): Promise<number> {
  const db = new Database({ path })
  await db.open()
  try {
    const ranges: { gte: Uint8Array; lt: Uint8Array }[] = [
      Prefix.trie,
      Prefix.evmBlock,
      Prefix.evmReceipts,
      Prefix.evmTxIndex,
      Prefix.cometTxIndex,
      Prefix.logIndex,
      Prefix.evmLogs,
    ].map((p) => ({
      gte: new Uint8Array([p]),
      lt: prefixEnd(new Uint8Array([p])),
    }))
    const evmMeta = metaKey('evm/')
    ranges.push({ gte: evmMeta, lt: prefixEnd(evmMeta) })
    let deleted = 0
    for (const range of ranges) {
      for (const key of await db.keys(range)) {
        await db.del(key)
        deleted++
      }
    }
    return deleted
  } finally {
    await db.close()
  }
}

/** Stops `t`, wipes its application's state and starts a node on the same home, which replays every stored block. */
export async function restartWithWipedApp(t: TestNode): Promise<TestNode> {
  const { home } = t
  const dbPath = t.node.config.paths.db
  await t.stop()
  await wipeApplicationState(dbPath)
  return startTestNode({ home })
}
