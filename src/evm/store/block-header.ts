/**
 * The Ethereum header of each height of the EVM view, and its hash. The EVM runs Cancun rules
 * (common.ts), so the header is Cancun's: the London fields, then withdrawalsRoot (EIP-4895),
 * blobGasUsed and excessBlobGas (EIP-4844) and parentBeaconBlockRoot (EIP-4788). Its RLP is geth's
 * `rlp.EncodeToBytes(types.Header)` and ethereumjs' `BlockHeader.serialize()`, and the block `hash`
 * is keccak256 of that RLP, so a client that rebuilds the header from eth_getBlockByNumber's fields
 * finds the same hash.
 *
 * Every field comes from the height's consensus block and its execution, never from the node that
 * computes it: `extraData` holds the consensus (CometBFT) block hash, which commits to the whole
 * consensus block (transactions, time, proposer, chain id), so the EVM hash commits to it too.
 */
import { RLP } from '@ethereumjs/rlp'
import { keccak256 } from '../../crypto/index.js'
import { hexToBytes } from '../../primitives/hex.js'
import { EMPTY_TRIE_ROOT } from './ordered-trie.js'
import type { EvmBlock } from './views.js'

/** Keccak-256 of RLP([]): the ommers hash of a block without uncles. */
export const EMPTY_UNCLES_HASH = hexToBytes('0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347')
/** The 8-byte block nonce (always zero, as after the merge). */
export const ZERO_NONCE = new Uint8Array(8)
/** The chain has no withdrawals: the root of the empty list (EIP-4895). */
export const WITHDRAWALS_ROOT = EMPTY_TRIE_ROOT
/** Blob transactions are refused, so no block uses blob gas and none is in excess (EIP-4844). */
export const BLOB_GAS_USED = 0n
export const EXCESS_BLOB_GAS = 0n
/**
 * No beacon chain: zero (EIP-4788's field is a hash32; the consensus hashes are in extraData, and the
 * beacon-roots system contract is not run).
 */
export const PARENT_BEACON_BLOCK_ROOT = new Uint8Array(32)

/** The fields the header is made of: everything of an EvmBlock but its own hash, size and transactions. */
export type HeaderSource = Omit<EvmBlock, 'hash' | 'size' | 'transactions' | 'cometHash'>

/** The header's RLP fields, in Cancun order. */
export function headerFields(b: HeaderSource): (Uint8Array | bigint | number)[] {
  return [
    b.parentHash,
    EMPTY_UNCLES_HASH,
    b.miner,
    b.stateRoot,
    b.transactionsRoot,
    b.receiptsRoot,
    b.logsBloom,
    0n,
    b.number,
    b.gasLimit,
    b.gasUsed,
    b.timestamp,
    b.extraData,
    b.mixHash,
    ZERO_NONCE,
    b.baseFeePerGas,
    WITHDRAWALS_ROOT,
    BLOB_GAS_USED,
    EXCESS_BLOB_GAS,
    PARENT_BEACON_BLOCK_ROOT,
  ]
}

/** RLP of the header (what debug_getRawHeader returns). */
export function encodeHeader(b: HeaderSource): Uint8Array {
  return RLP.encode(headerFields(b))
}

/** The block hash: keccak256 of the header's RLP. */
export function hashHeader(b: HeaderSource): Uint8Array {
  return keccak256(encodeHeader(b))
}
