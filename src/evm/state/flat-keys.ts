/**
 * The flat state's key space (`Prefix.flat`), after geth's snapshot: the head's state as plain
 * records keyed by hash, so that a read is one LevelDB lookup instead of a walk down the trie.
 *
 * - `flat ‖ 0x00`: the marker, the one record saying what the rest is exact for (below).
 * - `flat ‖ 0x01 ‖ keccak(address)`: the account's RLP, as the account trie's leaf holds it.
 * - `flat ‖ 0x01 ‖ keccak(address) ‖ keccak(slot)`: the slot's RLP value, as the storage trie's leaf holds it.
 *
 * An account's slots follow the account in key order, so "every key up to P" is a prefix of the state
 * in the order the trie walk gives it: what a generation in progress has done (flat-generator.ts).
 */
import { equalBytes } from '../../primitives/hex.js'
import { Prefix } from '../../db/prefixes.js'

/** Length of a flat key of an account (its hashed address). */
export const ACCOUNT_KEY_BYTES = 32
/** Length of a flat key of a slot (hashed address, hashed slot). */
export const SLOT_KEY_BYTES = 64

const MARKER_TAG = 0x00
const DATA_TAG = 0x01

/** The marker's database key. */
export const MARKER_KEY = Uint8Array.of(Prefix.flat, MARKER_TAG)
/** The first database key of the data records, and the first after them. */
export const DATA_START = Uint8Array.of(Prefix.flat, DATA_TAG)
export const DATA_END = Uint8Array.of(Prefix.flat, DATA_TAG + 1)

/** The database key of a flat key (32 bytes for an account, 64 for a slot). */
export function dataKey(flatKey: Uint8Array): Uint8Array {
  const key = new Uint8Array(2 + flatKey.length)
  key[0] = Prefix.flat
  key[1] = DATA_TAG
  key.set(flatKey, 2)
  return key
}

/** The database key of an account's slot. */
export function slotDataKey(addressHash: Uint8Array, slotHash: Uint8Array): Uint8Array {
  const key = new Uint8Array(2 + SLOT_KEY_BYTES)
  key[0] = Prefix.flat
  key[1] = DATA_TAG
  key.set(addressHash, 2)
  key.set(slotHash, 2 + ACCOUNT_KEY_BYTES)
  return key
}

/** The flat key of a data record's database key. */
export function flatKeyOf(dbKey: Uint8Array): Uint8Array {
  return dbKey.subarray(2)
}

/**
 * The smallest database key after `flatKey` (`dataKey(flatKey) ‖ 0x00`): an exclusive upper bound for
 * the keys up to `flatKey`, an inclusive lower bound for the keys after it (an account's slots are after it).
 */
export function dataKeyAfter(flatKey: Uint8Array): Uint8Array {
  if (flatKey.length === 0) return DATA_START
  const key = new Uint8Array(3 + flatKey.length)
  key.set(dataKey(flatKey))
  return key
}

/** What the data records are exact for. */
export const FlatStatus = {
  /** Every record up to `progress` is the state at `root`; the rest is being generated. */
  generating: 0,
  /** Every record is the state at `root`: reads at that root may use them. */
  complete: 1,
} as const
export type FlatStatus = (typeof FlatStatus)[keyof typeof FlatStatus]

/** The marker record. */
export interface FlatMarker {
  status: FlatStatus
  /** The state root (the head's app hash) the records are exact for. */
  root: Uint8Array
  /** The height of that state. */
  height: number
  /** Raised by every write of the flat state: a reader that sees the same generation before and after its read saw no write. */
  generation: bigint
  /** While generating: the last flat key done (empty: none); empty when complete. */
  progress: Uint8Array
}

/** status(1) ‖ root(32) ‖ height(8) ‖ generation(8) ‖ progress(0, 32 or 64). */
export function encodeFlatMarker(m: FlatMarker): Uint8Array {
  const out = new Uint8Array(49 + m.progress.length)
  const view = new DataView(out.buffer)
  out[0] = m.status
  out.set(m.root, 1)
  view.setBigUint64(33, BigInt(m.height))
  view.setBigUint64(41, m.generation)
  out.set(m.progress, 49)
  return out
}

export function decodeFlatMarker(bytes: Uint8Array): FlatMarker {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return {
    status: bytes[0] === FlatStatus.complete ? FlatStatus.complete : FlatStatus.generating,
    root: bytes.slice(1, 33),
    height: Number(view.getBigUint64(33)),
    generation: view.getBigUint64(41),
    progress: bytes.slice(49),
  }
}

/** Whether an encoded marker says complete at `root` (without decoding it: the read path). */
export function markerCompleteAt(marker: Uint8Array, root: Uint8Array): boolean {
  return marker[0] === FlatStatus.complete && equalBytes(marker.subarray(1, 33), root)
}
