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
import type { GenesisAccountHeader, GenesisAccountSink } from '../genesis.js'
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
 * state manager) straight to LevelDB in bounded batches as the accounts come (a GenesisAccountSink),
 * as the builder writes its trie nodes: staged until the first Commit, the notes of a million holders
 * of a token held about 600 MB. A note written before that Commit is harmless: it only says where state
 * may be, and a repeated InitChain writes the same notes. Call {@link flush} after the last account.
 */
export class GenesisNotes implements GenesisAccountSink {
  private ops: BatchOp[] = []
  /** Slots of the account being read that came before its address. */
  private orphans: Uint8Array[] = []

  constructor(private readonly db: Database) {}

  slot(slot: Uint8Array, _value: Uint8Array, address: Uint8Array | undefined): void | Promise<void> {
    if (!address) {
      this.orphans.push(slot)
      return
    }
    this.note(concatBytes(SLOTS, address, slot))
    if (this.ops.length >= GENESIS_NOTES_BATCH) return this.flush()
  }

  account(a: GenesisAccountHeader): void | Promise<void> {
    this.note(concatBytes(ACCOUNTS, a.address))
    for (const slot of this.orphans) this.note(concatBytes(SLOTS, a.address, slot))
    this.orphans = []
    if (this.ops.length >= GENESIS_NOTES_BATCH) return this.flush()
  }

  /** Writes the notes not written yet. */
  async flush(): Promise<void> {
    if (this.ops.length === 0) return
    const ops = this.ops
    this.ops = []
    await this.db.batch(ops)
  }

  private note(key: Uint8Array): void {
    this.ops.push({ type: 'put', key, value: NOTE })
  }
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
