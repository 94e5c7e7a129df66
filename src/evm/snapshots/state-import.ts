/**
 * Receives the state entries of a snapshot and writes them, checking each one: an entry must be one
 * the state already received refers to (starting from the trusted root), named by its own keccak256.
 * So nothing that is not part of the state at that root can be written, and once nothing referred to
 * is missing (`complete`), the state under the root is whole.
 *
 * Entries are written straight to LevelDB (content-addressed: one that already exists is the same
 * bytes). The keys this import created are remembered, so an abandoned restore removes exactly them
 * (`discard`) and leaves the database as it found it.
 */
import { KECCAK256_RLP } from '@ethereumjs/util'
import { keccak256 } from '../../crypto/index.js'
import type { Database } from '../../db/database.js'
import type { BatchOp } from '../../db/write-stage.js'
import { bytesToHex, equalBytes } from '../../primitives/hex.js'
import { EntryKind, collectRefs, entryKey, refId, type StateEntry, type StateRef } from './snapshot-format.js'

/** An entry the state does not refer to, or a malformed one: the snapshot is wrong, not the transfer. */
export class StateImportError extends Error {}

export class StateImport {
  /** Entries referred to and not yet received. */
  private readonly expected = new Set<string>()
  /** Entries received: whether this import created their key. */
  private readonly received = new Map<string, { key: Uint8Array; created: boolean }>()

  constructor(
    private readonly db: Database,
    root: Uint8Array,
  ) {
    if (!equalBytes(root, KECCAK256_RLP)) this.expected.add(refId(EntryKind.AccountNode, root))
  }

  /** Checks and writes the entries of one chunk; throws StateImportError when one is not part of the state. */
  async add(entries: readonly StateEntry[]): Promise<void> {
    const refs: StateRef[] = []
    const keys: Uint8Array[] = []
    const ids: string[] = []
    for (const entry of entries) {
      const hash = keccak256(entry.bytes)
      const id = refId(entry.kind, hash)
      if (!this.expected.delete(id)) throw new StateImportError(`state entry ${bytesToHex(hash)} is not referred to by the state received`)
      try {
        collectRefs(entry.kind, entry.bytes, refs)
      } catch (err) {
        throw new StateImportError(`state entry ${bytesToHex(hash)}: ${err instanceof Error ? err.message : String(err)}`)
      }
      keys.push(entryKey(entry.kind, hash))
      ids.push(id)
      // Received before its siblings' references are counted: an entry may refer to one of the same chunk.
      this.received.set(id, { key: keys.at(-1)!, created: false })
      for (const ref of refs.splice(0)) {
        const refIdOf = refId(ref.kind, ref.hash)
        if (!this.received.has(refIdOf)) this.expected.add(refIdOf)
      }
    }
    const existing = await this.db.getMany(keys)
    const ops: BatchOp[] = []
    for (let i = 0; i < keys.length; i++) {
      if (existing[i] !== undefined) continue
      ops.push({ type: 'put', key: keys[i]!, value: entries[i]!.bytes })
      this.received.get(ids[i]!)!.created = true
    }
    if (ops.length > 0) await this.db.batch(ops)
  }

  /** Whether every entry the state refers to was received. */
  get complete(): boolean {
    return this.expected.size === 0
  }

  /** Entries still missing (referred to, not received). */
  get missing(): number {
    return this.expected.size
  }

  /** Entries received. */
  get count(): number {
    return this.received.size
  }

  /** Removes what this import wrote. */
  async discard(): Promise<void> {
    const ops: BatchOp[] = []
    for (const r of this.received.values()) if (r.created) ops.push({ type: 'del', key: r.key })
    this.received.clear()
    this.expected.clear()
    if (ops.length > 0) await this.db.batch(ops)
  }
}
