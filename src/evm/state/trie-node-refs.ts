/**
 * What a stored state trie node refers to: the one reader of node references, for the pruner's
 * reference counts (state-pruner.ts) and for the snapshot export and import (snapshots/).
 *
 * A branch (17 items) refers to its children, an extension (2 items, path flag 0/1) to its child, a
 * leaf (flag 2/3) to nothing, except an account leaf: its value is the RLP list
 * [nonce, balance, storageRoot, codeHash], which refers to the account's storage trie and its code.
 * A storage leaf's value is the RLP of a byte string, never a list, so the two are told apart by shape
 * alone. A child under 32 bytes is embedded in its parent (not stored on its own): its references are
 * its parent's. Code refers to nothing. Keys are hashed, all of one length, so a branch never holds a
 * value.
 */
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_NULL, KECCAK256_RLP, type NestedUint8Array } from '@ethereumjs/util'
import { equalBytes } from '../../primitives/hex.js'

/** What a reference names: a child node of the same trie, the root of an account's storage trie, or code. */
export const TrieRef = { Child: 0, StorageRoot: 1, Code: 2 } as const
export type TrieRef = (typeof TrieRef)[keyof typeof TrieRef]

/** A branch node: 16 children and a value. */
const BRANCH_ITEMS = 17
/** The hex-prefix flag of a leaf (its path's first nibble has bit 2 set). */
const LEAF_FLAG = 0x20
/** The key prefix ethereumjs gives code in the trie database ("c"), hex. */
const CODE_KEY_PREFIX = '63'

/**
 * Calls `visit` for each reference of the stored trie node `node` (a keccak256 each), duplicates
 * included (each is a reference); throws on a malformed node.
 */
export function visitTrieNodeRefs(node: Uint8Array, visit: (ref: TrieRef, hash: Uint8Array) => void): void {
  const decoded = RLP.decode(node)
  if (!Array.isArray(decoded)) throw new Error('trie node is not a list')
  visitNode(decoded, visit)
}

/**
 * The pruner's form: the keys of the trie database (trie-db.ts: a node's hash in hex, `63 ‖ code hash`
 * for code) that the value stored under `key` references.
 */
export function referencedKeys(key: string, value: Uint8Array): string[] {
  const out: string[] = []
  if (key.length !== 64) return out
  visitTrieNodeRefs(value, (ref, hash) => out.push(ref === TrieRef.Code ? codeKey(hex(hash)) : hex(hash)))
  return out
}

/** The trie database key of contract code with hash `codeHashHex`. */
function codeKey(codeHashHex: string): string {
  return CODE_KEY_PREFIX + codeHashHex
}

function visitNode(node: NestedUint8Array, visit: (ref: TrieRef, hash: Uint8Array) => void): void {
  if (node.length === BRANCH_ITEMS) {
    for (let i = 0; i < 16; i++) visitChild(node[i]!, visit)
    return
  }
  const [path, rest] = node
  if (node.length !== 2 || !(path instanceof Uint8Array) || path.length === 0) throw new Error('malformed trie node')
  if ((path[0]! & LEAF_FLAG) === 0) return visitChild(rest!, visit)
  if (!(rest instanceof Uint8Array)) throw new Error('malformed trie leaf')
  const value = RLP.decode(rest)
  if (Array.isArray(value)) visitAccount(value, visit)
}

function visitChild(child: Uint8Array | NestedUint8Array, visit: (ref: TrieRef, hash: Uint8Array) => void): void {
  if (!(child instanceof Uint8Array)) return visitNode(child, visit)
  if (child.length === 32) visit(TrieRef.Child, child)
  else if (child.length !== 0) throw new Error('malformed trie node reference')
}

/** An account leaf's value `[nonce, balance, storageRoot, codeHash]`: its storage trie and code. */
function visitAccount(account: NestedUint8Array, visit: (ref: TrieRef, hash: Uint8Array) => void): void {
  const [, , storageRoot, codeHash] = account
  if (account.length !== 4 || !isHash(storageRoot) || !isHash(codeHash)) throw new Error('malformed account')
  if (!equalBytes(storageRoot, KECCAK256_RLP)) visit(TrieRef.StorageRoot, storageRoot)
  if (!equalBytes(codeHash, KECCAK256_NULL)) visit(TrieRef.Code, codeHash)
}

function isHash(item: Uint8Array | NestedUint8Array | undefined): item is Uint8Array {
  return item instanceof Uint8Array && item.length === 32
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}
