/**
 * The addresses and storage slots a development chain's state has been written at. The state trie
 * keys accounts and slots by their Keccak hashes, so it cannot list them: anvil_dumpState needs them.
 * On a dev chain the consensus state manager notes every address and slot it writes into the
 * application's stage, so the notes are written with the height's batch (and dropped with an
 * abandoned height).
 *
 * Keys: `meta ‖ "evm/dev-accounts/" ‖ address` and `meta ‖ "evm/dev-slots/" ‖ address ‖ slot`,
 * value one byte (a note only: the values are read from the state).
 */
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { Database } from '../../db/database.js'
import { metaKey, prefixEnd } from '../../db/prefixes.js'
import type { BatchOp, WriteStage } from '../../db/write-stage.js'
import type { GenesisAccount } from '../genesis.js'
import { concatBytes } from '../../primitives/hex.js'

const ACCOUNTS = metaKey('evm/dev-accounts/')
const SLOTS = metaKey('evm/dev-slots/')
const NOTE = Uint8Array.of(1)

/** Makes `sm` note, into `stage`, every address and slot written through it. */
export function notePreimages(sm: MerkleStateManager, stage: WriteStage): void {
  // The prototype's methods, looked up at each call: the library's patches of them (state/) still apply.
  const proto = Object.getPrototypeOf(sm) as MerkleStateManager
  sm.putAccount = (address, account) => {
    stage.put(concatBytes(ACCOUNTS, address.bytes), NOTE)
    return proto.putAccount.call(sm, address, account)
  }
  sm.putCode = (address, code) => {
    stage.put(concatBytes(ACCOUNTS, address.bytes), NOTE)
    return proto.putCode.call(sm, address, code)
  }
  sm.putStorage = (address, key, value) => {
    stage.put(concatBytes(ACCOUNTS, address.bytes), NOTE)
    stage.put(concatBytes(SLOTS, address.bytes, key), NOTE)
    return proto.putStorage.call(sm, address, key, value)
  }
}

/** Notes a genesis writes in one LevelDB batch. */
const GENESIS_NOTES_BATCH = 10_000

/**
 * Writes the notes of a genesis's addresses and slots (written by the genesis builder, not through a
 * state manager) straight to LevelDB in bounded batches, as the builder writes its trie nodes: staged
 * until the first Commit, the notes of a million holders of a token held about 600 MB. A note written
 * before that Commit is harmless: it only says where state may be, and a repeated InitChain writes
 * the same notes.
 */
export async function writeGenesisPreimages(db: Database, accounts: readonly GenesisAccount[]): Promise<void> {
  let ops: BatchOp[] = []
  const note = async (key: Uint8Array): Promise<void> => {
    ops.push({ type: 'put', key, value: NOTE })
    if (ops.length < GENESIS_NOTES_BATCH) return
    await db.batch(ops)
    ops = []
  }
  for (const a of accounts) {
    await note(concatBytes(ACCOUNTS, a.address))
    for (const [slot] of a.storage) await note(concatBytes(SLOTS, a.address, slot))
  }
  if (ops.length) await db.batch(ops)
}

/** Every address noted, with the slots noted for it (committed notes only). */
export async function loadNotedAccounts(db: Database): Promise<{ address: Uint8Array; slots: Uint8Array[] }[]> {
  const out: { address: Uint8Array; slots: Uint8Array[] }[] = []
  for (const key of await db.keys({ gte: ACCOUNTS, lt: prefixEnd(ACCOUNTS) })) {
    const address = key.slice(ACCOUNTS.length)
    const prefix = concatBytes(SLOTS, address)
    const slots = (await db.keys({ gte: prefix, lt: prefixEnd(prefix) })).map((k) => k.slice(prefix.length))
    out.push({ address, slots })
  }
  return out
}
