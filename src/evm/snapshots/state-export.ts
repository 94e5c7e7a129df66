/**
 * Reads the state at a committed root as snapshot entries: every account-trie node, storage-trie node
 * and code it refers to (state/trie-node-refs.ts), each once, every entry after the one that refers to it (depth
 * first, a batch of nodes at a time). So the import can check that every entry it gets is referred to by
 * one it already has.
 *
 * It runs beside block production: nodes are read a batch at a time and the loop is handed back
 * every few milliseconds (event-loop-yield.ts). The root must stay readable until it ends (the caller
 * pins it against pruning).
 */
import type { Database } from '../../db/database.js'
import { KECCAK256_RLP } from '@ethereumjs/util'
import { bytesToHex, equalBytes } from '../../primitives/hex.js'
import { EventLoopYield } from '../../utils/event-loop-yield.js'
import { EntryKind, collectRefs, entryKey, refId, type StateEntry, type StateRef } from './snapshot-format.js'

/** Entries read with one getMany. */
const READ_BATCH = 256

/** Yields the entries of the state at `root`; throws when one is missing (the state was pruned). */
export async function* exportState(db: Database, root: Uint8Array, aborted: () => boolean): AsyncGenerator<StateEntry> {
  const pause = new EventLoopYield(8)
  const seen = new Set<string>()
  const stack: StateRef[] = equalBytes(root, KECCAK256_RLP) ? [] : [{ hash: root, kind: EntryKind.AccountNode }]
  while (stack.length > 0) {
    if (aborted()) return
    const batch: StateRef[] = []
    while (batch.length < READ_BATCH && stack.length > 0) {
      const ref = stack.pop()!
      const id = refId(ref.kind, ref.hash)
      if (seen.has(id)) continue
      seen.add(id)
      batch.push(ref)
    }
    const values = await db.getMany(batch.map((r) => entryKey(r.kind, r.hash)))
    const children: StateRef[] = []
    for (let i = 0; i < batch.length; i++) {
      const ref = batch[i]!
      const bytes = values[i]
      if (bytes === undefined) throw new Error(`missing trie node ${bytesToHex(ref.hash)}`)
      yield { kind: ref.kind, bytes }
      collectRefs(ref.kind, bytes, children)
      await pause.poll()
    }
    // Reversed, so the stack hands them out in the order they were referred to.
    for (let i = children.length - 1; i >= 0; i--) if (!seen.has(refId(children[i]!.kind, children[i]!.hash))) stack.push(children[i]!)
  }
}
