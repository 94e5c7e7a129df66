/**
 * What a state entry refers to, and where it is stored. The state is a Merkle-Patricia trie of
 * accounts whose leaves name a storage trie (its root) and code (its hash); a node names its children
 * by keccak256 (or holds a child under 32 bytes inline). Walking these references from a state root
 * reaches every node and code of that state, and nothing else: the export walks them to write a
 * snapshot, the import checks each entry it receives was referred to.
 *
 * Keys as the application's trie database stores them (state/trie-db.ts): `trie ‖ hash` for nodes,
 * `trie ‖ "c" ‖ hash` for code (ethereumjs's code prefix).
 */
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_NULL, KECCAK256_RLP, type NestedUint8Array } from '@ethereumjs/util'
import { Prefix } from '../../db/prefixes.js'
import { equalBytes, latin1 } from '../../primitives/hex.js'
import { EntryKind } from './snapshot-format.js'

/** The key prefix ethereumjs gives code in the trie database ("c"). */
const CODE_PREFIX = 0x63
/** A branch node: 16 children and a value. */
const BRANCH_ITEMS = 17
/** The hex-prefix flag of a leaf (its path's first nibble has bit 2 set). */
const LEAF_FLAG = 0x20

/** A reference to a state entry: its keccak256 and kind. */
export interface StateRef {
  hash: Uint8Array
  kind: EntryKind
}

/** A map key for a reference (kind and hash). */
export function refId(kind: EntryKind, hash: Uint8Array): string {
  return String(kind) + latin1(hash)
}

/** The database key of an entry. */
export function entryKey(kind: EntryKind, hash: Uint8Array): Uint8Array {
  const code = kind === EntryKind.Code
  const key = new Uint8Array((code ? 2 : 1) + hash.length)
  key[0] = Prefix.trie
  if (code) key[1] = CODE_PREFIX
  key.set(hash, code ? 2 : 1)
  return key
}

/** Adds to `out` the entries the entry `bytes` of `kind` refers to (none for code); throws on a malformed node. */
export function collectRefs(kind: EntryKind, bytes: Uint8Array, out: StateRef[]): void {
  if (kind === EntryKind.Code) return
  const node = RLP.decode(bytes)
  if (!Array.isArray(node)) throw new Error('trie node is not a list')
  visitNode(node, kind, out)
}

function visitNode(node: NestedUint8Array, kind: EntryKind, out: StateRef[]): void {
  if (node.length === BRANCH_ITEMS) {
    // Keys are hashed, all of one length: a branch never holds a value, only children.
    for (let i = 0; i < 16; i++) visitChild(node[i]!, kind, out)
    return
  }
  const [path, rest] = node
  if (node.length !== 2 || !(path instanceof Uint8Array) || path.length === 0) throw new Error('malformed trie node')
  if ((path[0]! & LEAF_FLAG) === 0) return visitChild(rest!, kind, out)
  if (kind !== EntryKind.AccountNode) return
  if (!(rest instanceof Uint8Array)) throw new Error('malformed account leaf')
  visitAccount(rest, out)
}

function visitChild(child: Uint8Array | NestedUint8Array, kind: EntryKind, out: StateRef[]): void {
  if (!(child instanceof Uint8Array)) return visitNode(child, kind, out)
  if (child.length === 32) out.push({ hash: child, kind })
  else if (child.length !== 0) throw new Error('malformed trie node reference')
}

/** An account leaf's value, RLP `[nonce, balance, storageRoot, codeHash]`: its storage trie and code. */
function visitAccount(value: Uint8Array, out: StateRef[]): void {
  const account = RLP.decode(value)
  if (!Array.isArray(account) || account.length !== 4) throw new Error('malformed account')
  const [, , storageRoot, codeHash] = account
  if (!(storageRoot instanceof Uint8Array) || !(codeHash instanceof Uint8Array)) throw new Error('malformed account')
  if (!equalBytes(storageRoot, KECCAK256_RLP)) out.push({ hash: storageRoot, kind: EntryKind.StorageNode })
  if (!equalBytes(codeHash, KECCAK256_NULL)) out.push({ hash: codeHash, kind: EntryKind.Code })
}
