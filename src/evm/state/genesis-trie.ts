/**
 * The genesis state built bottom-up from sorted keys (the idea of geth's StackTrie): every trie node is
 * encoded once, in its final form, and written to LevelDB in bounded batches while the build goes on,
 * instead of inserting account by account into a trie that stages every intermediate node in memory.
 *
 * Trie nodes (and contract code) are content-addressed, so writing them before the first Commit is
 * safe: a crash leaves unreferenced nodes, never a wrong state; the head, parameters and genesis block
 * stay in the atomic first Commit. The root is the one an insert-by-insert build gives (same keys,
 * same values, same node encoding). The flat state's records of the genesis (flat-keys.ts) are written
 * with the nodes; its marker is staged with the genesis block (flat-state.ts).
 */
import { RLP } from '@ethereumjs/rlp'
import { concatBytes, createAccount, KECCAK256_RLP, KECCAK256_NULL } from '@ethereumjs/util'
import { keccak256 } from '../../crypto/index.js'
import type { Database } from '../../db/database.js'
import type { BatchOp } from '../../db/write-stage.js'
import { Prefix } from '../../db/prefixes.js'
import { latin1 } from '../../primitives/hex.js'
import type { GenesisAccount } from '../genesis.js'
import { dataKey, slotDataKey } from './flat-keys.js'

/** Trie-node writes gathered before one LevelDB batch. */
const BATCH_OPS = 10_000
/** Leaves under which a subtree is built in one go (its nodes join the batch at once). */
const SYNC_LEAVES = 2_000
/** The key prefix ethereumjs gives code in the trie database ("c"). */
const CODE_PREFIX = 0x63

type NodeRef = Uint8Array | NestedNode
type NestedNode = (Uint8Array | NestedNode)[]

/** Writes nodes to the database in batches of BATCH_OPS. */
class NodeWriter {
  private ops: BatchOp[] = []

  constructor(private readonly db: Database) {}

  put(hashKey: Uint8Array, value: Uint8Array): void {
    const key = new Uint8Array(1 + hashKey.length)
    key[0] = Prefix.trie
    key.set(hashKey, 1)
    this.ops.push({ type: 'put', key, value })
  }

  /** A flat state record (flat-keys.ts). */
  putFlat(key: Uint8Array, value: Uint8Array): void {
    this.ops.push({ type: 'put', key, value })
  }

  get full(): boolean {
    return this.ops.length >= BATCH_OPS
  }

  async flush(): Promise<void> {
    if (this.ops.length === 0) return
    const ops = this.ops
    this.ops = []
    await this.db.batch(ops)
  }
}

/** A trie entry: its hashed key (a latin1 string: compact, natively compared) and its RLP value. */
interface Leaf {
  key: string
  value: Uint8Array
}

/** Sorted leaves with distinct keys. */
type Leaves = Leaf[]

/** A leaf of raw key `key`. */
function leafOf(key: Uint8Array, value: Uint8Array): Leaf {
  return { key: latin1(keccak256(key)), value }
}

/** Nibble `d` of a latin1 key. */
function nibble(key: string, d: number): number {
  return (key.charCodeAt(d >> 1) >> (d & 1 ? 0 : 4)) & 0x0f
}

/** Hex-prefix encoding of nibbles [from, to) of a key (leaf or extension path). */
function hexPrefix(key: string, from: number, to: number, leaf: boolean): Uint8Array {
  const odd = (to - from) % 2
  const out = new Uint8Array(1 + ((to - from) >> 1))
  out[0] = ((leaf ? 2 : 0) + odd) << 4
  let d = from
  if (odd) out[0]! |= nibble(key, d++)
  for (let i = 1; d < to; i++, d += 2) out[i] = (nibble(key, d) << 4) | nibble(key, d + 1)
  return out
}

/** A node's reference in its parent: the node itself when its encoding is under 32 bytes, else its hash (written). */
function reference(node: NestedNode, writer: NodeWriter): NodeRef {
  const encoded = RLP.encode(node)
  if (encoded.length < 32) return node
  const hash = keccak256(encoded)
  writer.put(hash, encoded)
  return hash
}

/** The number of nibbles leaves [from, to) (sorted) share, from `depth` on. */
function sharedTo(leaves: Leaves, from: number, to: number, depth: number): number {
  const first = leaves[from]!.key
  const last = leaves[to - 1]!.key
  let d = depth
  while (nibble(first, d) === nibble(last, d)) d++
  return d
}

/** The ranges of leaves [from, to) by their nibble at `depth`: [nibble, from, to] each. */
function* children(leaves: Leaves, from: number, to: number, depth: number): Generator<[number, number, number]> {
  let start = from
  while (start < to) {
    const n = nibble(leaves[start]!.key, depth)
    let end = start + 1
    while (end < to && nibble(leaves[end]!.key, depth) === n) end++
    yield [n, start, end]
    start = end
  }
}

function leaf(leaves: Leaves, i: number, depth: number): NestedNode {
  const { key, value } = leaves[i]!
  return [hexPrefix(key, depth, key.length * 2, true), value]
}

function emptyBranch(): NestedNode {
  return new Array<Uint8Array>(17).fill(new Uint8Array())
}

/** The node over leaves [from, to), all sharing their first `depth` nibbles (keys have one length: no branch values). */
function build(leaves: Leaves, from: number, to: number, depth: number, writer: NodeWriter): NestedNode {
  if (to - from === 1) return leaf(leaves, from, depth)
  const shared = sharedTo(leaves, from, to, depth)
  if (shared > depth) {
    return [hexPrefix(leaves[from]!.key, depth, shared, false), reference(build(leaves, from, to, shared, writer), writer)]
  }
  const branch = emptyBranch()
  for (const [n, start, end] of children(leaves, from, to, depth))
    branch[n] = reference(build(leaves, start, end, depth + 1, writer), writer)
  return branch
}

/** `build` for a large range: writes the full batches between its subtrees, so a big trie never sits in memory. */
async function buildLarge(leaves: Leaves, from: number, to: number, depth: number, writer: NodeWriter): Promise<NestedNode> {
  if (to - from <= SYNC_LEAVES) return build(leaves, from, to, depth, writer)
  if (writer.full) await writer.flush()
  const shared = sharedTo(leaves, from, to, depth)
  if (shared > depth) {
    return [hexPrefix(leaves[from]!.key, depth, shared, false), reference(await buildLarge(leaves, from, to, shared, writer), writer)]
  }
  const branch = emptyBranch()
  for (const [n, start, end] of children(leaves, from, to, depth)) {
    branch[n] = reference(await buildLarge(leaves, start, end, depth + 1, writer), writer)
  }
  return branch
}

/** Builds the trie of `leaves` (sorted here, in place; a later leaf of one key wins), writes its nodes and returns its root. */
async function buildTrie(leaves: Leaf[], writer: NodeWriter): Promise<Uint8Array> {
  if (leaves.length === 0) return KECCAK256_RLP
  // A stable sort: leaves of one key stay in their order, the last is kept.
  leaves.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
  let kept = 0
  for (let i = 0; i < leaves.length; i++) {
    if (leaves[i + 1]?.key !== leaves[i]!.key) leaves[kept++] = leaves[i]!
  }
  leaves.length = kept
  const encoded = RLP.encode(await buildLarge(leaves, 0, kept, 0, writer))
  const root = keccak256(encoded)
  writer.put(root, encoded)
  if (writer.full) await writer.flush()
  return root
}

/**
 * Writes the genesis accounts' state (accounts, code, storage tries) to `db` and returns its root.
 * Storage values are the genesis' (no leading zeros); an empty value is no slot, as a zero store is.
 */
export async function writeGenesisState(db: Database, accounts: readonly GenesisAccount[]): Promise<Uint8Array> {
  const writer = new NodeWriter(db)
  const leaves: Leaf[] = []
  // An address listed twice: the last entry is the account, in the trie (buildTrie) and in the flat records.
  const last = new Map<string, GenesisAccount>()
  for (const a of accounts) last.set(latin1(a.address), a)
  for (const a of accounts) {
    const slots: Leaf[] = []
    for (const [slot, value] of a.storage) if (value.length > 0) slots.push(leafOf(slot, RLP.encode(value)))
    const storageRoot = await buildTrie(slots, writer)
    let codeHash = KECCAK256_NULL
    if (a.code && a.code.length > 0) {
      codeHash = keccak256(a.code)
      writer.put(concatBytes(Uint8Array.of(CODE_PREFIX), codeHash), a.code)
    }
    const leaf = leafOf(a.address, createAccount({ nonce: a.nonce, balance: a.balance, storageRoot, codeHash }).serialize())
    leaves.push(leaf)
    if (last.get(latin1(a.address)) === a) {
      const addressHash = Buffer.from(leaf.key, 'latin1')
      writer.putFlat(dataKey(addressHash), leaf.value)
      for (const slot of slots) writer.putFlat(slotDataKey(addressHash, Buffer.from(slot.key, 'latin1')), slot.value)
    }
    if (writer.full) await writer.flush()
  }
  const root = await buildTrie(leaves, writer)
  await writer.flush()
  return root
}
