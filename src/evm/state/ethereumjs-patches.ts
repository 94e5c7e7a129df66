/**
 * Every use of @ethereumjs internals (members outside the documented API) is in this module, but for
 * the reads of the interpreter's state in ethereumjs-run-state.ts; the versions are pinned in
 * package.json and test/unit/evm/state/ethereumjs-patches.test.ts fails, naming the patch, when an
 * installed version no longer has the member with the shape used here. (Edits of the installed
 * packages' files themselves are in patches/, applied by `npm install`.)
 *
 * Hooks other modules use: {@link getOpcodeTable} (`EVM._opcodeMap`: call deadlines in state-copy.ts,
 * tracing probes in tracing/opcode-probes.ts), {@link wrapExecuteCall} and {@link addCustomPrecompile}
 * (`EVM._executeCall`, `_customPrecompiles`, `_precompiles`: validator-admin.ts) and
 * {@link seedTxHash} and {@link seedTxSenderPublicKey} (a transaction's `cache.hash` and
 * `cache.senderPubKey`: tx.ts), {@link assembleFeeMarketTx} (an EIP-1559 transaction's own properties
 * as its constructor sets them: tx.ts), {@link setTrieShortcut} and {@link watchStorageTries}
 * (`MerkleStateManager._getStorageTrie`: the flat state's reads, flat-reader.ts).
 *
 * Caches around @ethereumjs 10.1.3 internals that profiling of ERC-20 blocks put near the top (each
 * falls back to the library's own code when its internal is not found):
 *
 * - JUMPDEST analysis: every message frame re-scans its code for jump destinations and decodes every
 *   PUSH immediate into a bigint (`Interpreter._getValidJumpDestinations`, ~6% of block execution;
 *   the library keeps no code-analysis cache). The result depends only on the code and the EVM's
 *   opcode table and is only read afterwards, so it is memoised per (opcode table, code).
 * - `Common.isActivatedEIP`: `Array.includes` over the activated EIPs on every opcode's gas and
 *   behaviour checks (~3.5%). A lookup table answers while the EIP list is the one it was built from.
 * - Account encoding: the account cache holds accounts as RLP, so every `putAccount` encodes one and
 *   every `getAccount` decodes one (~10 of each per transfer; an eth_call puts its caller and callee
 *   and reads them back: ~35 µs of a 330 µs balanceOf call here). The cache's entries keep a copy of
 *   the account instead and encode it only when the RLP is first asked for (the flush at the state
 *   root); each read gets its own Account object.
 * - Storage writes: `putStorage` means to write into the storage cache *or*, without one, into the
 *   storage trie (as `putAccount` does), but is written `cache?.put(...) ?? writeTrie(...)` and `put`
 *   returns undefined, so every SSTORE also goes through the storage trie: path hashing, node encoding
 *   and ~5 garbage trie-node writes per ERC-20 transfer (2,026 of a 375-transfer block's 2,053), all
 *   redone by the cache flush at the state root. Only the cache is written when there is one; the
 *   flush (getStateRoot, once per block) writes each slot's final value, so roots are unchanged.
 * - Trie reads: `MerklePatriciaTrie.get` finds its key with `findPath`, a general walker (a task
 *   executor with a priority queue, a promise and closures per node, the stack of visited nodes) built
 *   for updates and proofs. Reading one storage slot cost ~94 µs of an eth_call here. A read only
 *   follows the key's nibbles from the root, node by node, which the replacement does, with the same
 *   answers (a missing node included: null, or the error with `throwIfMissing`).
 * - Trie node decoding: every node a trie reads, the upper levels of the account trie and of a busy
 *   contract's storage trie on every read, is copied out of the node cache and RLP-decoded again
 *   (`lookupNode`: ~25 µs of a 410 µs balanceOf eth_call here). The most recently used nodes are kept
 *   decoded, by hash (content-addressed: a hash always names the same node), as the RLP arrays of byte
 *   views; each lookup still builds its own node object from them, as the library's does, since
 *   updates change the node objects they are given.
 * - Trie writes at the state root: `MerkleStateManager.flush` writes each changed slot and account with
 *   the trie's `put`/`del`, and each of them finds its path with `findPath` and writes every node of the
 *   path again. A block paying 330 new holders of a token with a million holders re-read, re-hashed and
 *   re-wrote the upper levels of the token's storage trie 330 times (the general walker's promises and
 *   queues were 7% of the main thread in a profile of that workload). The flush now applies each trie's
 *   changes in one walk (trie-update.ts): the same roots, each new node written once.
 */
import type { Common } from '@ethereumjs/common'
import { getActivePrecompiles, type CustomPrecompile } from '@ethereumjs/evm'
import { BranchMPTNode, decodeRawMPTNode, ExtensionMPTNode, LeafMPTNode, MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { AccountCache, CODEHASH_PREFIX, MerkleStateManager } from '@ethereumjs/statemanager'
import { FeeMarket1559Tx, type TxOptions } from '@ethereumjs/tx'
import {
  Account,
  Address,
  EthereumJSErrorWithoutCode,
  bytesToUnprefixedHex,
  concatBytes,
  createAddressFromString,
  unpadBytes,
  unprefixedHexToBytes,
  type BatchDBOp,
} from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { importInterpreterModule } from './evm-interpreter-module.js'
import { toNibbles } from '../store/ordered-trie.js'
import { type TrieChange, type TrieNodeIo, updateTrie } from './trie-update.js'
import { bytesToBigint, latin1 } from '../../primitives/hex.js'
import type { FeeMarketFields } from '../txs/fee-market-fields.js'

/** Distinct contract codes whose analysis one opcode table keeps (cleared when full). */
const JUMP_ANALYSIS_CACHE_SIZE = 512

interface JumpAnalysis {
  jumps: Uint8Array
  pushes: Record<number, bigint>
  opcodesCached: unknown[]
}

interface InterpreterLike {
  _evm: { _opcodeMap: unknown }
  _getValidJumpDestinations(code: Uint8Array): JumpAnalysis
}

/** One opcode table's analyses: by code content, and by the code array a state manager hands out. */
interface JumpAnalysisCache {
  byContent: Map<string, JumpAnalysis>
  byArray: WeakMap<Uint8Array, JumpAnalysis>
}

let jumpCacheInstalled: Promise<boolean> | undefined

/**
 * Memoises the JUMPDEST analysis of every EVM in the process (idempotent). Resolves to whether the
 * cache is in place. The Interpreter class is not exported (evm-interpreter-module.ts).
 */
export function installJumpAnalysisCache(): Promise<boolean> {
  jumpCacheInstalled ??= (async () => {
    try {
      const mod = (await importInterpreterModule()) as { Interpreter?: { prototype: InterpreterLike } }
      const proto = mod.Interpreter?.prototype
      if (!proto || typeof proto._getValidJumpDestinations !== 'function') return false
      const analyse = proto._getValidJumpDestinations
      const caches = new WeakMap<object, JumpAnalysisCache>()
      proto._getValidJumpDestinations = function (this: InterpreterLike, code: Uint8Array): JumpAnalysis {
        const table = this._evm?._opcodeMap
        if (typeof table !== 'object' || table === null) return analyse.call(this, code)
        let cache = caches.get(table)
        if (!cache) {
          cache = { byContent: new Map(), byArray: new WeakMap() }
          caches.set(table, cache)
        }
        // The state manager's code cache hands out the same array for the same code: the array answers
        // without making the code a string key (a few KiB copied and hashed per call frame).
        let analysis = cache.byArray.get(code)
        if (analysis) return analysis
        const key = latin1(code)
        analysis = cache.byContent.get(key)
        if (!analysis) {
          if (cache.byContent.size >= JUMP_ANALYSIS_CACHE_SIZE) cache.byContent.clear()
          analysis = analyse.call(this, code)
          cache.byContent.set(key, analysis)
        }
        cache.byArray.set(code, analysis)
        return analysis
      }
      return true
    } catch {
      return false
    }
  })()
  return jumpCacheInstalled
}

/** The highest EIP number the lookup table covers; others take the library's path. */
const MAX_EIP = 16_384

/**
 * Replaces `isActivatedEIP` on `common` (an own property, so every `copy()` of it has it too) with a
 * table lookup. Each call checks that the instance's activated-EIP list is still the array the table
 * was built from (`setHardfork`/`setEIPs` build a new one), else answers the library's way.
 */
export function installFastIsActivatedEIP(common: Common): void {
  const internal = common as unknown as { _activatedEIPsCache?: unknown }
  const source = internal._activatedEIPsCache
  if (!Array.isArray(source)) return
  const table = new Uint8Array(MAX_EIP)
  for (const eip of source) if (Number.isInteger(eip) && eip >= 0 && eip < MAX_EIP) table[eip] = 1
  const original = Object.getPrototypeOf(common).isActivatedEIP as (this: Common, eip: number) => boolean
  Object.defineProperty(common, 'isActivatedEIP', {
    value: function isActivatedEIP(this: Common & { _activatedEIPsCache?: unknown }, eip: number): boolean {
      if (this._activatedEIPsCache === source && eip >= 0 && eip < MAX_EIP) return table[eip] === 1
      return original.call(this, eip)
    },
    enumerable: true,
    writable: true,
    configurable: true,
  })
}

/**
 * An account cache entry: `accountRLP` as the library's entries have it, encoded from a private copy
 * of the account when first read; undefined for an account known not to exist.
 */
class AccountEntry {
  private rlp: Uint8Array | undefined
  constructor(readonly account: Account | undefined) {}

  get accountRLP(): Uint8Array | undefined {
    if (this.account !== undefined) this.rlp ??= this.account.serialize()
    return this.rlp
  }
}

const copyAccount = (a: Account): Account => new Account(a.nonce, a.balance, a.storageRoot, a.codeHash)

interface AccountCacheInternals {
  DEBUG: boolean
  _lruCache?: { set(key: string, elem: unknown): void }
  _orderedMapCache?: { setElement(key: string, elem: unknown): void }
  _stats: { writes: number }
  _saveCachePreState(addressHex: string): void
  get(address: Address): object | undefined
  put(address: Address, account: Account | undefined, couldBePartialAccount?: boolean): void
}

let accountEntriesInstalled = false

/**
 * Makes the account caches of every MerkleStateManager of the process hold {@link AccountEntry}s
 * (idempotent): `AccountCache.put` as the library's, with the entry in place of the encoding, and
 * `getAccount` answering from the entry (the library's path for any other entry).
 */
export function installAccountEntries(): void {
  if (accountEntriesInstalled) return
  accountEntriesInstalled = true
  const cacheProto = AccountCache.prototype as unknown as AccountCacheInternals
  const put = cacheProto.put
  cacheProto.put = function (this: AccountCacheInternals, address, account, couldBePartialAccount = false): void {
    if (couldBePartialAccount || this.DEBUG) return put.call(this, address, account, couldBePartialAccount)
    const addressHex = bytesToUnprefixedHex(address.bytes)
    this._saveCachePreState(addressHex)
    const elem = new AccountEntry(account && copyAccount(account))
    if (this._lruCache) this._lruCache.set(addressHex, elem)
    else this._orderedMapCache?.setElement(addressHex, elem)
    this._stats.writes += 1
  }
  const proto = MerkleStateManager.prototype as unknown as {
    getAccount(this: MerkleStateManager, address: Address): Promise<Account | undefined>
  }
  const getAccount = proto.getAccount
  proto.getAccount = function (this: MerkleStateManager, address: Address): Promise<Account | undefined> {
    const cache = (this as unknown as { _caches?: { account?: AccountCacheInternals } })._caches?.account
    const elem = cache?.get(address)
    // An absent account read again (a call's default zero-address sender) is an entry too: one lookup.
    if (elem instanceof AccountEntry) return Promise.resolve(elem.account && copyAccount(elem.account))
    return getAccount.call(this, address)
  }
}

interface StorageCacheLike {
  put(address: Address, key: Uint8Array, value: Uint8Array): void
}

let storageWriteFixInstalled = false

/** Makes `putStorage` write only the storage cache when there is one (idempotent; the whole process). */
export function installStorageWriteFix(): void {
  if (storageWriteFixInstalled) return
  storageWriteFixInstalled = true
  const proto = MerkleStateManager.prototype as unknown as {
    putStorage(this: MerkleStateManager, address: Address, key: Uint8Array, value: Uint8Array): Promise<void>
  }
  const original = proto.putStorage
  proto.putStorage = async function (this: MerkleStateManager, address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    const storage = (this as unknown as { _caches?: { storage?: StorageCacheLike } })._caches?.storage
    if (storage === undefined) return original.call(this, address, key, value)
    // the library's checks and messages, in its order
    if (key.length !== 32) throw EthereumJSErrorWithoutCode('Storage key must be 32 bytes long')
    if (value.length > 32) throw EthereumJSErrorWithoutCode('Storage value cannot be longer than 32 bytes')
    if (!(await this.getAccount(address))) throw EthereumJSErrorWithoutCode('putStorage() called on non-existing account')
    storage.put(address, key, RLP.encode(unpadBytes(value)))
  }
}

/** The message ethereumjs throws for a node its database does not have (`lookupNode`). */
const MISSING_NODE = 'Missing node in DB'

type TrieNode = BranchMPTNode | ExtensionMPTNode | LeafMPTNode

interface TrieInternals {
  DEBUG: boolean
  EMPTY_TRIE_ROOT: Uint8Array
  _opts: { useRootPersistence?: boolean; useNodePruning?: boolean }
  appliedKey(key: Uint8Array): Uint8Array
  root(value?: Uint8Array): Uint8Array
  lookupNode(node: Uint8Array | Uint8Array[]): Promise<TrieNode>
  _db: {
    get(key: Uint8Array): Promise<Uint8Array | undefined>
    batch(ops: BatchDBOp<Uint8Array, Uint8Array>[]): Promise<void>
    /** The store under the checkpoints: ours (trie-db.ts) can peek at its cache and preload nodes. */
    db: { peek?(key: string): Uint8Array | undefined; preload?(keys: string[]): Promise<void> }
  }
  _getDbKey(key: Uint8Array): Uint8Array
}

/** Trie nodes kept decoded, the least recently read dropped first (about 1 KB each for a branch node). */
export const DECODED_TRIE_NODES = 2048

/** The decoded nodes of every trie of the process, by hash (content-addressed: one hash, one node). */
const decodedNodes = new Map<string, Uint8Array[]>()

/** A node by hash as RLP items, through the decoded nodes; the items are shared, never to be changed. */
async function lookupRawNode(trie: TrieInternals, hash: Uint8Array): Promise<Uint8Array[]> {
  const key = latin1(hash)
  let raw = decodedNodes.get(key)
  if (raw !== undefined) {
    decodedNodes.delete(key)
  } else {
    const value = await trie._db.get(trie._getDbKey(hash))
    if (value === undefined || value === null) throw EthereumJSErrorWithoutCode(MISSING_NODE)
    // A copy, as the library's own decoding makes: the views below keep these bytes.
    const rlp = RLP.decode(value.slice())
    if (!Array.isArray(rlp)) throw EthereumJSErrorWithoutCode('Invalid node')
    raw = rlp as Uint8Array[]
    if (decodedNodes.size >= DECODED_TRIE_NODES) decodedNodes.delete(decodedNodes.keys().next().value!)
  }
  decodedNodes.set(key, raw)
  return raw
}

let decodedNodesInstalled = false

/** Keeps the most recently read trie nodes of every trie of the process decoded (idempotent). */
export function installDecodedNodeCache(): void {
  if (decodedNodesInstalled) return
  decodedNodesInstalled = true
  const proto = MerklePatriciaTrie.prototype as unknown as TrieInternals
  const original = proto.lookupNode
  proto.lookupNode = async function (this: TrieInternals, node: Uint8Array | Uint8Array[]): Promise<TrieNode> {
    if (this.DEBUG || !(node instanceof Uint8Array)) return original.call(this, node)
    return decodeRawMPTNode(await lookupRawNode(this, node))
  }
}

/** Leaf hints a trie keeps at most between two flushes. */
const MAX_LEAF_HINTS = 16_384

/**
 * Per trie, the values its shortcut (the flat state) gave since its last flush, by key as applied: the
 * batched flush recognises the leaves of those keys by their hash instead of reading them (trie-update.ts
 * `previous`), where the flat state left the path unread.
 */
const leafHints = new WeakMap<MerklePatriciaTrie, Map<string, Uint8Array>>()

function noteLeaf(trie: MerklePatriciaTrie, appliedKey: Uint8Array, value: Uint8Array): void {
  const hints = leafHints.get(trie)
  if (hints === undefined) leafHints.set(trie, new Map([[latin1(appliedKey), value]]))
  else if (hints.size < MAX_LEAF_HINTS) hints.set(latin1(appliedKey), value)
}

let fastTrieGetInstalled = false

/**
 * A trie's shortcut: given the key as the trie applies it (hashed), its value, null for a key the
 * trie does not have, or undefined to walk the trie.
 */
export type TrieShortcut = (appliedKey: Uint8Array) => Uint8Array | null | undefined

const shortcuts = new WeakMap<MerklePatriciaTrie, TrieShortcut>()

/** Makes `trie`'s reads ask `shortcut` before walking (the flat state, flat-reader.ts). */
export function setTrieShortcut(trie: MerklePatriciaTrie, shortcut: TrieShortcut): void {
  shortcuts.set(trie, shortcut)
}

/**
 * Makes `MerklePatriciaTrie.get` ask the trie's shortcut, if it has one, then walk straight down the
 * key's path (idempotent; the whole process).
 */
export function installFastTrieGet(): void {
  if (fastTrieGetInstalled) return
  fastTrieGetInstalled = true
  const proto = MerklePatriciaTrie.prototype
  const original = proto.get
  proto.get = async function (this: MerklePatriciaTrie, key: Uint8Array, throwIfMissing = false): Promise<Uint8Array | null> {
    const trie = this as unknown as TrieInternals
    if (trie.DEBUG) return original.call(this, key, throwIfMissing)
    const applied = trie.appliedKey(key)
    const shortcut = shortcuts.get(this)
    if (shortcut !== undefined) {
      const value = shortcut(applied)
      if (value !== null && value !== undefined) noteLeaf(this, applied, value)
      if (value !== undefined) return value
    }
    const nibbles = toNibbles(applied)
    try {
      let node = await trie.lookupNode(this.root())
      let at = 0
      for (;;) {
        if (node instanceof BranchMPTNode) {
          if (at === nibbles.length) return node.value()
          const child = node.getBranch(nibbles[at]!)
          if (child === null) return null
          at++
          node = await trie.lookupNode(child)
        } else if (node instanceof LeafMPTNode) {
          const rest = node.key()
          if (rest.length !== nibbles.length - at) return null
          for (let i = 0; i < rest.length; i++) if (rest[i] !== nibbles[at + i]) return null
          return node.value()
        } else if (node instanceof ExtensionMPTNode) {
          const shared = node.key()
          for (let i = 0; i < shared.length; i++) if (shared[i] !== nibbles[at + i]) return null
          at += shared.length
          node = await trie.lookupNode(node.value())
        } else return null
      }
    } catch (err) {
      if (throwIfMissing || !(err instanceof Error) || err.message !== MISSING_NODE) throw err
      return null
    }
  }
}

interface FlushInternals {
  DEBUG: boolean
  _trie: MerklePatriciaTrie
  _storageTries: Record<string, MerklePatriciaTrie>
  _prefixCodeHashes: boolean
  _caches?: {
    code?: { flush(): [string, { code?: Uint8Array }][] }
    storage?: { flush(): [string, string, Uint8Array | undefined][] }
    account?: { flush(): [string, { accountRLP: Uint8Array | undefined }][] }
  }
  keccakFunction(data: Uint8Array): Uint8Array
  _getCodeDB(): { put(key: Uint8Array, value: Uint8Array): Promise<void> }
  _getStorageTrie(address: Address, account: Account): MerklePatriciaTrie
  getAccount(address: Address): Promise<Account | undefined>
  putAccount(address: Address, account: Account): Promise<void>
  modifyAccountFields(address: Address, fields: { codeHash: Uint8Array }): Promise<void>
  flush(): Promise<void>
}

/** The nodes of `trie`'s database as {@link updateTrie} reads them, and its writes gathered for one batch. */
function trieNodeIo(trie: TrieInternals): TrieNodeIo & { ops: BatchDBOp<Uint8Array, Uint8Array>[] } {
  const ops: BatchDBOp<Uint8Array, Uint8Array>[] = []
  const store = trie._db.db
  const { peek, preload } = store
  const hexKey = (hash: Uint8Array): string => bytesToUnprefixedHex(trie._getDbKey(hash))
  return {
    ops,
    read: (hash) => lookupRawNode(trie, hash),
    write: (hash, encoded) => void ops.push({ type: 'put', key: trie._getDbKey(hash), value: encoded }),
    peek:
      peek === undefined
        ? undefined
        : (hash) => {
            const key = latin1(hash)
            const known = decodedNodes.get(key)
            if (known !== undefined) return known
            const value = peek.call(store, hexKey(hash))
            if (value === undefined) return undefined
            const raw = RLP.decode(value) as Uint8Array[]
            if (decodedNodes.size >= DECODED_TRIE_NODES) decodedNodes.delete(decodedNodes.keys().next().value!)
            decodedNodes.set(key, raw)
            return raw
          },
    preload: preload === undefined ? undefined : (hashes) => preload.call(store, hashes.map(hexKey)),
  }
}

/**
 * Applies `changes` to `trie` in one walk (trie-update.ts) and writes the new nodes as the library
 * would; the values its shortcut gave for the changed keys are their previous values (leaf hints).
 */
async function updateTrieOf(trie: MerklePatriciaTrie, changes: TrieChange[]): Promise<void> {
  const internals = trie as unknown as TrieInternals
  const hints = leafHints.get(trie)
  if (hints !== undefined) for (const change of changes) change.previous = hints.get(latin1(change.key))
  leafHints.delete(trie)
  const io = trieNodeIo(internals)
  const root = await updateTrie(trie.root(), internals.EMPTY_TRIE_ROOT, changes, io)
  await internals._db.batch(io.ops)
  trie.root(root)
}

/** A storage cache entry's value as the trie stores it (RLP of the unpadded word), or null to delete. */
function storageTrieValue(value: Uint8Array | undefined): Uint8Array | null {
  const decoded = RLP.decode(value ?? new Uint8Array(0))
  return decoded instanceof Uint8Array && decoded.length > 0 ? RLP.encode(decoded) : null
}

let batchedFlushInstalled = false

/**
 * Makes `MerkleStateManager.flush` (the state root's work: every cached change written to the tries)
 * update each storage trie, then the account trie, with all their changed keys at once (trie-update.ts)
 * instead of one library `put`/`del` per key (idempotent; the whole process). Code is flushed first, as
 * the library does. Tries with the library's root persistence or node pruning, a state manager
 * without caches and a debug one keep the library's flush.
 */
export function installBatchedFlush(): void {
  if (batchedFlushInstalled) return
  batchedFlushInstalled = true
  const proto = MerkleStateManager.prototype as unknown as FlushInternals
  const original = proto.flush
  proto.flush = async function (this: FlushInternals): Promise<void> {
    const caches = this._caches
    const opts = (this._trie as unknown as TrieInternals)._opts
    if (this.DEBUG || caches?.storage === undefined || caches.account === undefined || opts.useRootPersistence || opts.useNodePruning)
      return original.call(this)
    // The library's code loop.
    for (const [addressHex, { code }] of caches.code?.flush() ?? []) {
      if (code === undefined) continue
      const address = createAddressFromString(`0x${addressHex}`)
      const codeHash = this.keccakFunction(code)
      await this._getCodeDB().put(this._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, codeHash) : codeHash, code)
      if ((await this.getAccount(address)) === undefined) await this.putAccount(address, new Account())
      await this.modifyAccountFields(address, { codeHash })
    }
    const slotsByAccount = new Map<string, [string, Uint8Array | undefined][]>()
    for (const [addressHex, keyHex, value] of caches.storage.flush()) {
      const slots = slotsByAccount.get(addressHex)
      if (slots === undefined) slotsByAccount.set(addressHex, [[keyHex, value]])
      else slots.push([keyHex, value])
    }
    for (const [addressHex, slots] of slotsByAccount) {
      const address = createAddressFromString(`0x${addressHex}`)
      const account = await this.getAccount(address)
      if (account === undefined) continue
      const trie = this._getStorageTrie(address, account)
      const internals = trie as unknown as TrieInternals
      await updateTrieOf(
        trie,
        slots.map(([keyHex, value]) => ({ key: internals.appliedKey(unprefixedHexToBytes(keyHex)), value: storageTrieValue(value) })),
      )
      this._storageTries[addressHex] = trie
      account.storageRoot = trie.root()
      await this.putAccount(address, account)
    }
    // The hints of tries read but not written: the next block reads again.
    for (const trie of Object.values(this._storageTries)) leafHints.delete(trie)
    const accounts = caches.account.flush()
    if (accounts.length === 0) {
      leafHints.delete(this._trie)
      return
    }
    const internals = this._trie as unknown as TrieInternals
    await updateTrieOf(
      this._trie,
      accounts.map(([addressHex, entry]) => ({
        key: internals.appliedKey(unprefixedHexToBytes(addressHex)),
        value: entry.accountRLP ?? null,
      })),
    )
  }
}

/**
 * Makes `seen` see every storage trie `sm` makes (`MerkleStateManager._getStorageTrie`, which
 * creates one per account on first use from the account trie and keeps it), with the account's
 * hashed address, the first time it is handed out.
 */
export function watchStorageTries(sm: MerkleStateManager, seen: (trie: MerklePatriciaTrie, addressHash: Uint8Array) => void): void {
  const target = sm as unknown as {
    _getStorageTrie(addressOrHash: Address | Uint8Array, rootAccount?: Account): MerklePatriciaTrie
    keccakFunction(data: Uint8Array): Uint8Array
  }
  const getStorageTrie = target._getStorageTrie.bind(sm)
  const known = new WeakSet<MerklePatriciaTrie>()
  target._getStorageTrie = (addressOrHash, rootAccount) => {
    const trie = getStorageTrie(addressOrHash, rootAccount)
    if (!known.has(trie)) {
      known.add(trie)
      seen(trie, addressOrHash instanceof Uint8Array ? addressOrHash : target.keccakFunction(addressOrHash.bytes))
    }
    return trie
  }
}

/** One entry of an EVM's opcode table (`EVM._opcodeMap`, indexed by opcode), as 10.1.3 lays it out. */
export interface OpcodeTableEntry<RunState = unknown> {
  opHandler?: (runState: RunState, common: unknown) => unknown
  gasHandler?: (runState: RunState, gas: bigint, common: unknown) => Promise<bigint> | bigint
  opcodeInfo: { isAsync: boolean; dynamicGas: boolean }
}

/**
 * The opcode table of one EVM instance (`_opcodeMap`: its own entries, so replacing a handler affects
 * only that EVM), or undefined when this version has none; callers then fall back to the `step` event.
 */
export function getOpcodeTable<RunState = unknown>(evm: object): (OpcodeTableEntry<RunState> | undefined)[] | undefined {
  const table = (evm as { _opcodeMap?: unknown })._opcodeMap
  return Array.isArray(table) ? (table as (OpcodeTableEntry<RunState> | undefined)[]) : undefined
}

/**
 * Makes `before` see every message the EVM is about to run (`EVM._executeCall`, called once per call
 * frame); ethereumjs passes a precompile only its calldata and gas, so this is how one learns its caller.
 */
export function wrapExecuteCall<Message>(evm: object, before: (message: Message) => void): void {
  const target = evm as { _executeCall(message: Message): Promise<unknown> }
  const executeCall = target._executeCall.bind(evm)
  target._executeCall = (message) => {
    before(message)
    return executeCall(message)
  }
}

/**
 * Adds a precompile to a created EVM: `customPrecompiles` is a creation option only, so the EVM's
 * `_customPrecompiles` list is extended and its active map (`_precompiles`) rebuilt the way the
 * constructor builds it.
 */
export function addCustomPrecompile(evm: object, precompile: CustomPrecompile): void {
  const target = evm as { _customPrecompiles?: CustomPrecompile[]; _precompiles: Map<string, unknown>; common: Common }
  const custom = [...(target._customPrecompiles ?? []), precompile]
  target._customPrecompiles = custom
  target._precompiles = getActivePrecompiles(target.common, custom)
}

/**
 * Seeds a frozen transaction's hash cache (`cache.hash`, which `hash()` answers from) with a hash
 * computed elsewhere, saving ethereumjs' re-serialisation and Keccak.
 */
export function seedTxHash(tx: object, hash: Uint8Array): void {
  ;(tx as { cache: { hash?: Uint8Array } }).cache.hash = hash
}

/** What `new FeeMarket1559Tx` lists as the transaction's capabilities (EIP-1559, EIP-2718, EIP-2930). */
const FEE_MARKET_CAPABILITIES = [1559, 2718, 2930]
const WORD_BYTES = 32

/**
 * The EIP-1559 transaction `new FeeMarket1559Tx(fields, txOptions)` would make (not frozen, as with
 * `freeze: false`), its own properties set in the constructor's order, without the constructor's
 * checks and conversions: fee-market-fields.ts has made the same checks on the bytes and reads only
 * what the constructor accepts unchanged, and the constructor costs ~15–50 µs a transaction when a
 * block executes it. Each transaction gets its own copy of the Common, as the constructor gives it.
 * Undefined when the installed constructor sets other properties (checked once): build it the
 * library's way then.
 */
export function assembleFeeMarketTx(fields: FeeMarketFields, txOptions: TxOptions & { common: Common }): FeeMarket1559Tx | undefined {
  if (!assemblyMatchesConstructor(txOptions)) return undefined
  return assemble(fields, txOptions)
}

function assemble(fields: FeeMarketFields, txOptions: TxOptions & { common: Common }): FeeMarket1559Tx {
  const tx = Object.create(FeeMarket1559Tx.prototype) as Record<string, unknown>
  tx.type = 2
  tx.cache = {}
  tx.activeCapabilities = []
  const common = txOptions.common.copy()
  tx.common = common
  tx.txOptions = txOptions
  tx.to = new Address(fields.to)
  tx.nonce = fields.nonce
  tx.gasLimit = fields.gasLimit
  tx.value = fields.value
  tx.data = fields.data
  tx.v = BigInt(fields.recovery)
  tx.r = bytesToBigint(fields.signature.subarray(0, WORD_BYTES))
  tx.s = bytesToBigint(fields.signature.subarray(WORD_BYTES))
  tx.chainId = common.chainId()
  tx.activeCapabilities = [...FEE_MARKET_CAPABILITIES]
  tx.accessList = fields.accessList
  tx.maxFeePerGas = fields.maxFeePerGas
  tx.maxPriorityFeePerGas = fields.maxPriorityFeePerGas
  return tx as unknown as FeeMarket1559Tx
}

let assemblyChecked: boolean | undefined

/** Whether the installed constructor sets exactly the properties `assemble` sets, in the same order. */
function assemblyMatchesConstructor(txOptions: TxOptions & { common: Common }): boolean {
  if (assemblyChecked !== undefined) return assemblyChecked
  const sample: FeeMarketFields = {
    nonce: 1n,
    maxPriorityFeePerGas: 1n,
    maxFeePerGas: 2n,
    gasLimit: 21_000n,
    to: new Uint8Array(20).fill(1),
    value: 3n,
    data: Uint8Array.of(4),
    accessList: [],
    recovery: 1,
    signature: new Uint8Array(2 * WORD_BYTES).fill(1),
    payloadStart: 0,
    signedEnd: 0,
  }
  const ours = assemble(sample, txOptions)
  try {
    const theirs = new FeeMarket1559Tx(
      { ...sample, chainId: txOptions.common.chainId(), v: 1n, r: ours.r, s: ours.s },
      { ...txOptions, freeze: false },
    )
    assemblyChecked = Object.keys(theirs).join() === Object.keys(ours).join()
  } catch {
    assemblyChecked = false
  }
  return assemblyChecked
}

/**
 * Seeds a transaction's sender cache (`cache.senderPubKey`, which `getSenderPublicKey()` answers from)
 * with the 64-byte public key recovered elsewhere.
 */
export function seedTxSenderPublicKey(tx: object, publicKey: Uint8Array): void {
  ;(tx as { cache: { senderPubKey?: Uint8Array } }).cache.senderPubKey = publicKey
}

/**
 * Puts the VM back where a transaction found it after a throw from inside the EVM (a fault of the
 * library or of a precompile; a validity check throws before any checkpoint): the state checkpoints
 * opened above `depth` by the transaction and its calls are reverted, and the transient storage
 * (EIP-1153) emptied with its checkpoints, as the end of a transaction leaves it. Without this the
 * block's commit kept the writes of the half-run transaction, and the next block found no state root.
 */
export async function recoverFromEvmFault(vm: VM, depth: number): Promise<void> {
  const sm = vm.stateManager as unknown as { revert(): Promise<void> }
  while (openCheckpoints(vm) > depth) await sm.revert()
  const transient = (vm.evm as unknown as { transientStorage: { clear(): void; _indices: number[] } }).transientStorage
  transient.clear()
  transient._indices = [0]
}

/** Checkpoints the VM's state manager has open (MerkleStateManager `_checkpointCount`). */
export function openCheckpoints(vm: VM): number {
  return (vm.stateManager as unknown as { _checkpointCount: number })._checkpointCount
}
