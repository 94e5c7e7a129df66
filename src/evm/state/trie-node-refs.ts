/**
 * What a stored value of the state references, for the pruner's reference counts (state-pruner.ts).
 * Keys are the trie adapter's (trie-db.ts): unprefixed hex, a node's 32-byte hash, or `63 ‖ code hash`
 * for contract code ('c' ‖ hash, ethereumjs' code key).
 *
 * A branch (17 items) references its children, an extension (2 items, even/odd path flag 0/1) its
 * child, a leaf (flag 2/3) nothing, except an account leaf: its value is the RLP list
 * [nonce, balance, storageRoot, codeHash], which references the account's storage trie and its code.
 * A storage leaf's value is the RLP of a byte string, never a list, so the two cannot be confused.
 * A child under 32 bytes is embedded in its parent (not stored on its own): its references are its
 * parent's. Code references nothing.
 */
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'

type Item = Uint8Array | Item[]

/** The key of contract code with hash `codeHash` (hex). */
export function codeKey(codeHashHex: string): string {
  return `63${codeHashHex}`
}

const EMPTY_TRIE_ROOT = Buffer.from(KECCAK256_RLP).toString('hex')
const EMPTY_CODE = Buffer.from(KECCAK256_NULL).toString('hex')

/** The stored keys the value stored under `key` references (duplicates kept: each is a reference). */
export function referencedKeys(key: string, value: Uint8Array): string[] {
  const out: string[] = []
  if (key.length === 64) collectNode(RLP.decode(value) as Item, out)
  return out
}

function collectNode(node: Item, out: string[]): void {
  if (!Array.isArray(node)) return
  if (node.length === 17) {
    for (let i = 0; i < 16; i++) collectChild(node[i]!, out)
  } else if (node.length === 2) {
    const path = node[0]
    const isLeaf = path instanceof Uint8Array && path.length > 0 && path[0]! >> 4 >= 2
    if (isLeaf) collectAccount(node[1]!, out)
    else collectChild(node[1]!, out)
  }
}

function collectChild(child: Item, out: string[]): void {
  if (Array.isArray(child)) collectNode(child, out)
  else if (child.length === 32) out.push(hex(child))
}

function collectAccount(value: Item, out: string[]): void {
  if (Array.isArray(value)) return
  let decoded: Item
  try {
    decoded = RLP.decode(value) as Item
  } catch {
    return
  }
  if (!Array.isArray(decoded) || decoded.length !== 4) return
  const [, , storageRoot, codeHash] = decoded
  if (storageRoot instanceof Uint8Array && storageRoot.length === 32) {
    const root = hex(storageRoot)
    if (root !== EMPTY_TRIE_ROOT) out.push(root)
  }
  if (codeHash instanceof Uint8Array && codeHash.length === 32) {
    const code = hex(codeHash)
    if (code !== EMPTY_CODE) out.push(codeKey(code))
  }
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}
