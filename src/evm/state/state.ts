/**
 * Construction of the EVM state and VMs: the consensus VM (state manager over a MerklePatriciaTrie
 * whose nodes are staged into the application's stage) and read-only copies at a committed state root for
 * RPC reads, calls and proofs (their writes stay in a private overlay). Also the genesis allocation's entry point.
 * Settings: an explicit Cancun Common with native crypto, key hashing, raw-bytes trie values (the
 * default with a db is hex strings), ordered_map caches flushed once per block, reads through the flat
 * state where it is exact (flat-reader.ts), and a flush that updates each trie once with all its changed
 * keys (trie-update.ts, ethereumjs-patches.ts installBatchedFlush).
 */
import type { Common } from '@ethereumjs/common'
import type { EVMMockBlockchainInterface } from '@ethereumjs/evm'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager'
import { createVM, type VM } from '@ethereumjs/vm'
import type { Database } from '../../db/database.js'
import type { WriteStage } from '../../db/write-stage.js'
import {
  installAccountEntries,
  installBatchedFlush,
  installDecodedNodeCache,
  installFastTrieGet,
  installJumpAnalysisCache,
  installStorageWriteFix,
  setTrieShortcut,
  watchStorageTries,
} from './ethereumjs-patches.js'
import { flatReaderOf } from './flat-reader.js'
import { OverlayTrieDb, TrieDb } from './trie-db.js'
import { UnknownBlockError } from '../errors.js'
import { evmOptions } from '../common.js'

function createCaches(): Caches {
  installAccountEntries()
  installStorageWriteFix()
  installBatchedFlush()
  return new Caches({
    account: { size: 100_000, type: 'ordered_map' },
    storage: { size: 20_000, type: 'ordered_map' },
    code: { size: 20_000, type: 'ordered_map' },
  })
}

/** A trie over `db` without an LRU of its own: the database's shared node cache (trie-db.ts) serves every trie. */
function createTrie(db: TrieDb | OverlayTrieDb, common: Common): MerklePatriciaTrie {
  installFastTrieGet()
  installDecodedNodeCache()
  return new MerklePatriciaTrie({ db, useKeyHashing: true, valueEncoding: 'view', common })
}

/**
 * A state manager over `trie` whose reads take the flat state when it is exact for what they read
 * (flat-reader.ts): the account trie, and each storage trie as the state manager makes it.
 */
function createStateManager(db: Database, trie: MerklePatriciaTrie, common: Common, caches: Caches): MerkleStateManager {
  const flat = flatReaderOf(db)
  setTrieShortcut(trie, flat.accountShortcut(trie))
  const stateManager = new MerkleStateManager({ trie, common, caches })
  watchStorageTries(stateManager, (storageTrie, addressHash) =>
    setTrieShortcut(storageTrie, flat.storageShortcut(storageTrie, addressHash)),
  )
  return stateManager
}

/** The consensus VM: its writes are staged into `stage`, the application's (each key told to `noteWrite`, the state pruner's journal). */
export async function createConsensusVm(
  db: Database,
  stage: WriteStage,
  common: Common,
  blockchain: EVMMockBlockchainInterface,
  root?: Uint8Array,
  noteWrite?: (key: string) => void,
): Promise<{ vm: VM; stateManager: MerkleStateManager; caches: Caches }> {
  const trie = createTrie(new TrieDb(db, stage, noteWrite), common)
  const caches = createCaches()
  const stateManager = createStateManager(db, trie, common, caches)
  if (root) await setRoot(stateManager, root)
  await installJumpAnalysisCache()
  const vm = await createVM({ common, stateManager, blockchain, evmOpts: evmOptions(common) })
  return { vm, stateManager, caches }
}

/** Blocks between two clears of the consensus state caches. */
export const CACHE_CLEAR_EVERY_BLOCKS = 128
/** Cached accounts above which the consensus state caches are cleared early. */
export const CACHE_MAX_ACCOUNTS = 100_000

/**
 * Keeps the consensus state caches bounded. `ordered_map` caches never evict (an LRU could drop
 * modified entries before the per-block flush, and their changes with them), so after a committed block —
 * when every entry is flushed and clean — they are cleared every CACHE_CLEAR_EVERY_BLOCKS blocks or
 * when they hold more than CACHE_MAX_ACCOUNTS accounts. Returns whether it cleared.
 */
export function trimStateCaches(sm: MerkleStateManager, caches: Caches, height: number): boolean {
  if (height % CACHE_CLEAR_EVERY_BLOCKS !== 0 && (caches.account?.size() ?? 0) <= CACHE_MAX_ACCOUNTS) return false
  sm.clearCaches()
  return true
}

/** A state manager at a committed `root` whose writes never leave it (private overlay). */
export async function createStateCopy(db: Database, common: Common, root: Uint8Array): Promise<MerkleStateManager> {
  const trie = createTrie(new OverlayTrieDb(db), common)
  const stateManager = createStateManager(db, trie, common, createCaches())
  await setRoot(stateManager, root)
  return stateManager
}

/** A VM over a state copy at `root` (for eth_call, estimateGas, tracing). */
export async function createVmCopy(db: Database, common: Common, blockchain: EVMMockBlockchainInterface, root: Uint8Array): Promise<VM> {
  const stateManager = await createStateCopy(db, common, root)
  await installJumpAnalysisCache()
  return createVM({ common, stateManager, blockchain, evmOpts: evmOptions(common) })
}

async function setRoot(sm: MerkleStateManager, root: Uint8Array): Promise<void> {
  try {
    await sm.setStateRoot(root)
  } catch (err) {
    throw new UnknownBlockError(`missing trie node for state root: ${err instanceof Error ? err.message : String(err)}`)
  }
}
