/**
 * The hash a typed transaction's sender signed, read from its raw bytes (EIP-2718): keccak256(type ‖
 * RLP(fields without yParity, r, s)). The fields are the raw transaction's own RLP items, so only a new
 * list header is written; ethereumjs' `getMessageToVerifySignature` re-encodes every field from the
 * decoded transaction to the same bytes, which costs about as much again as the decoding (`node
 * --cpu-prof` of a validator's admissions). The same bytes because the decoder takes canonical RLP and
 * numbers without leading zeros only, so the items re-encode to themselves.
 */
import { keccak256 } from '../../crypto/index.js'

/** The signature's three items (yParity, r, s) end every typed transaction's field list. */
const SIGNATURE_ITEMS = 3

/** Where an RLP item's payload starts and ends, from the offset of its first byte. */
interface ItemBounds {
  payloadStart: number
  end: number
}

function itemBounds(bytes: Uint8Array, at: number): ItemBounds {
  const first = bytes[at]!
  if (first < 0x80) return { payloadStart: at, end: at + 1 }
  if (first <= 0xb7) return { payloadStart: at + 1, end: at + 1 + first - 0x80 }
  if (first < 0xc0) return longItem(bytes, at, first - 0xb7)
  if (first <= 0xf7) return { payloadStart: at + 1, end: at + 1 + first - 0xc0 }
  return longItem(bytes, at, first - 0xf7)
}

/** A string or list of more than 55 bytes: its length follows the prefix in `lengthBytes` bytes. */
function longItem(bytes: Uint8Array, at: number, lengthBytes: number): ItemBounds {
  let length = 0
  for (let i = 1; i <= lengthBytes; i++) length = length * 256 + bytes[at + i]!
  return { payloadStart: at + 1 + lengthBytes, end: at + 1 + lengthBytes + length }
}

/** RLP list header of a payload of `length` bytes. */
function listHeader(length: number): Uint8Array {
  if (length <= 55) return Uint8Array.of(0xc0 + length)
  const digits: number[] = []
  for (let n = length; n > 0; n = Math.floor(n / 256)) digits.unshift(n % 256)
  return Uint8Array.of(0xf7 + digits.length, ...digits)
}

/**
 * The signing hash of a typed transaction that has already decoded (so its RLP is canonical and its
 * field list is the whole of `raw` after the type byte); undefined for a legacy transaction, whose
 * message (EIP-155) is not a prefix of its fields.
 */
export function typedTxSigningHash(raw: Uint8Array): Uint8Array | undefined {
  if (raw[0]! >= 0x80) return undefined
  const list = itemBounds(raw, 1)
  const starts: number[] = []
  for (let at = list.payloadStart; at < list.end; at = itemBounds(raw, at).end) starts.push(at)
  if (starts.length <= SIGNATURE_ITEMS) return undefined
  return signedFieldsHash(raw, list.payloadStart, starts[starts.length - SIGNATURE_ITEMS]!)
}

/**
 * The signing hash of a decoded typed transaction whose signed fields (all but yParity, r, s) are
 * `raw[payloadStart, fieldsEnd)`: the type byte, a new list header, those items.
 */
export function signedFieldsHash(raw: Uint8Array, payloadStart: number, fieldsEnd: number): Uint8Array {
  const header = listHeader(fieldsEnd - payloadStart)
  const message = new Uint8Array(1 + header.length + fieldsEnd - payloadStart)
  message[0] = raw[0]!
  message.set(header, 1)
  message.set(raw.subarray(payloadStart, fieldsEnd), 1 + header.length)
  return keccak256(message)
}
