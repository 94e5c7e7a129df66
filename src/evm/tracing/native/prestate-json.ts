/**
 * The JSON of prestateTracer (geth gencodec `account`, marshalled from Go maps): addresses and slots
 * in ascending order, `balance` as a quantity, `code` as data, `nonce` as a JSON number, `storage` as
 * slot → 32-byte value; code, nonce and storage are omitted when empty or zero (`omitempty`).
 */
import { bytesToHex } from '../../../primitives/hex.js'
import { toQuantity } from '../../../primitives/quantity.js'

/** An account as the tracer holds it; undefined fields are left out of the JSON. */
export interface AccountState {
  balance: bigint | undefined
  nonce: bigint | undefined
  code: Uint8Array | undefined
  /** Slot (0x-hex, 32 bytes) → 32-byte value; undefined with disableStorage. */
  storage: Map<string, Uint8Array> | undefined
  /** No balance, nonce or code when first looked up (geth `account.empty`). */
  empty?: boolean
}

/** One account's JSON, in geth's field order. */
export interface AccountJson {
  balance?: string
  code?: string
  nonce?: number
  storage?: Record<string, string>
}

const byKey = <T>(entries: Iterable<[string, T]>): [string, T][] => [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))

export function encodeAccount(account: AccountState): AccountJson {
  return {
    ...(account.balance !== undefined ? { balance: toQuantity(account.balance) } : {}),
    ...(account.code !== undefined && account.code.length > 0 ? { code: bytesToHex(account.code) } : {}),
    ...(account.nonce !== undefined && account.nonce > 0n ? { nonce: Number(account.nonce) } : {}),
    ...(account.storage !== undefined && account.storage.size > 0
      ? { storage: Object.fromEntries(byKey(account.storage).map(([slot, value]) => [slot, bytesToHex(value)])) }
      : {}),
  }
}

/** Address → account, sorted by address as Go's encoding/json sorts map keys. */
export function encodeState(state: Map<string, AccountState>): Record<string, AccountJson> {
  return Object.fromEntries(byKey(state).map(([address, account]) => [address, encodeAccount(account)]))
}
