/**
 * A set of key changes applied to a Merkle-Patricia trie in one walk from the root: each node on the
 * changed paths is read once, and each new node is encoded, hashed and written once, in its final form.
 * ethereumjs' `put`/`del` walk from the root for every key (its general path walker) and write every
 * node of the path again for every key, so a block that pays a few hundred new holders of a token
 * rewrote the upper levels of the token's storage trie a few hundred times. The root is the same: a
 * trie's shape and encoding depend only on its keys and values (Yellow Paper appendix D), and nodes
 * follow ethereumjs' rules (a child whose encoding is shorter than 32 bytes is embedded, the root is
 * always hashed and written).
 */
import { RLP } from '@ethereumjs/rlp'
import { keccak256 } from '../../crypto/index.js'
import { compareBytes, latin1 } from '../../primitives/hex.js'
import { toNibbles } from '../store/ordered-trie.js'

/** A node as RLP decodes it: 17 items for a branch, 2 for a leaf or an extension. */
export type RawNode = (Uint8Array | RawNode)[]

/** A reference to a child: its hash, the child itself when embedded, or null for none. */
type Ref = Uint8Array | RawNode | null

/** A node being rebuilt: its children are references to unchanged nodes or new nodes. */
type Node = Leaf | Extension | Branch
type Child = Ref | Node
interface Leaf {
  kind: 'leaf'
  path: Uint8Array
  value: Uint8Array
}
interface Extension {
  kind: 'extension'
  path: Uint8Array
  child: Child
}
interface Branch {
  kind: 'branch'
  children: Child[]
  value: Uint8Array | null
}

/** One key to set (value) or delete (null), the key as the trie applies it (hashed). */
export interface TrieChange {
  key: Uint8Array
  value: Uint8Array | null
  /**
   * The value the key is thought to hold before (a hint, right or wrong): a child whose hash is the
   * hash of the key's leaf with that value is that leaf, and is not read.
   */
  previous?: Uint8Array
}

/** Where the update reads existing nodes and writes new ones (by hash). */
export interface TrieNodeIo {
  read(hash: Uint8Array): Promise<RawNode>
  write(hash: Uint8Array, encoded: Uint8Array): void
  /** A node at hand without waiting (cached), if any. */
  peek?(hash: Uint8Array): RawNode | undefined
  /** Brings the nodes of `hashes` at hand, all in one read. */
  preload?(hashes: Uint8Array[]): Promise<void>
}

interface Change {
  nibbles: Uint8Array
  value: Uint8Array | null
  previous: Uint8Array | undefined
}

const EMPTY = new Uint8Array(0)
/** Bytes of a node hash; a node encoded in fewer bytes is embedded in its parent instead. */
const HASH_BYTES = 32
/** For encoding a leaf, which has no children to write. */
const NO_WRITES: TrieNodeIo = {
  read: () => Promise.reject(new Error('not readable')),
  write: () => {},
}
/** The hex-prefix flag of a leaf (Yellow Paper appendix C); an odd path adds 1. */
const LEAF_FLAG = 2
/** A subtree the changes left as it was. */
const UNCHANGED = Symbol('unchanged')
type Result = Node | null | typeof UNCHANGED

/**
 * The root after applying `changes` to the trie at `root` (`emptyRoot` for none). A key given twice
 * takes its last value. New nodes are handed to `io.write`, children first and the root last.
 */
export async function updateTrie(
  root: Uint8Array,
  emptyRoot: Uint8Array,
  changes: readonly TrieChange[],
  io: TrieNodeIo,
): Promise<Uint8Array> {
  const sorted = sortChanges(changes)
  if (sorted.length === 0) return root
  const start: Ref = compareBytes(root, emptyRoot) === 0 ? null : root
  if (start !== null) await preloadPaths(start, sorted, io)
  const result = await update(start, 0, sorted, io)
  if (result === UNCHANGED) return root
  if (result === null) return emptyRoot
  const encoded = RLP.encode(encodeNode(result, io) as never)
  const hash = keccak256(encoded)
  io.write(hash, encoded)
  return hash
}

/** A key's path being followed down from the root. */
interface PathWalk {
  change: Change
  node: Uint8Array | RawNode
  at: number
}

/**
 * Brings at hand the nodes the update will read, a level at a time: every path goes down through the
 * nodes at hand, and the nodes they stop at are read together (`io.preload`), then they go on. On a big
 * state most of a path's lower nodes are on disk, and one read a level for all the keys of a block
 * leaves the main thread free meanwhile, where the update alone reads them one after the other.
 */
async function preloadPaths(root: Uint8Array, changes: Change[], io: TrieNodeIo): Promise<void> {
  if (io.peek === undefined || io.preload === undefined) return
  const asked = new Set<string>()
  let walks: PathWalk[] = changes.map((change) => ({ change, node: root, at: 0 }))
  while (walks.length > 0) {
    const wanted = new Map<string, Uint8Array>()
    const waiting: PathWalk[] = []
    for (const walk of walks) {
      const hash = followPath(walk, io)
      if (hash === undefined) continue
      const id = latin1(hash)
      // A node asked for once and still not at hand (not stored, or no cache): the update reads it.
      if (asked.has(id)) continue
      wanted.set(id, hash)
      waiting.push(walk)
    }
    if (wanted.size === 0) return
    for (const id of wanted.keys()) asked.add(id)
    await io.preload([...wanted.values()])
    walks = waiting
  }
}

/** Follows `walk` through the nodes at hand: the hash of the first node not at hand, or undefined where the path ends. */
function followPath(walk: PathWalk, io: TrieNodeIo): Uint8Array | undefined {
  const { nibbles } = walk.change
  for (;;) {
    let node: RawNode | undefined
    if (walk.node instanceof Uint8Array) {
      if (knownLeaf(walk.node, walk.at, walk.change) !== undefined) return undefined
      node = io.peek!(walk.node)
      if (node === undefined) return walk.node
    } else node = walk.node
    let next: Uint8Array | RawNode
    if (node.length === 17) {
      if (walk.at >= nibbles.length) return undefined
      next = node[nibbles[walk.at]!]!
      walk.at++
    } else {
      const decoded = decodeNode(node)
      if (decoded.kind !== 'extension' || !matches(nibbles, decoded.path, walk.at)) return undefined
      walk.at += decoded.path.length
      next = node[1]!
    }
    if (next instanceof Uint8Array && next.length === 0) return undefined
    walk.node = next
  }
}

/** The changes by key, one a key (the last given). */
function sortChanges(changes: readonly TrieChange[]): Change[] {
  const indexed = changes.map((c, i) => ({ c, i }))
  indexed.sort((a, b) => compareBytes(a.c.key, b.c.key) || a.i - b.i)
  const out: Change[] = []
  for (let i = 0; i < indexed.length; i++) {
    const { c } = indexed[i]!
    const next = indexed[i + 1]
    if (next !== undefined && compareBytes(next.c.key, c.key) === 0) continue
    out.push({ nibbles: toNibbles(c.key), value: c.value !== null && c.value.length > 0 ? c.value : null, previous: c.previous })
  }
  return out
}

/** The subtree at `child` (below `depth` nibbles of path) with `changes` applied; all share that path. */
async function update(child: Child, depth: number, changes: Change[], io: TrieNodeIo): Promise<Result> {
  if (child === null) {
    const puts = changes.filter((c) => c.value !== null)
    return puts.length === 0 ? UNCHANGED : buildFrom(puts, depth)
  }
  const node = (changes.length === 1 && knownLeaf(child, depth, changes[0]!)) || (await resolve(child, io))
  if (node.kind === 'leaf') return updateLeaf(node, depth, changes)
  if (node.kind === 'extension') return updateExtension(node, depth, changes, io)
  return updateBranch(node, depth, changes, io)
}

/** A new subtree of the keys `puts` set. */
function buildFrom(puts: Change[], depth: number): Node {
  const first = puts[0]!
  if (puts.length === 1) return { kind: 'leaf', path: first.nibbles.subarray(depth), value: first.value! }
  const last = puts[puts.length - 1]!
  const common = commonLength(first.nibbles, last.nibbles, depth)
  if (common > 0)
    return { kind: 'extension', path: first.nibbles.subarray(depth, depth + common), child: buildBranch(puts, depth + common) }
  return buildBranch(puts, depth)
}

function buildBranch(puts: Change[], depth: number): Branch {
  const children: Child[] = new Array<Child>(16).fill(null)
  let value: Uint8Array | null = null
  let i = 0
  if (puts[0]!.nibbles.length === depth) value = puts[i++]!.value
  while (i < puts.length) {
    const nibble = puts[i]!.nibbles[depth]!
    let j = i + 1
    while (j < puts.length && puts[j]!.nibbles[depth] === nibble) j++
    children[nibble] = buildFrom(puts.slice(i, j), depth + 1)
    i = j
  }
  return { kind: 'branch', children, value }
}

/** A leaf with the changes below its parent: rebuilt from the changes plus the leaf unless one replaces it. */
function updateLeaf(leaf: Leaf, depth: number, changes: Change[]): Result {
  let replaced = false
  let at = changes.length
  for (let i = 0; i < changes.length; i++) {
    const order = compareBytes(leaf.path, changes[i]!.nibbles.subarray(depth))
    if (order === 0) replaced = true
    if (order <= 0) {
      at = i
      break
    }
  }
  if (!replaced && changes.every((c) => c.value === null)) return UNCHANGED
  const merged = changes.slice()
  if (!replaced) {
    const nibbles = new Uint8Array(depth + leaf.path.length)
    nibbles.set(changes[0]!.nibbles.subarray(0, depth))
    nibbles.set(leaf.path, depth)
    merged.splice(at, 0, { nibbles, value: leaf.value, previous: undefined })
  }
  const puts = merged.filter((c) => c.value !== null)
  return puts.length === 0 ? null : buildFrom(puts, depth)
}

async function updateExtension(ext: Extension, depth: number, changes: Change[], io: TrieNodeIo): Promise<Result> {
  const end = depth + ext.path.length
  const first = changes[0]!.nibbles
  const last = changes[changes.length - 1]!.nibbles
  const inside = matches(first, ext.path, depth) && matches(last, ext.path, depth)
  if (inside) {
    const child = await update(ext.child, end, changes, io)
    if (child === UNCHANGED || child === null) return child
    return join(ext.path, child)
  }
  // Some keys leave the extension's path: it reads as a branch over its first nibble.
  const children: Child[] = new Array<Child>(16).fill(null)
  children[ext.path[0]!] = ext.path.length === 1 ? ext.child : { kind: 'extension', path: ext.path.subarray(1), child: ext.child }
  return updateBranch({ kind: 'branch', children, value: null }, depth, changes, io)
}

async function updateBranch(branch: Branch, depth: number, changes: Change[], io: TrieNodeIo): Promise<Result> {
  const children = branch.children.slice()
  let value = branch.value
  let changed = false
  let i = 0
  if (changes[0]!.nibbles.length === depth) {
    const next = changes[i++]!.value
    changed = next !== value
    value = next
  }
  while (i < changes.length) {
    const nibble = changes[i]!.nibbles[depth]!
    let j = i + 1
    while (j < changes.length && changes[j]!.nibbles[depth] === nibble) j++
    const result = await update(children[nibble]!, depth + 1, changes.slice(i, j), io)
    if (result !== UNCHANGED) {
      children[nibble] = result
      changed = true
    }
    i = j
  }
  if (!changed) return UNCHANGED
  let only = -1
  let count = 0
  for (let n = 0; n < 16; n++) {
    if (children[n] === null) continue
    count++
    only = n
  }
  if (count === 0) return value === null ? null : { kind: 'leaf', path: EMPTY, value }
  if (count > 1 || value !== null) return { kind: 'branch', children, value }
  // One child left and no value: the branch gives way to its child, one nibble longer.
  return join(Uint8Array.of(only), await resolve(children[only]!, io))
}

/** `node` under a path of `prefix` more nibbles. */
function join(prefix: Uint8Array, node: Node): Node {
  if (node.kind === 'branch') return { kind: 'extension', path: prefix, child: node }
  const path = new Uint8Array(prefix.length + node.path.length)
  path.set(prefix)
  path.set(node.path, prefix.length)
  return node.kind === 'leaf' ? { kind: 'leaf', path, value: node.value } : { kind: 'extension', path, child: node.child }
}

/** Nibbles `key` and `other` share from `depth`. */
function commonLength(key: Uint8Array, other: Uint8Array, depth: number): number {
  const max = Math.min(key.length, other.length) - depth
  let n = 0
  while (n < max && key[depth + n] === other[depth + n]) n++
  return n
}

function matches(key: Uint8Array, path: Uint8Array, depth: number): boolean {
  if (key.length - depth < path.length) return false
  for (let i = 0; i < path.length; i++) if (key[depth + i] !== path[i]) return false
  return true
}

/**
 * The leaf of `change`'s key below `depth` when `child` is the hash of that leaf holding the key's
 * previous value (keccak256 tells: no other node has that hash), else undefined.
 */
function knownLeaf(child: Child, depth: number, change: Change): Leaf | undefined {
  if (change.previous === undefined || !(child instanceof Uint8Array) || child.length !== HASH_BYTES) return undefined
  const leaf: Leaf = { kind: 'leaf', path: change.nibbles.subarray(depth), value: change.previous }
  const encoded = RLP.encode(encodeNode(leaf, NO_WRITES) as never)
  return encoded.length >= HASH_BYTES && compareBytes(keccak256(encoded), child) === 0 ? leaf : undefined
}

async function resolve(child: Exclude<Child, null>, io: TrieNodeIo): Promise<Node> {
  if (child instanceof Uint8Array) return decodeNode(await io.read(child))
  if (Array.isArray(child)) return decodeNode(child)
  return child
}

function decodeNode(raw: RawNode): Node {
  if (raw.length === 17) {
    const children = raw.slice(0, 16).map((c) => (c instanceof Uint8Array && c.length === 0 ? null : c))
    const value = raw[16] as Uint8Array
    return { kind: 'branch', children, value: value.length === 0 ? null : value }
  }
  if (raw.length !== 2) throw new Error(`invalid trie node of ${raw.length} items`)
  const prefixed = toNibbles(raw[0] as Uint8Array)
  const flag = prefixed[0]!
  const path = prefixed.subarray(flag & 1 ? 1 : 2)
  if (flag & LEAF_FLAG) return { kind: 'leaf', path, value: raw[1] as Uint8Array }
  return { kind: 'extension', path, child: raw[1]! }
}

/** A node as RLP items, its new children written (hashed) or embedded. */
function encodeNode(node: Node, io: TrieNodeIo): RawNode {
  if (node.kind === 'leaf') return [hexPrefix(node.path, true), node.value]
  if (node.kind === 'extension') return [hexPrefix(node.path, false), reference(node.child, io)]
  const items: RawNode = node.children.map((c) => reference(c, io) ?? EMPTY)
  items.push(node.value ?? EMPTY)
  return items
}

/** A child's reference: as it was, or for a new node its hash (written) or itself when under 32 bytes. */
function reference(child: Child, io: TrieNodeIo): Uint8Array | RawNode {
  if (child === null) return EMPTY
  if (child instanceof Uint8Array || Array.isArray(child)) return child
  const raw = encodeNode(child, io)
  const encoded = RLP.encode(raw as never)
  if (encoded.length < HASH_BYTES) return raw
  const hash = keccak256(encoded)
  io.write(hash, encoded)
  return hash
}

/** Hex-prefix encoding of a nibble path (Yellow Paper appendix C). */
function hexPrefix(path: Uint8Array, leaf: boolean): Uint8Array {
  const odd = path.length % 2
  const out = new Uint8Array((path.length >> 1) + 1)
  out[0] = ((leaf ? LEAF_FLAG : 0) + odd) << 4
  let i = 0
  if (odd) out[0]! |= path[i++]!
  for (let o = 1; i < path.length; i += 2, o++) out[o] = (path[i]! << 4) | path[i + 1]!
  return out
}
