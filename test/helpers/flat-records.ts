/** The flat state's records and the trie's, to compare (test/unit/evm/state/flat-state.test.ts, the crash tests). */
import type { Common } from '@ethereumjs/common'
import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { createAccountFromRLP, KECCAK256_RLP } from '@ethereumjs/util'
import type { Database } from '../../src/db/database.js'
import { DATA_END, DATA_START, decodeFlatMarker, type FlatMarker, MARKER_KEY } from '../../src/evm/state/flat-keys.js'
import { createStateCopy } from '../../src/evm/state/state.js'
import { bytesToHex, equalBytes, hexToBytes } from '../../src/primitives/hex.js'

const hex = (b: Uint8Array): string => bytesToHex(b).slice(2)
const stripped = (h: string): string => (h.startsWith('0x') ? h.slice(2) : h)

interface Internals {
  _trie: MerklePatriciaTrie
  _getStorageTrie(addressHash: Uint8Array, account: ReturnType<typeof createAccountFromRLP>): MerklePatriciaTrie
}

/** Every record the flat state should hold for `root` (flat key → value, hex), read by ethereumjs's own trie walk. */
export async function trieRecords(db: Database, common: Common, root: Uint8Array): Promise<Map<string, string>> {
  const sm = (await createStateCopy(db, common, root)) as MerkleStateManager & Internals
  const out = new Map<string, string>()
  const accounts = (await sm._trie.getValueMap()).values
  for (const [key, value] of Object.entries(accounts)) {
    out.set(stripped(key), stripped(value))
    const account = createAccountFromRLP(hexToBytes(value))
    if (equalBytes(account.storageRoot, KECCAK256_RLP)) continue
    const slots = (await sm._getStorageTrie(hexToBytes(key), account).getValueMap()).values
    for (const [slot, v] of Object.entries(slots)) out.set(stripped(key) + stripped(slot), stripped(v))
  }
  return out
}

/** The flat state's records (flat key → value, hex) as written. */
export async function flatRecords(db: Database): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  for await (const [key, value] of db.iterate({ gte: DATA_START, lt: DATA_END })) out.set(hex(key.subarray(2)), hex(value))
  return out
}

/** The flat state's marker as written. */
export async function flatMarker(db: Database): Promise<FlatMarker | undefined> {
  const bytes = await db.get(MARKER_KEY)
  return bytes && decodeFlatMarker(bytes)
}
