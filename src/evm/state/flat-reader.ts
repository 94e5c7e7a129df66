/**
 * Reads of the flat state (flat-keys.ts) in place of trie walks: every trie a state manager over the
 * node's Database reads is given a shortcut (ethereumjs-patches.ts `setTrieShortcut`) that answers a
 * key in one lookup when the flat state is exact for what the trie holds, and leaves the walk to the
 * trie otherwise. The rule depends on roots only, so it holds for every reader alike: the consensus VM
 * at the head, eth_call copies on the main thread and on the call workers, tracing at older heights:
 *
 * - the account trie: its root is the marker's root, and the marker says complete;
 * - a storage trie: its root is the storage root the flat state records for that account (storage
 *   tries with one root hold the same slots), under a complete marker. A storage trie cleared in
 *   memory (a state override, a contract created over an address) has another root and walks.
 *
 * A batch can land between two reads of another thread (a call worker reads LevelDB while the main
 * thread writes), so the marker is read before and after the record: the same marker bytes (their
 * generation rises with every write) mean no write of the flat state came in between; LevelDB applies
 * a batch to reads all at once.
 */
import { RLP } from '@ethereumjs/rlp'
import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { KECCAK256_RLP } from '@ethereumjs/util'
import type { Database } from '../../db/database.js'
import { equalBytes } from '../../primitives/hex.js'
import { dataKey, FlatStatus, MARKER_KEY, markerCompleteAt, slotDataKey } from './flat-keys.js'

/** What a trie shortcut answers: a value, null for a key the state does not have, undefined to walk the trie. */
export type FlatAnswer = Uint8Array | null | undefined

/** The storage root of an account's RLP ([nonce, balance, storageRoot, codeHash]). */
export function storageRootOf(accountRlp: Uint8Array): Uint8Array {
  const fields = RLP.decode(accountRlp) as Uint8Array[]
  return fields[2]!
}

export class FlatReader {
  constructor(private readonly db: Database) {}

  /** An account trie's key (hashed address) at `root`. */
  readAccount(root: Uint8Array, addressHash: Uint8Array): FlatAnswer {
    const before = this.db.getSync(MARKER_KEY)
    if (before === undefined || !markerCompleteAt(before, root)) return undefined
    const value = this.db.getSync(dataKey(addressHash))
    return this.unchanged(before) ? (value ?? null) : undefined
  }

  /**
   * A storage trie's key (hashed slot) of the account `addressHash`, the trie at `storageRoot`.
   * `seen` keeps, per storage trie, the storage root the flat state gave under one marker.
   */
  readSlot(storageRoot: Uint8Array, addressHash: Uint8Array, slotHash: Uint8Array, seen: SeenStorageRoot): FlatAnswer {
    const before = this.db.getSync(MARKER_KEY)
    if (before === undefined || before[0] !== FlatStatus.complete) return undefined
    if (seen.marker === undefined || !equalBytes(seen.marker, before)) {
      const account = this.db.getSync(dataKey(addressHash))
      seen.root = account === undefined ? KECCAK256_RLP : storageRootOf(account)
      seen.marker = before
    }
    if (!equalBytes(seen.root!, storageRoot)) return undefined
    const value = this.db.getSync(slotDataKey(addressHash, slotHash))
    if (!this.unchanged(before)) {
      seen.marker = undefined
      return undefined
    }
    return value ?? null
  }

  private unchanged(before: Uint8Array): boolean {
    const after = this.db.getSync(MARKER_KEY)
    return after !== undefined && equalBytes(after, before)
  }

  /** A shortcut for an account trie. */
  accountShortcut(trie: MerklePatriciaTrie): (hashedKey: Uint8Array) => FlatAnswer {
    return (hashedKey) => this.readAccount(trie.root(), hashedKey)
  }

  /** A shortcut for the storage trie of the account `addressHash`. */
  storageShortcut(trie: MerklePatriciaTrie, addressHash: Uint8Array): (hashedKey: Uint8Array) => FlatAnswer {
    const seen: SeenStorageRoot = { marker: undefined, root: undefined }
    return (hashedKey) => this.readSlot(trie.root(), addressHash, hashedKey, seen)
  }
}

/** The storage root the flat state gave for one account, and under which marker. */
export interface SeenStorageRoot {
  marker: Uint8Array | undefined
  root: Uint8Array | undefined
}

const readers = new WeakMap<Database, FlatReader>()

/** The flat reader of `db`. */
export function flatReaderOf(db: Database): FlatReader {
  let reader = readers.get(db)
  if (!reader) {
    reader = new FlatReader(db)
    readers.set(db, reader)
  }
  return reader
}
