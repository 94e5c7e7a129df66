/** Block hash helpers: the hash is the header hash (`Block.Hash()`), memoised per block object. */
import { hashHeader } from '../comet/hash.js'
import type { Block } from '../comet/types.js'
import { equalBytes } from '../primitives/hex.js'

const cache = new WeakMap<Block, Uint8Array>()

/** The block's header hash. Blocks are treated as immutable once hashed. */
export function blockHash(block: Block): Uint8Array {
  let h = cache.get(block)
  if (!h) {
    h = hashHeader(block.header)
    cache.set(block, h)
  }
  return h
}

/** `Block.HashesTo`: false for an undefined block or an empty hash. */
export function hashesTo(block: Block | undefined, hash: Uint8Array): boolean {
  if (!block || hash.length === 0) return false
  return equalBytes(blockHash(block), hash)
}
