/**
 * Block parameter codecs (spec `<BLOCK_PARAM>`, EIP-1898), as geth's `rpc.BlockNumber` and
 * `rpc.BlockNumberOrHash`. Strict QUANTITY: Evmos' acceptance of decimal numbers is not reproduced.
 * `safe` and `finalized` are accepted and mean `latest` (docs/decisions.md: BFT blocks are final).
 */
import { DecodeError, hash as hashCodec, jsonKind, parseQuantityText, type Codec } from '../../rpc/codecs.js'

/** Block tags of the spec and execution-apis. */
export type BlockTag = 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized'

/** A block number (height) or a tag. */
export type BlockNumberOrTag = BlockTag | number

/** EIP-1898: a number or tag, or a block hash. */
export type BlockSelector = BlockNumberOrTag | { hash: Uint8Array; requireCanonical: boolean }

const TAGS: ReadonlySet<string> = new Set<BlockTag>(['latest', 'earliest', 'pending', 'safe', 'finalized'])
const MAX_INT64 = (1n << 63n) - 1n
/** geth's refusal of a `BlockNumberOrHash` that names no block. */
const NEITHER = 'invalid arguments; neither block nor hash specified'

/** Parses a tag or a strict QUANTITY; the bare geth reason on failure (`hex string without 0x prefix`). */
function parseBlockNumber(text: string, tooLarge: string): BlockNumberOrTag {
  if (TAGS.has(text)) return text as BlockTag
  const n = parseQuantityText(text, 64)
  if (n > MAX_INT64) throw new DecodeError(tooLarge)
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n)
}

/** geth `rpc.BlockNumber`: a tag or QUANTITY (a JSON number is read as text, hence rejected for lacking 0x). */
export const blockNumberOrTag: Codec<BlockNumberOrTag> = (value) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return parseBlockNumber(text, 'block number larger than int64')
}

/**
 * geth `rpc.BlockNumberOrHash`: a tag, a QUANTITY, a 32-byte hash (66 characters), or an object
 * `{blockNumber}` / `{blockHash, requireCanonical?}` (both → error; neither → error).
 */
export const blockSelector: Codec<BlockSelector> = (value) => {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>
    const number = obj.blockNumber ?? undefined
    const hash = obj.blockHash ?? undefined
    let requireCanonical = false
    if (obj.requireCanonical !== undefined && obj.requireCanonical !== null) {
      if (typeof obj.requireCanonical !== 'boolean') throw new DecodeError(jsonKind(obj.requireCanonical), 'bool')
      requireCanonical = obj.requireCanonical
    }
    if (number !== undefined && hash !== undefined)
      throw new DecodeError('cannot specify both BlockHash and BlockNumber, choose one or the other')
    if (hash !== undefined) {
      try {
        return { hash: hashCodec(hash), requireCanonical }
      } catch (err) {
        throw err instanceof DecodeError ? err.inField('BlockNumberOrHash', 'blockHash') : err
      }
    }
    if (number !== undefined) return blockNumberOrTag(number)
    throw new DecodeError(NEITHER)
  }
  // Go decodes null into the empty struct: neither a number nor a hash (geth then refuses it).
  if (value === null) throw new DecodeError(NEITHER)
  if (typeof value !== 'string') throw new DecodeError(jsonKind(value), 'string')
  if (value.length === 66) {
    try {
      return { hash: hashCodec(value), requireCanonical: false }
    } catch (err) {
      // geth parses the text with `Hash.UnmarshalText`: the bare hexutil reason, no JSON type error.
      throw err instanceof DecodeError ? new DecodeError(err.reason) : err
    }
  }
  return parseBlockNumber(value, 'blocknumber too high')
}
