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
import { feedGenesisAccounts, GenesisError, type GenesisAccountHeader, type GenesisAccounts, type GenesisAccountSink } from '../genesis.js'
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

/** Bytes of a hashed trie key. */
const KEY_BYTES = 32
/** Nibbles of a hashed trie key: the length of every leaf's path. */
const KEY_NIBBLES = 2 * KEY_BYTES
/** Bytes of a leaf's sequence number, between its key and its value. */
const SEQ_BYTES = 4
/** Where a leaf's value starts. */
const VALUE_AT = KEY_BYTES + SEQ_BYTES

/**
 * A trie entry as one latin1 string (a character a byte): its hashed key, a 4-byte big-endian
 * sequence number, its RLP value. One string is about a third of the memory of an object holding a key
 * string and a value array (a million accounts and a million slots of a genesis token are built at
 * once), and the native string order is the order the trie needs: by key, then, for one key given
 * twice, by sequence, so the last given is the last of its run.
 */
type Leaf = string

/** Sorted leaves with distinct keys. */
type Leaves = Leaf[]

/** The leaf of raw key `key`, number `seq` of its trie. */
function leafOf(key: Uint8Array, seq: number, value: Uint8Array): Leaf {
  // Written into one array and decoded once: a flat string (a concatenation would keep three strings and two rope nodes).
  const bytes = new Uint8Array(VALUE_AT + value.length)
  bytes.set(keccak256(key))
  new DataView(bytes.buffer).setUint32(KEY_BYTES, seq)
  bytes.set(value, VALUE_AT)
  return latin1(bytes)
}

/** A leaf's sequence number. */
function seqOf(leaf: Leaf): number {
  return (
    ((leaf.charCodeAt(KEY_BYTES) << 24) |
      (leaf.charCodeAt(KEY_BYTES + 1) << 16) |
      (leaf.charCodeAt(KEY_BYTES + 2) << 8) |
      leaf.charCodeAt(KEY_BYTES + 3)) >>>
    0
  )
}

/** A leaf's hashed key, as bytes. */
function keyBytesOf(leaf: Leaf): Uint8Array {
  return Buffer.from(leaf.slice(0, KEY_BYTES), 'latin1')
}

/** A leaf's value, as bytes. */
function leafValue(leaf: Leaf): Uint8Array {
  return Buffer.from(leaf.slice(VALUE_AT), 'latin1')
}

/** Whether two leaves have one key. */
function sameKey(a: Leaf, b: Leaf): boolean {
  return a.startsWith(b.slice(0, KEY_BYTES))
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
  const first = leaves[from]!
  const last = leaves[to - 1]!
  let d = depth
  while (nibble(first, d) === nibble(last, d)) d++
  return d
}

/** The ranges of leaves [from, to) by their nibble at `depth`: [nibble, from, to] each. */
function* children(leaves: Leaves, from: number, to: number, depth: number): Generator<[number, number, number]> {
  let start = from
  while (start < to) {
    const n = nibble(leaves[start]!, depth)
    let end = start + 1
    while (end < to && nibble(leaves[end]!, depth) === n) end++
    yield [n, start, end]
    start = end
  }
}

function leaf(leaves: Leaves, i: number, depth: number): NestedNode {
  const l = leaves[i]!
  return [hexPrefix(l, depth, KEY_NIBBLES, true), Buffer.from(l.slice(VALUE_AT), 'latin1')]
}

function emptyBranch(): NestedNode {
  return new Array<Uint8Array>(17).fill(new Uint8Array())
}

/** The node over leaves [from, to), all sharing their first `depth` nibbles (keys have one length: no branch values). */
function build(leaves: Leaves, from: number, to: number, depth: number, writer: NodeWriter): NestedNode {
  if (to - from === 1) return leaf(leaves, from, depth)
  const shared = sharedTo(leaves, from, to, depth)
  if (shared > depth) {
    return [hexPrefix(leaves[from]!, depth, shared, false), reference(build(leaves, from, to, shared, writer), writer)]
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
    return [hexPrefix(leaves[from]!, depth, shared, false), reference(await buildLarge(leaves, from, to, shared, writer), writer)]
  }
  const branch = emptyBranch()
  for (const [n, start, end] of children(leaves, from, to, depth)) {
    branch[n] = reference(await buildLarge(leaves, start, end, depth + 1, writer), writer)
  }
  return branch
}

/**
 * Builds the trie of `leaves` (sorted here, in place; of leaves of one key the last given wins, or
 * `duplicate` is called with it), writes its nodes and returns its root.
 */
async function buildTrie(leaves: Leaf[], writer: NodeWriter, duplicate?: (leaf: Leaf) => never): Promise<Uint8Array> {
  if (leaves.length === 0) return KECCAK256_RLP
  leaves.sort()
  let kept = 0
  for (let i = 0; i < leaves.length; i++) {
    const next = leaves[i + 1]
    if (next === undefined || !sameKey(next, leaves[i]!)) leaves[kept++] = leaves[i]!
    else duplicate?.(next)
  }
  leaves.length = kept
  const encoded = RLP.encode(await buildLarge(leaves, 0, kept, 0, writer))
  const root = keccak256(encoded)
  writer.put(root, encoded)
  if (writer.full) await writer.flush()
  return root
}

/**
 * The genesis state built as the accounts come (a GenesisAccountSink): each account's storage trie is
 * built and written when the account closes it, the account trie once all are in ({@link finish}).
 * Storage values are the genesis' (no leading zeros); an empty value is no slot, as a zero store is.
 */
export class GenesisStateBuilder implements GenesisAccountSink {
  private readonly writer: NodeWriter
  private readonly accounts: Leaf[] = []
  private slots: Leaf[] = []

  constructor(db: Database) {
    this.writer = new NodeWriter(db)
  }

  /** Accounts taken so far. */
  get count(): number {
    return this.accounts.length
  }

  slot(slot: Uint8Array, value: Uint8Array): void {
    if (value.length > 0) this.slots.push(leafOf(slot, this.slots.length, RLP.encode(value)))
  }

  account(a: GenesisAccountHeader, index: number): void | Promise<void> {
    if (this.slots.length > 0) return this.closeWithStorage(a, index)
    this.close(a, index, KECCAK256_RLP)
    if (this.writer.full) return this.writer.flush()
  }

  /** Builds the account trie, writes the last nodes and returns the state root. */
  async finish(): Promise<Uint8Array> {
    const root = await buildTrie(this.accounts, this.writer, (leaf) => {
      throw new GenesisError(`app_state.evm.accounts[${seqOf(leaf)}].address`, 'duplicate account')
    })
    await this.writer.flush()
    return root
  }

  private async closeWithStorage(a: GenesisAccountHeader, index: number): Promise<void> {
    const slots = this.slots
    this.slots = []
    const addressHash = keyBytesOf(this.close(a, index, await buildTrie(slots, this.writer)))
    // Sorted by the build, a slot given twice in the order given: its last record is the one the trie holds.
    for (const slot of slots) this.writer.putFlat(slotDataKey(addressHash, keyBytesOf(slot)), leafValue(slot))
    if (this.writer.full) await this.writer.flush()
  }

  /** Adds the account's leaf (and its flat record) and returns the leaf. */
  private close(a: GenesisAccountHeader, index: number, storageRoot: Uint8Array): Leaf {
    let codeHash = KECCAK256_NULL
    if (a.code && a.code.length > 0) {
      codeHash = keccak256(a.code)
      this.writer.put(concatBytes(Uint8Array.of(CODE_PREFIX), codeHash), a.code)
    }
    const leaf = leafOf(a.address, index, createAccount({ nonce: a.nonce, balance: a.balance, storageRoot, codeHash }).serialize())
    this.accounts.push(leaf)
    // An account given twice is refused by finish; InitChain over records left by a failed one regenerates them.
    this.writer.putFlat(dataKey(keyBytesOf(leaf)), leafValue(leaf))
    return leaf
  }
}

/** Writes the genesis accounts' state (accounts, code, storage tries) to `db` and returns its root. */
export async function writeGenesisState(db: Database, accounts: GenesisAccounts): Promise<Uint8Array> {
  const builder = new GenesisStateBuilder(db)
  await feedGenesisAccounts(accounts, builder)
  return builder.finish()
}
