/**
 * The genesis state built bottom-up from sorted keys (the idea of geth's StackTrie): every trie node is
 * encoded once, in its final form, and written to LevelDB in bounded batches while the build goes on,
 * instead of inserting account by account into a trie that stages every intermediate node in memory.
 *
 * Trie nodes (and contract code) are content-addressed, so writing them before the first Commit is
 * safe: a crash leaves unreferenced nodes, never a wrong state; the head, parameters and genesis block
 * stay in the atomic first Commit. The root is the one an insert-by-insert build gives (same keys,
 * same values, same node encoding).
 */
import { RLP } from '@ethereumjs/rlp'
import { concatBytes, createAccount, KECCAK256_RLP, KECCAK256_NULL } from '@ethereumjs/util'
import { keccak256 } from '../../crypto/index.js'
import type { Database } from '../../db/database.js'
import type { BatchOp } from '../../db/write-stage.js'
import { Prefix } from '../../db/prefixes.js'
import type { GenesisAccount } from '../genesis.js'

/** Trie-node writes gathered before one LevelDB batch. */
const BATCH_OPS = 10_000
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

/** A sorted trie input: hashed keys as nibbles, and their values (RLP of the leaf value). */
interface Leaves {
  keys: Uint8Array[]
  values: Uint8Array[]
}

/** The nibbles of a 32-byte key. */
function nibbles(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2)
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i]! >> 4
    out[2 * i + 1] = key[i]! & 0x0f
  }
  return out
}

/** Hex-prefix encoding of a nibble path (leaf or extension). */
function hexPrefix(path: Uint8Array, leaf: boolean): Uint8Array {
  const odd = path.length % 2
  const out = new Uint8Array(1 + (path.length >> 1))
  out[0] = ((leaf ? 2 : 0) + odd) << 4
  let p = 0
  if (odd) out[0]! |= path[p++]!
  for (let i = 1; p < path.length; i++, p += 2) out[i] = (path[p]! << 4) | path[p + 1]!
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

/** The node over leaves [from, to), all sharing their first `depth` nibbles; writes full batches as it goes. */
async function build(leaves: Leaves, from: number, to: number, depth: number, writer: NodeWriter): Promise<NestedNode> {
  if (writer.full) await writer.flush()
  const first = leaves.keys[from]!
  if (to - from === 1) return [hexPrefix(first.subarray(depth), true), leaves.values[from]!]
  const last = leaves.keys[to - 1]!
  let common = depth
  while (first[common] === last[common]) common++
  if (common > depth) {
    return [hexPrefix(first.subarray(depth, common), false), reference(await build(leaves, from, to, common, writer), writer)]
  }
  const branch: NestedNode = new Array(17).fill(new Uint8Array())
  let start = from
  while (start < to) {
    const nibble = leaves.keys[start]![depth]!
    let end = start + 1
    while (end < to && leaves.keys[end]![depth] === nibble) end++
    branch[nibble] = reference(await build(leaves, start, end, depth + 1, writer), writer)
    start = end
  }
  return branch
}

/** Builds the trie of `entries` (raw keys, hashed here; RLP values), writes its nodes and returns its root. */
async function buildTrie(entries: [Uint8Array, Uint8Array][], writer: NodeWriter): Promise<Uint8Array> {
  if (entries.length === 0) return KECCAK256_RLP
  const hashed = entries.map(([k, v], i) => ({ key: keccak256(k), value: v, i }))
  // Later entries of the same key win, as they would by inserting in order.
  hashed.sort((a, b) => Buffer.compare(a.key, b.key) || a.i - b.i)
  const leaves: Leaves = { keys: [], values: [] }
  for (let i = 0; i < hashed.length; i++) {
    const next = hashed[i + 1]
    if (next && Buffer.compare(next.key, hashed[i]!.key) === 0) continue
    leaves.keys.push(nibbles(hashed[i]!.key))
    leaves.values.push(hashed[i]!.value)
  }
  const encoded = RLP.encode(await build(leaves, 0, leaves.keys.length, 0, writer))
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
  const entries: [Uint8Array, Uint8Array][] = []
  for (const a of accounts) {
    const slots: [Uint8Array, Uint8Array][] = []
    for (const [slot, value] of a.storage) if (value.length > 0) slots.push([slot, RLP.encode(value)])
    const storageRoot = await buildTrie(slots, writer)
    let codeHash = KECCAK256_NULL
    if (a.code && a.code.length > 0) {
      codeHash = keccak256(a.code)
      writer.put(concatBytes(Uint8Array.of(CODE_PREFIX), codeHash), a.code)
    }
    entries.push([a.address, createAccount({ nonce: a.nonce, balance: a.balance, storageRoot, codeHash }).serialize()])
    if (writer.full) await writer.flush()
  }
  const root = await buildTrie(entries, writer)
  await writer.flush()
  return root
}
