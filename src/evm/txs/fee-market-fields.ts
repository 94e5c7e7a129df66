/**
 * The admission's quick reading of the common case, a signed EIP-1559 call (type 2, with a `to`),
 * straight from its raw bytes: one pass over the RLP, no copies, no ethereumjs object. It accepts
 * only what ethereumjs' `createTxFromRLP` accepts with the same fields, and is stricter where that is
 * simpler: any other type, a creation, a number with a leading zero (the chain id too), a fee cap below
 * the tip, a high s or a y-parity other than 0/1 gets `undefined`, and the caller decodes the library's
 * way, which gives every refusal its usual error. The ethereumjs transaction is assembled from these
 * fields later, when a block executes it (tx.ts).
 *
 * Layout (EIP-1559): 0x02 ‖ RLP[chainId, nonce, maxPriorityFeePerGas, maxFeePerGas, gasLimit, to,
 * value, data, accessList, yParity, r, s], each access-list entry [address, [storageKey…]].
 */
import { bytesToBigint, hexToBytes } from '../../primitives/hex.js'

/** An access list as ethereumjs holds it: `[address, storageKeys]` pairs of byte views. */
export type AccessListBytes = [Uint8Array, Uint8Array[]][]

export interface FeeMarketFields {
  nonce: bigint
  maxPriorityFeePerGas: bigint
  maxFeePerGas: bigint
  gasLimit: bigint
  /** The 20-byte recipient (a view into the raw bytes). */
  to: Uint8Array
  value: bigint
  /** Calldata (a view into the raw bytes). */
  data: Uint8Array
  accessList: AccessListBytes
  /** The signature's recovery id (the y-parity). */
  recovery: number
  /** r ‖ s, each left-padded to 32 bytes. */
  signature: Uint8Array
  /** Where the field list's payload starts and where its signed part (before yParity) ends. */
  payloadStart: number
  signedEnd: number
}

const FEE_MARKET_TYPE = 2
const FIELD_COUNT = 12
const ADDRESS_BYTES = 20
const STORAGE_KEY_BYTES = 32
/** Numbers of at most 256 bits (ethereumjs `valueOverflowCheck`). */
const WORD_BYTES = 32
/** Nonce and gas limit are 64-bit (EIP-2681, and ethereumjs' gas limit check). */
const UINT64_BYTES = 8
const MAX_NONCE = 2n ** 64n - 1n
const MAX_UINT256 = 2n ** 256n - 1n
/** EIP-2: s above secp256k1n / 2 is refused. */
const SECP256K1_HALF_ORDER = hexToBytes('0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0')

/** The twelve items of the field list, in the layout's order. */
type FieldItems = [Item, Item, Item, Item, Item, Item, Item, Item, Item, Item, Item, Item]

/** An RLP item: where its encoding starts, its payload's bounds and whether it is a list. */
interface Item {
  at: number
  start: number
  end: number
  list: boolean
}

/**
 * The canonical RLP item at `at`, which must end by `limit`; undefined for anything the strict
 * decoder refuses (a prefixed single byte below 0x80, a long form for a short payload, a length with
 * a leading zero, an overrun).
 */
function readItem(bytes: Uint8Array, at: number, limit: number): Item | undefined {
  if (at >= limit) return undefined
  const first = bytes[at]!
  if (first < 0x80) return { at, start: at, end: at + 1, list: false }
  const list = first >= 0xc0
  const short = first - (list ? 0xc0 : 0x80)
  let start = at + 1
  let length = short
  if (short > 55) {
    const lengthBytes = short - 55
    if (lengthBytes > 3 || at + 1 + lengthBytes > limit || bytes[at + 1] === 0) return undefined
    length = 0
    for (let i = 1; i <= lengthBytes; i++) length = length * 256 + bytes[at + i]!
    if (length <= 55) return undefined
    start += lengthBytes
  } else if (!list && length === 1 && bytes[start]! < 0x80) {
    return undefined
  }
  const end = start + length
  return end > limit ? undefined : { at, start, end, list }
}

/** Bytes a double holds exactly (48 bits), read without bigint steps. */
const SMALL_NUMBER_BYTES = 6

/** Whether `item` is a byte string of at most `maxBytes` without a leading zero (a canonical number). */
function isNumber(bytes: Uint8Array, item: Item, maxBytes: number): boolean {
  const length = item.end - item.start
  return !item.list && length <= maxBytes && (length === 0 || bytes[item.start] !== 0)
}

/** A canonical number of at most `maxBytes` as a bigint; undefined otherwise. */
function readNumber(bytes: Uint8Array, item: Item, maxBytes: number): bigint | undefined {
  if (!isNumber(bytes, item, maxBytes)) return undefined
  if (item.end - item.start > SMALL_NUMBER_BYTES) return bytesToBigint(bytes.subarray(item.start, item.end))
  let n = 0
  for (let i = item.start; i < item.end; i++) n = n * 256 + bytes[i]!
  return BigInt(n)
}

/** Whether a present, canonical signature value `item` is at most EIP-2's bound on s (secp256k1n / 2). */
function isLowS(bytes: Uint8Array, item: Item): boolean {
  if (item.end - item.start < WORD_BYTES) return true
  for (let i = 0; i < WORD_BYTES; i++) {
    const b = bytes[item.start + i]!
    if (b !== SECP256K1_HALF_ORDER[i]) return b < SECP256K1_HALF_ORDER[i]!
  }
  return true
}

/** The access list's entries as views, or undefined when one is not [20-byte address, [32-byte keys]]. */
function readAccessList(bytes: Uint8Array, item: Item): AccessListBytes | undefined {
  if (!item.list) return undefined
  const entries: AccessListBytes = []
  for (let at = item.start; at < item.end; ) {
    const entry = readItem(bytes, at, item.end)
    if (entry === undefined || !entry.list) return undefined
    const address = readItem(bytes, entry.start, entry.end)
    if (address === undefined || address.list || address.end - address.start !== ADDRESS_BYTES) return undefined
    const keys = readItem(bytes, address.end, entry.end)
    if (keys === undefined || !keys.list || keys.end !== entry.end) return undefined
    const storageKeys: Uint8Array[] = []
    for (let k = keys.start; k < keys.end; ) {
      const key = readItem(bytes, k, keys.end)
      if (key === undefined || key.list || key.end - key.start !== STORAGE_KEY_BYTES) return undefined
      storageKeys.push(bytes.subarray(key.start, key.end))
      k = key.end
    }
    entries.push([bytes.subarray(address.start, address.end), storageKeys])
    at = entry.end
  }
  return entries
}

/** `item`'s bytes left-padded into `out` at `offset`, 32 bytes. */
function setWord(out: Uint8Array, offset: number, bytes: Uint8Array, item: Item): void {
  out.set(bytes.subarray(item.start, item.end), offset + WORD_BYTES - (item.end - item.start))
}

/**
 * The fields of `raw` when it is a plain signed EIP-1559 call for `chainId` that ethereumjs decodes
 * to the same values; undefined for everything else (decode it the library's way).
 */
export function readFeeMarketTx(raw: Uint8Array, chainId: bigint): FeeMarketFields | undefined {
  if (raw.length < 2 || raw[0] !== FEE_MARKET_TYPE) return undefined
  const outer = readItem(raw, 1, raw.length)
  if (outer === undefined || !outer.list || outer.end !== raw.length) return undefined
  const items: Item[] = []
  for (let at = outer.start; at < outer.end; ) {
    const item = readItem(raw, at, outer.end)
    if (item === undefined || items.length === FIELD_COUNT) return undefined
    items.push(item)
    at = item.end
  }
  if (items.length !== FIELD_COUNT) return undefined
  const [chain, nonceItem, tipItem, feeItem, gasItem, toItem, valueItem, dataItem, listItem, parityItem, rItem, sItem] = items as FieldItems
  if (readNumber(raw, chain, WORD_BYTES) !== chainId) return undefined
  const nonce = readNumber(raw, nonceItem, UINT64_BYTES)
  const maxPriorityFeePerGas = readNumber(raw, tipItem, WORD_BYTES)
  const maxFeePerGas = readNumber(raw, feeItem, WORD_BYTES)
  const gasLimit = readNumber(raw, gasItem, UINT64_BYTES)
  const value = readNumber(raw, valueItem, WORD_BYTES)
  const parity = readNumber(raw, parityItem, 1)
  if (nonce === undefined || nonce >= MAX_NONCE || maxPriorityFeePerGas === undefined || maxFeePerGas === undefined) return undefined
  if (gasLimit === undefined || value === undefined || parity === undefined || parity > 1n) return undefined
  // r and s present (canonical, so not zero), s within the bound.
  if (rItem.start === rItem.end || sItem.start === sItem.end || !isNumber(raw, rItem, WORD_BYTES) || !isNumber(raw, sItem, WORD_BYTES))
    return undefined
  if (!isLowS(raw, sItem)) return undefined
  if (maxFeePerGas < maxPriorityFeePerGas || gasLimit * maxFeePerGas > MAX_UINT256) return undefined
  if (toItem.list || toItem.end - toItem.start !== ADDRESS_BYTES || dataItem.list) return undefined
  const accessList = readAccessList(raw, listItem)
  if (accessList === undefined) return undefined
  const signature = new Uint8Array(2 * WORD_BYTES)
  setWord(signature, 0, raw, rItem)
  setWord(signature, WORD_BYTES, raw, sItem)
  return {
    nonce,
    maxPriorityFeePerGas,
    maxFeePerGas,
    gasLimit,
    to: raw.subarray(toItem.start, toItem.end),
    value,
    data: raw.subarray(dataItem.start, dataItem.end),
    accessList,
    recovery: Number(parity),
    signature,
    payloadStart: outer.start,
    signedEnd: parityItem.at,
  }
}
